"""Defect 10: a command run in a directory whose name is not valid UTF-8 is recorded (the stray
bytes become U+FFFD in the store), in every shell."""

from __future__ import annotations

import os

import pytest

from .conftest import need
from .harness import Shell, executions


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_command_in_a_non_utf8_directory_is_recorded(sandbox, daemon, shell):
    need(shell)
    os.mkdir(os.fsencode(str(sandbox.work)) + b"/caf\xe9")
    sh = Shell(shell, sandbox)
    sh.run("cd caf*")
    sh.run("echo inside")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2, timeout=30)
    by = {e.command: e for e in found}
    assert by["echo inside"].working_directory == str(sandbox.work) + "/caf\ufffd"
