"""The masking corpora, loaded once for tests/privacy and bench/masking.py (see data/SOURCES.md).

- first: gitleaks-derived secrets in command lines (`secrets_corpus.jsonl`);
- second: trufflehog's detector-test secrets, each in its test's input and in contexts without a
  keyword (`trufflehog_corpus.jsonl`, built by scripts/gen_trufflehog_corpus.py). Its `frozen`
  split is never read line by line: only `frozen_totals()` touches it, so masking is not tuned on it;
- look-alikes: text that must come out unchanged (`lookalikes.txt`).
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from functools import lru_cache

DATA = pathlib.Path(__file__).resolve().parent / "data"


@lru_cache(maxsize=1)
def first_corpus() -> tuple[dict, ...]:
    lines = (DATA / "secrets_corpus.jsonl").read_text().splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


@lru_cache(maxsize=1)
def _second_corpus() -> tuple[dict, tuple[dict, ...]]:
    lines = (DATA / "trufflehog_corpus.jsonl").read_text().splitlines()
    header = json.loads(lines[0])["header"]
    return header, tuple(json.loads(line) for line in lines[1:] if line.strip())


def second_header() -> dict:
    return _second_corpus()[0]


def second_tuning() -> tuple[dict, ...]:
    """The split masking may be tuned on: read it line by line, print its misses."""
    return tuple(entry for entry in _second_corpus()[1] if entry["split"] == "tuning")


def frozen_entries() -> tuple[dict, ...]:
    """The frozen split, for an end-to-end bench that reports totals only (bench/shell_masking.py):
    never print, inspect or tune on its lines."""
    return tuple(entry for entry in _second_corpus()[1] if entry["split"] == "frozen")


def frozen_totals(masked: Callable[[dict], str]) -> dict[tuple[str, str], tuple[int, int]]:
    """(context, shape) -> (secrets masked, lines) on the frozen split. Only totals leave this
    function: no line, secret or detector name of the frozen split is returned or printed."""
    totals: dict[tuple[str, str], list[int]] = {}
    for entry in _second_corpus()[1]:
        if entry["split"] != "frozen":
            continue
        cell = totals.setdefault((entry["context"], entry["shape"]), [0, 0])
        cell[0] += entry["secret"] not in masked(entry)
        cell[1] += 1
    return {key: (hit, total) for key, (hit, total) in totals.items()}


@lru_cache(maxsize=1)
def lookalikes() -> tuple[str, ...]:
    lines = (DATA / "lookalikes.txt").read_text().splitlines()
    return tuple(line for line in lines if line.strip() and not line.startswith("#"))
