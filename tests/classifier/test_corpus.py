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


def test_word_odds_are_what_the_tuning_part_trains(tmp_path) -> None:
    """parsec/routing/word_odds.py is generated from eval_tuning.jsonl alone (never the frozen part)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("train_word_odds", CORPUS.parent / "train_word_odds.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_word_odds"] = module
    spec.loader.exec_module(module)
    out = tmp_path / "word_odds.py"
    module.main(out)
    shipped = Path(__file__).resolve().parent.parent.parent / "parsec" / "routing" / "word_odds.py"
    assert out.read_text() == shipped.read_text()
    assert "eval_frozen" not in (CORPUS.parent / "train_word_odds.py").read_text()


def eval_rows(part: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS.parent / part).read_text().splitlines()]


def test_evaluation_parts_come_from_different_sources() -> None:
    tuning, frozen = eval_rows("eval_tuning.jsonl"), eval_rows("eval_frozen.jsonl")
    kinds = lambda rows: {row["source"].split(":")[0] for row in rows}  # noqa: E731
    assert kinds(tuning) == {"fish", "man", "written"} and kinds(frozen) == {"zsh", "doc", "written"}
    assert not {row["text"] for row in tuning} & {row["text"] for row in frozen}
    for rows in (tuning, frozen):
        labels = Counter(row["label"] for row in rows)
        assert min(labels.values()) >= 1000


def test_commands_are_not_sent_to_the_model_on_either_part() -> None:
    """The issue's target on commands (<= 0.3 %), held on both parts of the evaluation corpus."""
    classifier = Classifier()
    for part in ("eval_tuning.jsonl", "eval_frozen.jsonl"):
        commands = [row["text"] for row in eval_rows(part) if row["label"] == "command"]
        sent = sum(classifier.classify(text).decision == "prompt" for text in commands)
        assert sent / len(commands) <= 0.003, part
