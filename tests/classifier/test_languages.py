"""Issue 28, item 8: requests in other languages are routed by script, word shape and a small
list of function words per language, not asked about (tests/data/languages, written for this)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsec.routing import Classifier, reads_like_prose

LANGUAGES = Path(__file__).resolve().parent.parent / "data" / "languages"


def lines(name: str) -> list[str]:
    return [line for line in (LANGUAGES / f"{name}.txt").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("language", ["fr", "de", "es", "pt", "it"])
def test_requests_in_latin_script_languages_are_prompts(classifier: Classifier, language: str) -> None:
    """They were asked about 60-76 % of the time (fr, de, es), a Portuguese one in ten run."""
    decisions = [classifier.classify(line, shell="bash").decision for line in lines(language)]
    assert decisions.count("prompt") >= 0.85 * len(decisions), decisions
    assert decisions.count("command") <= 1, decisions


@pytest.mark.parametrize("language", ["zh", "ja", "ru"])
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_requests_in_other_scripts_are_prompts(classifier: Classifier, language: str, shell: str) -> None:
    """A Chinese request has no spaces: it was one unknown "word", a mistyped command."""
    for line in lines(language):
        assert classifier.classify(line, first_word="none", shell=shell).decision == "prompt", line


def test_commands_with_non_english_names_still_run(classifier: Classifier) -> None:
    for line in lines("commands"):
        assert classifier.classify(line, shell="bash").decision == "command", line


@pytest.mark.parametrize("line", ["git checkout der", "rm -rf les", "setxkbmap de", "ip link set lo up"])
def test_one_foreign_function_word_after_a_command_is_a_name(classifier: Classifier, line: str) -> None:
    assert classifier.classify(line).decision == "command"


def test_the_127_offer_covers_a_sentence_without_spaces() -> None:
    assert reads_like_prose("备份数据库")
    assert reads_like_prose("найди")
    assert not reads_like_prose("sl")
