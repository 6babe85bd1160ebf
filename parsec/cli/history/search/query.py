"""The typed query: words, "exact phrases", smart case, the match mode, and -exclusions once the
query opens filters with a leading `:`."""

from __future__ import annotations

import re

from ....store.search import MODES, TextMatch

_TOKEN = re.compile(r'(-?)"([^"]*)"?|(\S+)')
# The query is the command line typed so far (`ls -la`, `git commit -m`), so a minus is an
# option's; a query that starts with this opens filters, where `-word` excludes.
FILTER_PREFIX = ":"


def parse(typed: str, mode: str = "fuzzy") -> TextMatch:
    """`git "push origin" -m`: `git`, the phrase `push origin` and `-m` must match. Opened with
    `:`, `:git -force -"dry run"` finds git commands without `force` or `dry run`. A lone `-` is a
    word. Case matters only when the query holds a capital letter."""
    filters = typed.startswith(FILTER_PREFIX)
    if filters:
        typed = typed[len(FILTER_PREFIX) :]
    include: list[str] = []
    exclude: list[str] = []
    for match in _TOKEN.finditer(typed):
        negated, phrase, word = match.group(1), match.group(2), match.group(3)
        if phrase is not None:
            if phrase:
                (exclude if negated and filters else include).append(phrase)
        elif filters and word.startswith("-") and len(word) > 1:
            exclude.append(word[1:])
        else:
            include.append(word)
    return TextMatch(
        include=tuple(include),
        exclude=tuple(exclude),
        mode=mode if mode in MODES else "fuzzy",
        case_sensitive=typed != typed.lower(),
    )


def next_mode(mode: str) -> str:
    return MODES[(MODES.index(mode) + 1) % len(MODES)] if mode in MODES else MODES[0]


def narrows(old: TextMatch, new: TextMatch) -> bool:
    """Every command `new` matches, `old` matches too: each word of `old` lies inside a word of
    `new` (a word's letters in order, or a phrase as a substring, are then there too), in the same
    mode. Exclusions widen as they are typed, so a query with any is never narrower."""
    if old.mode != new.mode or old.exclude or new.exclude or (old.case_sensitive and not new.case_sensitive):
        return False

    def fold(word: str) -> str:  # old without a capital matches either case: compare folded
        return word if old.case_sensitive else word.lower()

    if old.mode == "prefix":
        return fold(" ".join(new.include)).startswith(fold(" ".join(old.include)))
    return all(any(fold(word) in fold(later) for later in new.include) for word in old.include)


def matches(text: TextMatch, command: str) -> bool:
    """The same test as the SQL of store/search.text_clauses, for text that is not in a column
    (the commands inside a conversation). A test checks the two agree."""
    subject = command if text.case_sensitive else command.lower()

    def fold(word: str) -> str:
        return word if text.case_sensitive else word.lower()

    if any(fold(word) in subject for word in text.exclude):
        return False
    if text.mode == "prefix" and text.include:
        return subject.startswith(fold(" ".join(text.include)))
    for word in map(fold, text.include):
        if text.mode == "fuzzy" and " " not in word:
            if not _in_order(word, subject):
                return False
        elif word not in subject:
            return False
    return True


def _in_order(letters: str, subject: str) -> bool:
    at = 0
    for letter in letters:
        at = subject.find(letter, at)
        if at < 0:
            return False
        at += 1
    return True
