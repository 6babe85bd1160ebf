"""Learning from corrections, with the real SQLite store and with a store that fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsec.routing import Classifier
from parsec.store import open_store


@pytest.fixture()
def store(tmp_path: Path):
    opened = open_store(f"sqlite:///{tmp_path / 'parsec.db'}")
    yield opened
    opened.close()


def test_a_correction_is_followed_for_lines_of_the_same_shape(store) -> None:
    classifier = Classifier(store=store)
    assert classifier.classify("deploy staging now").decision != "command"
    classifier.learn("deploy staging now", "none", "command")
    again = classifier.classify("deploy staging now")
    assert again.decision == "command" and "you chose command" in again.reason
    # numbers, paths and quoted text are placeholders in a shape: the choice covers other values
    classifier.learn("kill screen session 23536", None, "prompt")
    assert classifier.classify("kill screen session 4242").decision == "prompt"
    # a different shape is not affected
    assert classifier.classify("deploy the app to production please").decision == "prompt"


def test_one_answer_does_not_spread_to_other_words(store) -> None:
    """Issue 16: one "ask" on `watch the logs` turned `watch the build` into a prompt."""
    classifier = Classifier(store=store)
    before = classifier.classify("watch the build").decision
    classifier.learn("watch the logs", "file", "command")
    assert classifier.classify("watch the logs", "file").decision == "command"
    assert classifier.classify("watch the build", "file").decision == before


def test_learned_shapes_read_like_the_line() -> None:
    classifier = Classifier()
    assert classifier.shape("watch the logs") == "watch the logs"
    assert classifier.shape("kill screen session 23536") == "kill screen session <number>"
    assert classifier.shape('git commit -m "fix the parser" --amend') == "git commit -m <quoted> …"
    assert classifier.shape("cp ~/notes.txt 'my secret token' /tmp") == "cp <path> <quoted> <path>"
    assert classifier.shape("ls -la | wc -l") == "ls -la wc -l | …"


def test_learned_choices_persist_in_the_store_and_can_be_forgotten_one_by_one(store) -> None:
    first = Classifier(store=store)
    first.learn("make the tests pass", None, "command")
    first.learn("watch the logs", None, "prompt")
    fresh = Classifier(store=store)  # e.g. the daemon after a restart
    assert fresh.classify("make the tests pass").decision == "command"
    assert fresh.learned() == {"make the tests pass": "command", "watch the logs": "prompt"}
    assert fresh.forget("make the tests pass") == 1  # forgets that shape, not the other
    assert list(store.get_preferences("classifier")) == ["watch the logs"]
    assert fresh.classify("make the tests pass").decision == "prompt"
    assert fresh.classify("watch the logs").decision == "prompt"
    assert fresh.forget("make the tests pass") == 0
    assert fresh.forget() == 1
    assert store.get_preferences("classifier") == {}


def test_coarse_shapes_from_earlier_versions_are_ignored(store) -> None:
    store.set_preference("classifier", "the|w|1", {"choice": "prompt", "example": "watch the logs"})
    assert Classifier(store=store).learned() == {}


def test_reload_picks_up_a_forget_from_another_process(store) -> None:
    daemon = Classifier(store=store)
    daemon.learn("ship it", None, "prompt")
    assert daemon.classify("ship them").decision == "prompt"
    Classifier(store=store).forget()  # `parsec classify --forget`
    daemon.reload()
    assert daemon.learned() == {}


def test_an_answer_given_once_before_a_forget_elsewhere_does_not_count(store) -> None:
    """`parsec classify --forget` runs in another process and makes the daemon reload: a single
    answer the daemon held from before must not settle the shape with the next one."""
    daemon = Classifier(store=store)
    assert daemon.answered("watch the logs", "file", "command") is False
    Classifier(store=store).forget()  # `parsec classify --forget`
    daemon.reload()
    assert daemon.answered("watch the logs", "file", "command") is False
    assert daemon.learned() == {}


def test_learning_without_a_store_lasts_for_the_instance() -> None:
    classifier = Classifier()
    classifier.learn("rm the old logs", None, "command")
    assert classifier.classify("rm the old logs").decision == "command"
    assert Classifier().classify("rm the old logs").decision == "prompt"


def test_learning_can_be_switched_off(store) -> None:
    from parsec.config import Settings

    classifier = Classifier(
        store=store, settings=Settings.model_validate({"classifier": {"learn_from_corrections": False}})
    )
    classifier.learn("make the tests pass", None, "command")
    assert classifier.classify("make the tests pass").decision == "prompt"
    assert store.get_preferences("classifier") == {}


def test_bad_choices_are_refused() -> None:
    with pytest.raises(ValueError):
        Classifier().learn("ls", None, "ambiguous")


class BrokenStore:
    def get_preferences(self, namespace: str) -> dict:
        raise OSError("database is locked")

    def set_preference(self, namespace: str, key: str, value: dict) -> None:
        raise OSError("disk full")

    def delete_preferences(self, namespace: str, key: str | None = None) -> int:
        raise OSError("disk full")


def test_a_broken_store_never_breaks_classification() -> None:
    classifier = Classifier(store=BrokenStore())
    assert classifier.classify("ls -la").decision == "command"
    assert classifier.classify("find all python files").decision == "prompt"
    assert classifier.learn("find all python files", None, "command") is False  # not stored...
    assert classifier.classify("find all python files").decision == "command"  # ...but followed


def test_shapes_never_keep_option_values() -> None:
    classifier = Classifier()
    assert classifier.shape("mysql -pHunter2secret -u root db") == "mysql <flag> -u root …"
    assert classifier.shape("deploy --token=abc123 --force now") == "deploy --token=<value> --force now"


def test_a_token_in_a_learned_line_is_stored_masked(store) -> None:
    """Issue 13: a `ghp_…` token typed into an ambiguous line was left in `preferences` in clear."""
    token = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"
    classifier = Classifier(store=store)
    classifier.learn(f"{token} is my token please keep it", None, "prompt")
    classifier.learn(f"{token}", None, "command")
    stored = repr(store.get_preferences("classifier"))
    assert token not in stored and "[REDACTED:github_token]" in stored
    assert Classifier(store=store).classify(f"{token}").decision == "command"  # still followed


def test_an_answer_from_the_hook_is_learned_only_when_given_twice(store) -> None:
    """Issue 28: one stray `a` typed ahead made a whole shape prose. The hook's answers
    (`classify_feedback`) settle a shape only when the same answer comes twice in a row."""
    classifier = Classifier(store=store)
    before = classifier.classify("touch new file", "file").decision
    assert before != "prompt"
    assert classifier.answered("touch new file", "file", "prompt") is False
    assert classifier.classify("touch new file", "file").decision == before
    assert store.get_preferences("classifier") == {}  # nothing stored after one answer
    # a different answer starts over
    assert classifier.answered("touch new file", "file", "command") is False
    assert classifier.answered("touch new file", "file", "prompt") is False
    assert classifier.classify("touch new file", "file").decision == before
    # the same answer twice in a row, for the same shape (`touch <path> new file`: another path)
    assert classifier.answered("touch ~/a new file", "file", "prompt") is False
    assert classifier.answered("touch ~/b new file", "file", "prompt") is True
    assert classifier.classify("touch ~/c new file", "file").decision == "prompt"
    assert list(store.get_preferences("classifier")) == ["touch <path> new file"]
    assert classifier.classify("touch new file", "file").decision == before  # another shape
    # forgetting drops a half-given answer too
    classifier.answered("watch the logs", "file", "command")
    classifier.forget()
    assert classifier.answered("watch the logs", "file", "command") is False
    assert classifier.learned() == {}
