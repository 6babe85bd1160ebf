"""The exit-127 helper: offer a prompt only when a failed line reads like prose."""

from __future__ import annotations

import pytest

from parsec.routing import reads_like_prose


@pytest.mark.parametrize(
    "line",
    [
        "tidy up the readme",
        "summarise the last commit for me",
        "hello",
        "whats the weather like?",
        "Explain why my build is failing",
        "upgrade all the things please",
        # two or more words that are no typo of a command: offered (issue 16)
        "whats using port 8080",
        "list containers",
        "deploy staging now",
        "restrat apache",
        "go ahead",
        "my wifi keeps dropping",
        "create directories a b c d e",
    ],
)
def test_prose_that_failed_as_a_command_is_offered(line: str) -> None:
    assert reads_like_prose(line)


@pytest.mark.parametrize(
    "line",
    ["gti status", "sl", "pyhton3 -m venv .venv", "dokcer ps -a", "npmm install", "kubctl get pods", "instal htop", ""],
)
def test_mistyped_commands_are_not(line: str) -> None:
    assert not reads_like_prose(line)


def test_the_typo_check_names_the_command() -> None:
    from parsec.routing.fallback import likely_typo

    assert likely_typo("gti") == "git"
    assert likely_typo("sl") == "ls"
    assert likely_typo("zqxvw") is None  # two or more edits from every command: no typo
    assert likely_typo("whatsoever") is None  # an English word is no typo just for being long
