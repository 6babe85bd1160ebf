"""Learning from the user: the route they chose for a line shape, kept in the ContextStore.

A line's shape is its first word plus a coarse outline of its arguments (function word, plain
word, flag, path, quoted, other) and their number, so "make the tests pass" and "make the docs
build" share a shape while "make test" does not. Preferences live in the store's "classifier"
namespace; a failing store never breaks classification.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from .scoring import Analysis

NAMESPACE = "classifier"
CHOICES = ("command", "prompt")
_SHAPE_LETTERS = {"word": "w", "flag": "f", "path": "p", "glob": "p", "quoted": "q", "url": "p"}

log = logging.getLogger(__name__)


def shape_key(analysis: Analysis) -> str:
    """The key learned choices are stored under, e.g. 'make|dww|3' or 'find|dww|3'."""
    from .language import function_word_weight

    outline = []
    words = analysis.lexed.words if analysis.lexed else []
    start = next((i for i, w in enumerate(words) if w.text == analysis.head), 0) + 1
    for word, kind in zip(words[start : start + 3], analysis.arg_kinds[:3]):
        letter = _SHAPE_LETTERS.get(kind, "o")
        if letter == "w" and function_word_weight(word.text):
            letter = "d"
        outline.append(letter)
    n = len(analysis.arg_kinds)
    size = str(n) if n < 4 else "4+"
    ops = "|s" if analysis.lexed and (analysis.lexed.operators or analysis.lexed.substitution) else ""
    return f"{analysis.head.lower()}|{''.join(outline)}|{size}{ops}"


def _masked(text: str) -> str:
    from ..privacy.masking import mask

    return mask(text)


class Preferences:
    """An in-memory copy of the store's classifier preferences, written through on change."""

    def __init__(self, store: Any | None) -> None:
        self._store = store
        self._choices: dict[str, str] = {}
        self.reload()

    def reload(self) -> None:
        self._choices = {}
        if self._store is None:
            return
        try:
            stored = self._store.get_preferences(NAMESPACE)
        except Exception as err:  # an unreachable store must not stop classification
            log.warning("classifier preferences unavailable: %s", err)
            return
        for key, value in (stored or {}).items():
            choice = value.get("choice") if isinstance(value, dict) else value
            if choice in CHOICES:
                self._choices[key] = choice

    def get(self, key: str) -> str | None:
        return self._choices.get(_masked(key))

    def remember(self, key: str, text: str, choice: str) -> bool:
        """Keep the choice in memory and in the store; False if the store could not take it."""
        if choice not in CHOICES:
            raise ValueError(f"choice must be 'command' or 'prompt', got {choice!r}")
        key = _masked(key)  # a token typed as a line's first word must not become a key in clear
        self._choices[key] = choice
        if self._store is None:
            return True
        value = {"choice": choice, "example": _masked(text)[:200], "updated": time.time()}
        try:
            self._store.set_preference(NAMESPACE, key, value)
        except Exception as err:  # the daemon keeps the choice for this run and carries on
            log.warning("could not store a classifier choice: %s", err)
            return False
        return True

    def forget(self) -> int:
        count = len(self._choices)
        self._choices = {}
        if self._store is not None:
            count = self._store.delete_preferences(NAMESPACE)
        return count

    def items(self) -> dict[str, str]:
        return dict(self._choices)
