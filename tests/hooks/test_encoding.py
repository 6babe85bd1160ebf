"""Defect 10: a command run in a directory whose name is not valid UTF-8 is recorded (the stray
bytes become U+FFFD in the store), in every shell."""

from __future__ import annotations

import os
import subprocess

import pytest

from .conftest import need
from .harness import REPO, Shell, executions


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


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_json_escaping_keeps_every_character(shell):
    """The hook's JSON encoder, fast path (nothing to escape) and slow path, against Python's
    decoder: control characters, quotes, backslashes, newlines and non-ASCII text come back exactly."""
    import json

    need(shell)
    texts = [
        "plain",
        "/work/dir with spaces",
        'say "hi" \\ there',
        "tab\there\r\nnext line",
        "bell\x07esc\x1b[0mdel\x7f",
        "naïve ☃ 😀",
        "a\\",
        '"',
        "x\x01",
    ]
    hook = REPO / "shell-hooks" / f"parsec.{shell}"
    script = f'eval "$(sed -n "/^__parsec_json() {{/,/^}}/p" {hook})"\n'
    script += 'for t in "$@"; do __parsec_json "$t"; printf \'%s\\n\' "$REPLY"; done\n'
    out = subprocess.run([shell, "-c", script, "json-test", *texts], capture_output=True, text=True, check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == texts
