"""The matching engine behind masking: RE2 patterns, keyword gating, checks on each candidate.

Every pattern runs on RE2 (google-re2), which matches in time linear in the input whatever the
pattern or the text: no line, however long or hostile, can make masking backtrack. RE2 has no
look-around, so what a look-around used to say is checked on the candidate instead:
`not_after` (the byte before the match, for a word start), `name_check` (the captured name of a
`NAME=value` form), `refine` (pattern-specific parsing of a small captured span), and checks
common to all: a `$VAR` / `$(cmd)` reference is not a secret, nor is a marker left by an earlier
pass. Text is matched as UTF-8 bytes (one encoding per call, byte offsets throughout).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import re2

_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED  # the low-level call: no per-match Python object
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20  # DFA cache: the whole rule set stays on the fast path
_OPTIONS.log_errors = False  # a bad user pattern is reported as a ConfigError, not logged by RE2
RegexError = re2.error

MARKER_PREFIX = b"[REDACTED:"
# Not a value but a pointer to one, quoted or not: `$NAME`, `${NAME}`, `${NAME:-x}`, `$(cmd)`,
# `` `cmd` ``, a `<placeholder>`, a relative path (`./pw.txt`, `~/.pw`).
_REFERENCE = re.compile(
    rb"""["']?(?:\$\{?[A-Za-z_][A-Za-z0-9_]*(?:[:?#%/-][^}]*)?\}?|\$\(.*\)|`.*`|\$\d|<[^<>]*>|(?:\.\.?|~)/.*)["']?\Z""",
    re.S,
)


def is_reference(value: bytes) -> bool:
    """Whether `value` points at a secret (`$VAR`, `$(cmd)`, `<placeholder>`, `./file`) rather than holds one."""
    return _REFERENCE.match(value) is not None


LINE_WINDOW = 1024  # bytes of a match's line, either side of it, that allowlists see
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

Refine = Callable[[bytes, int, int], "tuple[int, int] | None"]


def compile_re2(pattern: str) -> re2._Regexp:
    """`pattern` compiled for bytes; raises re2.error when RE2 cannot take it."""
    return re2.compile(pattern.encode(), _OPTIONS)


@dataclass(eq=False)
class SecretPattern:
    kind: str
    source: str  # RE2 syntax; compiled on first use, so a text no keyword gates in never pays for it
    keywords: tuple[str, ...] = ()  # lower-case literals: the pattern runs only if one is present
    secret_group: int | None = (
        None  # group holding the secret; None: the group named s, else first non-empty group, else all
    )
    not_after: frozenset[int] = frozenset()  # bytes that may not come right before the match
    name_group: int | None = None
    name_check: Any = None  # re2 regex the captured name must fully match
    refine: Refine | None = None  # (text, start, end) of the secret group -> the span to mask, or None
    min_entropy: float = 0.0  # Shannon entropy (bits per char) the secret must exceed
    needs_digit: bool = False
    allow: Sequence[Callable[[bytes, bytes, bytes], bool]] = field(
        default_factory=tuple
    )  # (secret, match, line) -> allowed
    # Candidates of its own per text instead of the shared budget (masking.py passes it): a
    # best-effort check (entropy.py) that stops quietly when they run out, where a rule would
    # withhold the rest of the text.
    candidates: int | None = None

    _regex: object = None

    @property
    def regex(self):
        if self._regex is None:
            regex = compile_re2(self.source)
            groups = {k.decode() if isinstance(k, bytes) else k: v for k, v in regex.groupindex.items()}
            if self.secret_group is None and "s" in groups:
                self.secret_group = groups["s"]
            if self.name_group is None and "n" in groups:
                self.name_group = groups["n"]
            self._regex = regex
        return self._regex

    def spans(self, text: bytes, budget: list[int] | None = None) -> tuple[list[tuple[int, int]], int]:
        """(the secret spans found, the offset where the search stopped: len(text) unless the
        shared `budget` of candidates, budget[0], ran out first)."""
        out: list[tuple[int, int]] = []
        quiet = self.candidates is not None
        match = self.regex._regexp.Match
        end_of_text = len(text)
        position = 0
        while position <= end_of_text:
            if budget is not None:
                if budget[0] <= 0:
                    return out, end_of_text if quiet else position
                budget[0] -= 1
            groups = match(_UNANCHORED, text, position, end_of_text)
            start, end = groups[0]
            if start < 0:
                break
            position = end if end > start else start + 1
            if self.not_after and start > 0 and text[start - 1] in self.not_after:
                position = start + 1  # the same literal may start a valid match further on
                continue
            if self.name_group is not None:
                n_start, n_end = groups[self.name_group]
                if self.name_check.fullmatch(text[n_start:n_end]) is None:
                    position = max(n_end, start + 1)  # `--opt=password=x`: the value may hold a name
                    continue
            span = self._secret_span(groups)
            if span is None:
                continue
            if self.refine is not None:
                span = self.refine(text, *span)
                if span is None:
                    continue
            if self._accepted(text, span, groups[0]):
                out.append(span)
        return out, end_of_text

    def _secret_span(self, groups: list[tuple[int, int]]) -> tuple[int, int] | None:
        if self.secret_group is not None:
            span = groups[self.secret_group]
            return span if span[0] >= 0 and span[1] > span[0] else None
        for span in groups[1:]:
            if span[0] >= 0 and span[1] > span[0]:
                return span
        return groups[0] if groups[0][1] > groups[0][0] else None

    def _accepted(self, text: bytes, span: tuple[int, int], whole: tuple[int, int]) -> bool:
        secret = text[span[0] : span[1]]
        if secret.startswith(MARKER_PREFIX) or _REFERENCE.match(secret):
            return False
        if self.min_entropy and shannon_entropy(secret) <= self.min_entropy:
            return False
        if self.needs_digit and not any(48 <= byte <= 57 for byte in secret):
            return False
        if self.allow:
            matched = text[whole[0] : whole[1]]
            # The line around the match, at most LINE_WINDOW bytes either side: a whole 1 MB line
            # copied and searched per candidate made secret-dense long lines quadratic. Seeing less
            # of the line can only allow less (more is masked, nothing leaks).
            low, high = max(0, whole[0] - LINE_WINDOW), min(len(text), whole[1] + LINE_WINDOW)
            line_start = text.rfind(b"\n", low, whole[0]) + 1 or low
            line_end = text.find(b"\n", whole[1], high)
            line = text[line_start : line_end if line_end >= 0 else high]
            if any(allowed(secret, matched, line) for allowed in self.allow):
                return False
        return True


# count * log2(count) for the counts a token's bytes reach: H = log2(n) - sum(c log2 c) / n, summed in C.
_C_LOG_C = [0.0] + [count * math.log2(count) for count in range(1, 4097)]


def shannon_entropy(data: bytes) -> float:
    """Bits per byte of `data`."""
    if not data:
        return 0.0
    total = len(data)
    counts = Counter(data).values()
    if total < len(_C_LOG_C):
        weighted = sum(map(_C_LOG_C.__getitem__, counts))
    else:
        weighted = sum(count * math.log2(count) for count in counts)
    return max(0.0, math.log2(total) - weighted / total)


# One pass of the relaxed set costs about as much as a few patterns' own passes: it pays off past
# a few candidates on a long text, past more on a short one (where each pattern's pass is cheap).
BREADTH = 12  # keyword-gated patterns past which one RE2 set pass narrows them down
LONG_TEXT = 16 * 1024  # bytes past which BREADTH_LONG applies
BREADTH_LONG = 4
RELAX_ABOVE = 0  # measured: relaxing every count builds the set in ~10 ms and keeps its automaton small
_COUNTED = re.compile(r"(?<!\\)\{(\d+)(?:(,)(\d*))?\}")


def relaxed(source: str) -> str:
    """`source` with counted repetitions (`{32}`, `{5,16}`, `{250,}`) turned into `+` or `*`: it
    matches wherever `source` does (and more), so it can only say "maybe" where `source` says
    yes, and it compiles to a small automaton (gitleaks' `{0,50}`-style counts make a set of its
    rules slow to build)."""

    def loosen(count: re.Match) -> str:
        low, comma, high = count.group(1), count.group(2), count.group(3)
        top = int(high) if high else (int(low) if not comma else 1 << 30)
        if top <= RELAX_ABOVE:
            return count.group(0)  # small exact counts keep the set selective (secret lengths)
        return "*" if low == "0" else "+"

    return _COUNTED.sub(loosen, source)


class KeywordGate:
    """Which patterns can match a text: one RE2 pass over it finds every keyword present
    (a set of literals, so the automaton stays small), then only their patterns run."""

    def __init__(self, patterns: Sequence[SecretPattern]) -> None:
        self.patterns = tuple(patterns)
        self.always = tuple(i for i, p in enumerate(self.patterns) if not p.keywords)
        words: dict[str, list[int]] = {}
        for index, pattern in enumerate(self.patterns):
            for keyword in pattern.keywords:
                words.setdefault(keyword.lower(), []).append(index)
        self._users = list(words.values())
        options = re2.Options()
        options.case_sensitive = False
        options.max_mem = 64 << 20
        options.log_errors = False
        self._set = re2.Set.SearchSet(options)
        for keyword in words:
            self._set.Add(re2.escape(keyword.encode()))
        self._set.Compile()
        self._patterns_set: Any = None  # built on first need (see _really_matching)

    def candidates(self, text: bytes) -> list[tuple[int, SecretPattern]]:
        """(index, pattern) of each pattern that may match `text`, in table order."""
        hits = self._set.Match(text) or ()
        chosen = set(self.always)
        for hit in hits:
            chosen.update(self._users[hit])
        if len(chosen) > (BREADTH_LONG if len(text) > LONG_TEXT else BREADTH):
            chosen = self._really_matching(text, chosen)
        return [(i, self.patterns[i]) for i in sorted(chosen)]

    def _really_matching(self, text: bytes, chosen: set[int]) -> set[int]:
        """Text full of keywords (random base64, a dump of config keys) would run most patterns
        over all of it; one pass of an RE2 set of all the patterns says which really match.
        Its last member matches every text: if RE2 ran out of memory the answer lacks it, and
        every keyword-gated pattern runs as before (slower, never a miss).
        Measured, not used: a second set of the exact patterns (not relaxed) would rule out the
        rest on keyword-dense text, but it takes ~0.2 s to build and, on a fresh random text,
        0.1-0.8 s to run (RE2 builds its automaton's states as it meets them)."""
        if self._patterns_set is None:
            options = re2.Options()
            options.max_mem = 128 << 20
            options.log_errors = False
            patterns_set = re2.Set.SearchSet(options)
            for pattern in self.patterns:
                patterns_set.Add(relaxed(pattern.source).encode())
            patterns_set.Add(rb"\z")
            patterns_set.Compile()
            self._patterns_set = patterns_set
        hits = self._patterns_set.Match(text) or ()
        if len(self.patterns) not in hits:
            return chosen
        return chosen.intersection(hits)
