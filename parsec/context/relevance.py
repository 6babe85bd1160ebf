"""Relevance (BM25 over item text), recency and importance, combined into one score per item.

The index is incremental: the engine keeps one per conversation and adds items as history
grows, so scoring a step only walks the postings of the step's own words.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ..models.context import ImportanceLevel

# Weights of the combined score; importance is the rank (0..3) scaled to 0..1.
RELEVANCE_WEIGHT = 0.45
RECENCY_WEIGHT = 0.35
IMPORTANCE_WEIGHT = 0.20

_WORD = re.compile(r"[a-z0-9_]{2,}")
_STOPWORDS = frozenset(
    "the and for with that this from into then than are was were will can its it is be to of in on "
    "an as at by or if do does did not no yes all any new use using make sure add set get run".split()
)

BM25_K1 = 1.2
BM25_B = 0.75


def terms_of(text: str) -> list[str]:
    """Lower-case words of two or more characters, without stop words; paths split on / and ."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOPWORDS]


class Bm25Index:
    """Okapi BM25 over documents numbered 0..n-1 in the order they were added."""

    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, int]]] = {}  # term -> [(doc, term frequency)]
        self._lengths: list[int] = []
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, terms: list[str]) -> int:
        doc = len(self._lengths)
        for term, freq in Counter(terms).items():
            self._postings.setdefault(term, []).append((doc, freq))
        self._lengths.append(len(terms))
        self._total_length += len(terms)
        return doc

    def scores(self, query_terms: list[str]) -> dict[int, float]:
        """Raw BM25 score of every document that shares a word with the query."""
        count = len(self._lengths)
        if not count:
            return {}
        average = self._total_length / count or 1.0
        lengths = self._lengths
        out: dict[int, float] = {}
        for term in set(query_terms):
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = math.log(1.0 + (count - len(postings) + 0.5) / (len(postings) + 0.5))
            for doc, freq in postings:
                norm = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths[doc] / average)
                out[doc] = out.get(doc, 0.0) + idf * freq * (BM25_K1 + 1.0) / (freq + norm)
        return out


def normalised(raw: dict[int, float]) -> dict[int, float]:
    """Scale raw BM25 scores into 0..1 (the best match is 1)."""
    if not raw:
        return {}
    top = max(raw.values())
    if top <= 0:
        return {}
    return {doc: value / top for doc, value in raw.items()}


def recency_weight(age: int, decay: float) -> float:
    """1.0 for the newest item, multiplied by `decay` for every step (or entry) older."""
    return decay ** max(age, 0)


# Importance as a 0..1 share of the combined score (a dict: ImportanceLevel.rank is slow in a loop).
IMPORTANCE_SHARE = {level: IMPORTANCE_WEIGHT * level.rank / 3.0 for level in ImportanceLevel}


def combined_score(relevance: float, recency: float, importance: ImportanceLevel) -> float:
    return RELEVANCE_WEIGHT * relevance + RECENCY_WEIGHT * recency + IMPORTANCE_SHARE[importance]
