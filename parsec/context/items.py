"""Candidates: everything that might go into a context, with the forms it can take.

Candidates are the fast, internal form of the seed's ContextItem (parsec.models.context): the
same relevance, recency weight, importance level and context type, as slotted dataclasses
because a step may weigh 10,000 of them. A candidate carries a JSON-ready payload for each form
("full", and optionally "summary": the one-line achievement it becomes when history is
summarised), the section of the step context it renders into, and the per-step facts the pruner
needs (core or not, importance, age, score).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..models.context import ContextType, ImportanceLevel
from .redact import masked_value
from .relevance import Bm25Index, terms_of


def to_json(value: object) -> str:
    """The one serialisation used for counting and for sending: compact and deterministic."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False, default=str)


@dataclass(slots=True)
class Candidate:
    key: str  # stable identity, e.g. "attempt:<ulid>" or "pref:search_tool"
    kind: ContextType
    section: str  # where it renders, e.g. "execution_history"
    full: Any  # JSON-ready payload
    summary: Any = None  # shorter payload used when history is summarised; None: not summarisable
    text: str = ""  # what relevance is computed on (already masked)
    order: tuple = ()  # chronological sort key inside its section
    pattern: str | None = None  # items with the same pattern are repeats of each other
    created_at: datetime | None = None
    # Set per step by the engine:
    importance: ImportanceLevel = ImportanceLevel.low
    core: bool = False
    core_reason: str = ""
    age: int = 0
    relevance: float = 0.0
    recency: float = 1.0
    score: float = 0.0
    # Filled by the index and the budgeter:
    doc: int = -1
    _sizes: dict = field(default_factory=dict)
    _tokens: dict = field(default_factory=dict)
    _checked: set = field(default_factory=set)  # forms already passed through the secret masker

    def payload(self, form: str) -> Any:  # noqa: ANN401 - a JSON-ready payload of any shape
        return self.summary if form == "summary" and self.summary is not None else self.full

    def size_bound(self, form: str) -> int:
        """An upper bound of the form's tokens: a token is never shorter than one UTF-8 byte."""
        size = self._sizes.get(form)
        if size is None:
            size = len(to_json(self.payload(form)).encode("utf-8")) + 1
            self._sizes[form] = size
        return size

    def tokens(self, form: str, counter) -> int:
        """Tokens of the form as rendered, plus one for the separator around it."""
        if counter.upper_bound:  # a bound is not the count: never cached as one
            return self.size_bound(form)
        count = self._tokens.get(form)
        if count is None:
            count = counter.count(to_json(self.payload(form))) + 1
            self._tokens[form] = count
        return count

    def ensure_masked(self, form: str) -> None:
        """Mask the form's payload once (cached): the last guard before anything is sent."""
        if form in self._checked:
            return
        payload = self.payload(form)
        clean = masked_value(payload)
        if clean != payload:
            if form == "summary" and self.summary is not None:
                self.summary = clean
            else:
                self.full = clean
            self._sizes.clear()
            self._tokens.clear()
            self._checked.clear()
        self._checked.add(form)


class CandidatePool:
    """Candidates by key plus their BM25 index; adding a key twice replaces its payload only."""

    def __init__(self) -> None:
        self.index = Bm25Index()
        self._by_key: dict[str, Candidate] = {}
        self.pattern_counts: Counter[str] = Counter()  # how often each repeat pattern occurs

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, key: str) -> bool:
        return key in self._by_key

    def get(self, key: str) -> Candidate | None:
        return self._by_key.get(key)

    def add(self, candidate: Candidate) -> Candidate:
        known = self._by_key.get(candidate.key)
        if known is not None and known.full == candidate.full:
            return known
        # A new or changed item gets a new document (the old one is simply never looked up).
        candidate.doc = self.index.add(terms_of(candidate.text or to_json(candidate.full)))
        if known is not None and known.pattern is not None:
            self.pattern_counts[known.pattern] -= 1
        if candidate.pattern is not None:
            self.pattern_counts[candidate.pattern] += 1
        self._by_key[candidate.key] = candidate
        return candidate

    def candidates(self) -> list[Candidate]:
        return list(self._by_key.values())

    def retain(self, keys: set[str]) -> None:
        """Forget candidates that no longer exist (e.g. after a re-plan) and re-index the rest."""
        gone = [key for key in self._by_key if key not in keys]
        if not gone:
            return
        for key in gone:
            del self._by_key[key]
        self.pattern_counts = Counter(c.pattern for c in self._by_key.values() if c.pattern is not None)
        self.index = Bm25Index()
        for candidate in self._by_key.values():
            candidate.doc = self.index.add(terms_of(candidate.text or to_json(candidate.full)))
