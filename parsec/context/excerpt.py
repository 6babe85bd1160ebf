"""What a finished command found: the few output lines worth carrying into later requests.

A step's result is often one line among many ("the magic number is 4711" above 200 lines of
log, the PID in a `ps` listing). Keeping the tail would lose it, keeping everything would cost
the budget, so each line is scored:

    score = relevance + fact + tail

- relevance: the query's words in the line, each weighted by how rare it is in this output
  (a word on every line tells nothing), so a line that names what the plan is about ranks high;
- fact: lines that read like a finding (words with a number, a path, `key: value`, `key=value`)
  beat bare numbers and decoration, the more so the rarer such lines are in this output (in a
  listing every line looks like one); error words count too;
- tail: the last lines get a little (results usually come last), the very last the most.

The best lines are kept in output order, within a line and character bound. The query is what
the step achieved and what the plan still has to do, not the current step alone: a completed
step's excerpt is then the same in every later request (the provider's prompt cache keeps the
prefix), and still names what later steps need.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from .relevance import terms_of

EXCERPT_LINES = 8  # lines a completed step's excerpt keeps at most
EXCERPT_CHARS = 480  # and characters (~120 tokens)
FACT_LINES = 2  # lines the compressed form keeps ("facts")
LINE_CHARS = 160  # one line is cut to this many characters
SCAN_LINES = 4000  # an output's lines weighed at most (its head and tail)

FACT_BONUS = 0.6
ERROR_BONUS = 0.6
TAIL_BONUS = (0.5, 0.3, 0.2)  # the last, second-last and third-last line
MIN_FACT_RARITY = 0.25  # a fact-like line keeps this share of its bonus even when all lines are
MIN_SCORE = 0.45  # below this a line is noise (a bare number, a rule of dashes) unless it is the last

_CUT_MARKER = re.compile(r"^\[\.\.\. \d+ bytes, \d+ lines cut \.\.\.\]$")  # TruncatedText's
_LETTER = re.compile(r"[A-Za-z]{2,}")
_DIGIT = re.compile(r"\d")
_PATH = re.compile(r"(?:^|\s)(?:~|\.{0,2})/\S")
_KEY_VALUE = re.compile(r"^\s*[\w .-]{1,40}(?::\s|=)\S")
_ERROR = re.compile(r"\b(?:error|failed|failure|fatal|denied|not found|no such|warning|cannot|refused)\b", re.I)


def _fact(line: str) -> float:
    """How much a line reads like a finding rather than decoration or a bare number."""
    if not _LETTER.search(line):
        return 0.0
    score = 0.0
    if _DIGIT.search(line) or _PATH.search(line) or _KEY_VALUE.search(line):
        score += FACT_BONUS
    if _ERROR.search(line):
        score += ERROR_BONUS
    return score


def scored_lines(output: str, query: str) -> list[tuple[float, int, str]]:
    """(score, position, line) of every distinct non-blank line, best first (ties: later first)."""
    lines = [line.strip() for line in output.splitlines()]
    if len(lines) > SCAN_LINES:
        half = SCAN_LINES // 2
        lines = lines[:half] + lines[-half:]
    seen: set[str] = set()
    unique: list[tuple[int, str]] = []
    for position, line in enumerate(lines):
        if line and line not in seen and not _CUT_MARKER.match(line):
            seen.add(line)
            unique.append((position, line))
    if not unique:
        return []
    wanted = set(terms_of(query))
    line_terms = [set(terms_of(line)) & wanted for _, line in unique]
    frequency: Counter[str] = Counter(term for terms in line_terms for term in terms)
    count = len(unique)
    fact = [_fact(line) for _, line in unique]
    rarity = max(1.0 - sum(1 for f in fact if f) / count, MIN_FACT_RARITY)
    last = unique[-1][0]
    out = []
    for (position, line), terms, fact_score in zip(unique, line_terms, fact, strict=True):
        relevance = sum(math.log(1.0 + count / frequency[term]) for term in terms) / (1.0 + math.log(1.0 + count))
        from_end = last - position
        tail = TAIL_BONUS[from_end] if from_end < len(TAIL_BONUS) else 0.0
        out.append((relevance + rarity * fact_score + tail, position, line))
    out.sort(key=lambda item: (-item[0], -item[1]))
    return out


def excerpt(output: str, query: str, max_lines: int = EXCERPT_LINES, max_chars: int = EXCERPT_CHARS) -> list[str]:
    """The best lines of `output` for `query`, in output order, within the bounds. The last line
    is always a candidate (a command's result or its final error), noise lines never are. An
    output that fits the bounds whole is kept whole."""
    ranked = scored_lines(output, query)
    if not ranked:
        return []
    if len(ranked) <= max_lines and sum(len(line) + 1 for _, _, line in ranked) <= max_chars:
        return [line for _, _, line in sorted(ranked, key=lambda item: item[1])]
    last_position = max(position for _, position, _ in ranked)
    chosen: list[tuple[int, str]] = []
    used = 0
    for score, position, line in ranked:
        if len(chosen) >= max_lines:
            break
        if score < MIN_SCORE and position != last_position:
            continue
        line = line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
        if used + len(line) > max_chars:
            continue
        used += len(line) + 1
        chosen.append((position, line))
    return [line for _, line in sorted(chosen)]


def facts(output: str, query: str) -> list[str]:
    """The compressed form's lines: the best `FACT_LINES` of the excerpt."""
    return excerpt(output, query, max_lines=FACT_LINES, max_chars=2 * LINE_CHARS)
