"""Secret values seen once, masked wherever they appear again -- without keeping them in clear.

Shapes find `export DB_PASSWORD=Hunter2secret`; they cannot know that `Hunter2secret` alone, in
the output of `echo $DB_PASSWORD` or in "the db root password is Hunter2secret", is the same
secret. A `SecretValues` remembers each secret value as a keyed hash (BLAKE2b with a random key
that lives only in this process's memory) and its length; `mask()` hashes the words of a text
whose length matches a remembered one and masks those whose hash is known. One memory per shell
or workflow session: nothing of it is written anywhere.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache

MIN_LENGTH = 6  # shorter values ("root", "1234") would mask ordinary words
MAX_VALUES = 4096  # a session that sees more keeps the first ones
_KIND = "[REDACTED:known_secret]"
# Words: runs without blanks or quotes (a value may hold `&`, `=`, `:`, see _known_part).
_WORD = re.compile(r"""[^\s'"`]+""")
_TRAILING = ".!?,;)"  # sentence punctuation a prompt may glue to a value
# Escapes glued to a value: `printf 'VALUE\n'`, `echo -e "VALUE\t"`.
_ESCAPES_AT_END = re.compile(r"(?:\\[nrt0])+\Z")
_SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION_ID|_PWD$|^PWD_", re.I
)
_NOT_SECRET_NAME = re.compile(
    r"^(?:KEYMAP|KEYBOARD.*|.*_KEY_ID|.*_KEY_FILE|.*_TOKEN_FILE|.*_PASSWORD_FILE|.*_PATH|.*_URL|.*_DIR)$", re.I
)


def secret_named(name: str) -> bool:
    """Whether an environment variable's name says its value is a credential."""
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.match(name)


class SecretValues:
    def __init__(self) -> None:
        self._key = os.urandom(32)
        self._digests: set[bytes] = set()
        self._lengths: set[int] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._digests)

    def _digest(self, value: str) -> bytes:
        return hashlib.blake2b(value.encode("utf-8", "surrogatepass"), key=self._key, digest_size=16).digest()

    def remember(self, value: str) -> None:
        value = _unquoted(value.strip())
        if len(value) < MIN_LENGTH or value.startswith("$") or value.startswith("[REDACTED:"):
            return
        with self._lock:
            if len(self._digests) < MAX_VALUES:
                self._digests.add(self._digest(value))
                self._lengths.add(len(value))

    def remember_environment(self, env: Mapping[str, str]) -> None:
        """The values of secret-named variables (`AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`)."""
        for name, value in env.items():
            if value and secret_named(name):
                self.remember(str(value))

    def remember_all(self, values: Iterable[str]) -> None:
        for value in values:
            self.remember(value)

    def mask(self, text: str) -> str:
        """`text` with every remembered value replaced by `[REDACTED:known_secret]`. A value is
        found as a whole word, as a word with sentence punctuation after it, or after the last
        `=` or `:` of a word (`DB_PASSWORD=value` in `env` output)."""
        if not self._digests or not text:
            return text
        with self._lock:  # another thread may be remembering a value
            shortest = min(self._lengths)
        parts: list[str] = []
        position = 0
        for match in _words_of_at_least(shortest).finditer(text):
            span = self._known_part(match.group())
            if span is None:
                continue
            start = match.start() + span[0]
            parts.append(text[position:start])
            parts.append(_KIND)
            position = match.start() + span[1]
        if not parts:
            return text
        parts.append(text[position:])
        return "".join(parts)

    def _known_part(self, word: str) -> tuple[int, int] | None:
        lengths, digests, digest = self._lengths, self._digests, self._digest
        stripped = _ESCAPES_AT_END.sub("", word).rstrip(_TRAILING)
        cut = max(word.rfind("="), word.rfind(":")) + 1
        for start, end in ((0, len(word)), (0, len(stripped)), (cut, len(word)), (cut, len(stripped))):
            if end - start in lengths and digest(word[start:end]) in digests:
                return start, end
        return None


@lru_cache(maxsize=64)
def _words_of_at_least(length: int) -> re.Pattern:
    """Words of `length` characters or more: a shorter word cannot hold a remembered value, and
    skipping it in the regex, not in Python, is what keeps 1 MB of output cheap."""
    return re.compile(_WORD.pattern[:-1] + f"{{{length},}}")


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        return value[1:-1]
    return value


class SessionMasker:
    """One session's masking: shapes (masking.py) plus the values this session has seen.

    Callable like `mask(text)`; every secret it masks is remembered, so a later text holding the
    value alone (output, a prompt, an environment change) is masked too."""

    def __init__(
        self, mask_secrets: bool = True, extra_patterns: tuple[str, ...] = (), values: SecretValues | None = None
    ) -> None:
        self.mask_secrets = mask_secrets
        self.extra_patterns = tuple(extra_patterns)
        self.values = values if values is not None else SecretValues()

    def __call__(self, text: str) -> str:
        from .masking import mask_collecting

        if not text:
            return text
        masked, found = mask_collecting(text, self.extra_patterns, builtin=self.mask_secrets)
        self.values.remember_all(found)
        return self.values.mask(masked)

    def remember_environment(self, env: Mapping[str, str]) -> None:
        self.values.remember_environment(env)

    def value(self, name: str, value: str) -> str:
        """An environment variable's value as it may be shown: whole-masked if its name says
        it is a credential (and remembered), else masked like any text."""
        if value and secret_named(name):
            self.values.remember(value)
            return "[REDACTED:credential]"
        return self(value)
