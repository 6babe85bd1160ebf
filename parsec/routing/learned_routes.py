"""Learning from the user: the route they chose for a line shape, kept in the ContextStore.

A line's shape is what a person would write to describe it: the command word, its first three
arguments as typed when they are plain words or options, and a placeholder for the rest
(`<number>`, `<path>`, `<quoted>`, `<name>` ...), plus `…` for more arguments and `| …` when the
line has shell operators. So `kill 1234` and `kill 5678` share `kill <number>`, while `watch the
logs` and `watch the build` stay apart. No quoted text, path or name is kept in a shape.
Preferences live in the store's "classifier" namespace; a failing store never breaks
classification.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, cast

from .decision import Label
from .language import bare
from .scoring import Analysis

if TYPE_CHECKING:
    from ..store.protocols import PreferenceStore

NAMESPACE = "classifier"
CHOICES = ("command", "prompt")
LITERAL_ARGS = 3  # arguments kept in the shape; the rest only count
PENDING_LIMIT = 1000  # shapes answered once that are remembered (in memory) for a second answer

_OLD_KEY = re.compile(r"^\S*\|[dwfpqo]*\|(\d|4\+)(\|s)?$")  # the coarse shapes of earlier versions

log = logging.getLogger(__name__)


def shape_key(analysis: Analysis) -> str:
    """The readable shape learned choices are stored under, e.g. 'watch the logs', 'kill <number>'."""
    parts = [bare(analysis.head) or analysis.head.lower()]
    for word, kind in zip(analysis.args[:LITERAL_ARGS], analysis.arg_kinds):
        parts.append(_readable(word.text, kind))
    if len(analysis.arg_kinds) > LITERAL_ARGS:
        parts.append("…")
    if analysis.lexed and (analysis.lexed.operators or analysis.lexed.substitution):
        parts.append("| …")
    return " ".join(parts)


def _readable(text: str, kind: str) -> str:
    """An argument as it appears in a shape: plain words and options as typed, the rest as a
    placeholder. Option values never appear (`--password=<value>`, `-pSECRET` → `<flag>`)."""
    if kind == "word" and len(text) <= 40:
        return bare(text)
    if kind == "flag":
        if text.startswith("--"):
            name, eq, _ = text.partition("=")
            return name + ("=<value>" if eq else "") if len(name) <= 40 else "<flag>"
        return text if len(text) <= 3 else "<flag>"  # -la, -m; not -pSECRET
    return f"<{kind}>"


def _masked(text: str) -> str:
    from ..privacy.masking import mask

    return mask(text)


class Preferences:
    """An in-memory copy of the store's classifier preferences, written through on change."""

    def __init__(self, store: PreferenceStore | None) -> None:
        self._store = store
        self._choices: dict[str, Label] = {}
        self._pending: dict[str, Label] = {}  # masked shape -> the last single answer for it
        self.reload()

    def reload(self) -> None:
        # A reload follows `parsec classify --forget`/`--learn` in another process: an answer
        # given once before it must not settle a shape with the next one.
        self._choices, self._pending = {}, {}
        if self._store is None:
            return
        try:
            stored = self._store.get_preferences(NAMESPACE)
        except Exception as err:  # an unreachable store must not stop classification
            log.warning("classifier preferences unavailable: %s", err)
            return
        for key, value in (stored or {}).items():
            choice = value.get("choice") if isinstance(value, dict) else value
            if choice in CHOICES and not _OLD_KEY.match(key):  # `make|dww|3` keys no longer match
                self._choices[key] = cast(Label, choice)  # one of CHOICES

    def get(self, key: str) -> Label | None:
        if not self._choices:  # the common case: nothing learned, nothing to mask on the hot path
            return None
        return self._choices.get(_masked(key))

    def remember(self, key: str, text: str, choice: str) -> bool:
        """Keep the choice in memory and in the store; False if the store could not take it."""
        if choice not in CHOICES:
            raise ValueError(f"choice must be 'command' or 'prompt', got {choice!r}")
        key = _masked(key)  # a token typed as a line's first word must not become a key in clear
        self._choices[key] = cast(Label, choice)  # one of CHOICES
        if self._store is None:
            return True
        value = {"choice": choice, "example": _masked(text)[:200], "updated": time.time()}
        try:
            self._store.set_preference(NAMESPACE, key, value)
        except Exception as err:  # the daemon keeps the choice for this run and carries on
            log.warning("could not store a classifier choice: %s", err)
            return False
        return True

    def confirm(self, key: str, text: str, choice: str) -> bool:
        """One answer from the user: remembered only when the previous answer for this shape was
        the same (a stray key must not settle a whole shape). A different answer starts over.
        Returns True when the shape is learned by this answer."""
        if choice not in CHOICES:
            raise ValueError(f"choice must be 'command' or 'prompt', got {choice!r}")
        masked = _masked(key)
        if self._pending.pop(masked, None) != choice:
            if len(self._pending) >= PENDING_LIMIT:  # a daemon runs for weeks: drop the oldest
                del self._pending[next(iter(self._pending))]
            self._pending[masked] = cast(Label, choice)  # one of CHOICES
            return False
        self.remember(key, text, choice)
        return True

    def forget(self, key: str | None = None) -> int:
        """Drop one learned shape (or all of them); returns how many were dropped."""
        if key is None:
            count = len(self._choices)
            self._choices, self._pending = {}, {}
        else:
            key = _masked(key)  # stored masked (see remember)
            count = int(self._choices.pop(key, None) is not None)
            self._pending.pop(key, None)
        if self._store is not None:
            count = self._store.delete_preferences(NAMESPACE, key)
        return count

    def items(self) -> dict[str, str]:
        return dict(self._choices)
