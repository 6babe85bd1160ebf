"""The labelled corpus is what it claims to be, and the classifier meets the issue's targets on it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from parsec.routing import Classifier

CORPUS = Path(__file__).resolve().parent.parent / "data" / "classifier_corpus.jsonl"


def rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines()]


def test_corpus_shape() -> None:
    data = rows()
    labels = Counter(row["label"] for row in data)
    assert len(data) >= 5000 and set(labels) == {"command", "prompt"}
    assert min(labels.values()) >= 2000
    assert sum(row["hard"] for row in data if row["label"] == "prompt") >= 300
    assert sum(row["hard"] for row in data if row["label"] == "command") >= 300
    assert all(row["source"] for row in data)
    assert len({row["text"] for row in data}) == len(data)
    sources = {row["source"].split(":")[0] for row in data}
    assert {"man", "script", "handwritten", "generated"} <= sources


def test_targets_on_the_corpus() -> None:
    classifier = Classifier()
    data = rows()
    decided = [(row, classifier.classify(row["text"]).decision) for row in data]
    commands = [d for row, d in decided if row["label"] == "command"]
    prose = [d for row, d in decided if row["label"] == "prompt"]
    assert commands.count("prompt") / len(commands) <= 0.005
    assert prose.count("command") / len(prose) <= 0.02
    assert sum(d == "ambiguous" for _, d in decided) / len(decided) <= 0.05
    hard = [(row, d) for row, d in decided if row["hard"]]
    assert sum(d == row["label"] for row, d in hard) / len(hard) >= 0.9
