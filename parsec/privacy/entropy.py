"""Random-looking tokens: a key pasted alone, with no keyword or known prefix beside it.

`vendorctl auth login a790rfidzfevxz03c2vja3vtu91usebu`, `echo Ub4yMRDB…rg== | xclip`, a JSON
`"value": "…"`: no shape or provider rule sees these. A token is masked when its letters and
digits look drawn at random, judged on its alphanumeric runs of 4+ characters (together 20+, one of 8+):

- never hex alone (digits, a-f and dashes): git SHAs, digests, UUIDs and hex keys look the same,
  and the first three are everywhere in a shell session; a hex key needs its keyword; nor a ULID
  (Parsec's own session and conversation ids);
- two character classes at least (lower, upper, digit), each well represented, and characters
  switching class often: `getUserAccountSettingsById` switches at word starts only and has few
  capitals, a random base62 token switches about every other character;
- high Shannon entropy for its length (placeholders like `da2-aaaa…` are not secrets either way);
- not base64 of ordinary text (`aGVsbG8gd29ybGQ=`), not an ssh public key (`AAAA…`), not an
  integrity hash (`sha512-…`, `h1:…`), not a Nix store path.

Cost: one RE2 pass for tokens of 20+ characters on every text; each candidate costs a few
microseconds of Python, and at most CANDIDATES of them per text are examined (past that the
check stops; every other rule still applies), so output full of digests stays cheap.
"""

from __future__ import annotations

import base64
import binascii
import math
import re

from .matcher import SecretPattern, shannon_entropy

CANDIDATES = 1000
MAX_TOKEN = 1024  # longer tokens are data (a base64 blob, a glued flood), not a pasted key
MIN_BODY = 20  # alphanumerics in runs of MIN_RUN or more
MIN_RUN = 4  # shorter runs are separators' neighbours: `x86_64`, `v2`
LONGEST_RUN = 8
_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/.~-")
_RUN = re.compile(rb"[A-Za-z0-9]+")
_HEX = re.compile(rb"[0-9a-fA-F\-]+")
# ULIDs (Crockford base32, a millisecond clock first): Parsec's own ids for sessions and
# conversations, in every `parsec ask --resume ID` and stored row; random by design, never secret.
_ULID = re.compile(rb"[0-7][0-9A-HJKMNP-TV-Z]{25}")
# ssh public keys, integrity hashes, certificates, IPFS content ids.
_PUBLIC_PREFIXES = (b"AAAA", b"sha1-", b"sha256-", b"sha384-", b"sha512-", b"MII", b"Qm", b"bafy")
_PUBLIC_BEFORE = (b"h1:", b"/nix/store/", b"sha256:", b"sha512:", b"sha1:", b"base64,")
# Kubernetes pod names: <deployment>-<replica set hash>-<5 characters>.
_POD_NAME = re.compile(rb"(?:^|/)(?:[a-z0-9]+-)+[a-z0-9]{8,10}-[a-z0-9]{5}\Z")


def _token_span(text: bytes, start: int, end: int) -> tuple[int, int]:
    """Widen a match to the whole token around it (`+/._~-` join base64 and dashed keys; `=`
    only as base64 padding at the end, so `token=…` keeps its name)."""
    while start > 0 and text[start - 1] in _TOKEN_BYTES:
        start -= 1
    while end < len(text) and text[end] in _TOKEN_BYTES:
        end += 1
    while end < len(text) and text[end] == 61:  # "="
        end += 1
    while end > start and text[end - 1] in b".-_~":  # sentence punctuation, not the key's
        end -= 1
    if text[start : start + 2] == b"//":  # a URL's `//` (`https://TOKEN@host`): not the key's
        start += 2
    return start, end


# Each letter or digit as its class: `a` lower, `A` upper, `0` digit (bytes.translate runs in C).
_CLASS_OF = bytes.maketrans(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", b"a" * 26 + b"A" * 26 + b"0" * 10
)
_PRINTABLE = bytes(range(32, 127)) + b"\t\n\r"
_SAME_CLASS = re.compile(rb"a+|A+|0+")


def _class_switches(classes: list[bytes]) -> float:
    """Share of neighbouring characters of a different class (lower, upper, digit)."""
    pairs = sum(len(run) - 1 for run in classes)
    switches = sum(len(_SAME_CLASS.findall(run)) - 1 for run in classes)
    return switches / pairs if pairs else 0.0


def _is_base64_text(token: bytes) -> bool:
    """Base64 (standard or URL-safe) of mostly printable text: encoded prose, not a key."""
    stripped = token.rstrip(b"=")
    padded = stripped + b"=" * (-len(stripped) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            decoded = decode(padded)
        except (binascii.Error, ValueError):
            continue
        if decoded and len(decoded.translate(None, _PRINTABLE)) <= 0.1 * len(decoded):
            return True
    return False


def looks_random(token: bytes) -> bool:
    # Hex runs are digests, SHAs and UUID parts wherever they sit (`…/http-v2/a1f0e9…`), ULID runs
    # are ids: left out.
    runs = [
        run
        for run in _RUN.findall(token)
        if len(run) >= MIN_RUN and not _HEX.fullmatch(run) and not _ULID.fullmatch(run)
    ]
    body = b"".join(runs)
    if (
        len(body) < MIN_BODY
        or max(map(len, runs), default=0) < LONGEST_RUN
        or token.startswith(_PUBLIC_PREFIXES)
        or b"/nix/store/" in token
    ):
        return False
    if _POD_NAME.search(token):
        return False
    classes = [run.translate(_CLASS_OF) for run in runs]
    joined = b"".join(classes)
    lower, upper, digit = joined.count(b"a"), joined.count(b"A"), joined.count(b"0")
    letters = lower + upper
    if lower and upper and 0.25 <= upper / letters <= 0.75:
        pass  # both cases in even measure: random, not camelCase words or an acronym
    elif not (digit >= max(3, 0.1 * len(body)) and letters and not (lower and upper)):
        return False  # words: one case, camelCase, a version number
    if _class_switches(classes) < 0.3:
        return False  # words switch class at their starts only
    # Random text of n characters from an alphabet of 36+ has entropy near log2(min(n, 36)).
    if shannon_entropy(body) < 0.8 * math.log2(min(len(body), 36)):
        return False
    return not _is_base64_text(token)


def _random_token(text: bytes, start: int, end: int) -> tuple[int, int] | None:
    if end - start > MAX_TOKEN:
        return None
    start, end = _token_span(text, start, end)
    if text[max(0, start - 11) : start].endswith(_PUBLIC_BEFORE):
        return None
    return (start, end) if looks_random(text[start:end]) else None


def entropy_patterns() -> tuple[SecretPattern, ...]:
    return (
        SecretPattern(
            "random_token",
            r"[A-Za-z0-9][A-Za-z0-9_+/.~-]{19,}",
            refine=_random_token,
            candidates=CANDIDATES,
        ),
    )
