"""Issue 28, item 1: prose the shell cannot parse reaches Parsec. A parenthesis made bash reject
the line (`show disk usage (human readable)`: a syntax error) and an apostrophe made every shell
continue it (`what's using port 8080`: PS2), so neither was ever offered to Parsec. Now such a
line goes to the classifier (the real daemon here): a prompt becomes `parsec ask`, anything else
goes to the shell as typed, so a real unfinished quote still continues and a real syntax error is
still the shell's error."""

from __future__ import annotations

import pytest

from .conftest import need
from .harness import Shell

PROSE = [
    "show disk usage (human readable)",
    "what's using port 8080",
    "find the user's home directory",
    "list all file(s) in this directory",
]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_prose_the_shell_cannot_parse_goes_to_parsec(sandbox, daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    outs = {line: sh.run(line) for line in PROSE}
    sh.exit()
    for line, out in outs.items():
        assert f"ASKED<{line}>" in out, (line, out)
        assert "[a] ask Parsec" not in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_real_unfinished_quotes_still_continue(sandbox, daemon, shell):
    """Asked about (`echo 'it's'`, an apostrophe inside a word) or not (`echo 'a`), a command the
    shell would continue continues, and runs once finished."""
    need(shell)
    sh = Shell(shell, sandbox)
    out = sh.run("echo 'it's'\nclosed'")
    assert "its\nclosed" in out.replace("\r", ""), out
    out = sh.run("echo 'one\ntwo'")
    assert "one\ntwo" in out.replace("\r", ""), out
    sh.exit()
    assert "ASKED" not in out


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_a_real_syntax_error_stays_the_shells(sandbox, daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    out = sh.run("echo )")
    sh.exit()
    assert "ASKED" not in out and "[a] ask Parsec" not in out
    assert "error" in out


@pytest.mark.parametrize(("shell", "noclobber"), [("bash", "set -o noclobber"), ("zsh", "setopt noclobber")])
def test_a_real_unfinished_line_costs_no_question_under_noclobber(sandbox, fake_daemon, shell, noclobber):
    """The hook tells a syntax error from an unfinished line by the shell's message, kept in a
    private file it reuses: the user's noclobber must not keep that message out (every unparsable
    line would then pass for an error and cost a round trip)."""
    need(shell)
    sh = Shell(shell, sandbox, after=noclobber)
    assert "ASKED<please show disk usage (human readable)>" in sh.run("please show disk usage (human readable)")
    assert "ASKED<please tell me what's new>" in sh.run("please tell me what's new")
    out = sh.run("echo 'one\ntwo'")
    sh.exit()
    assert "one\ntwo" in out.replace("\r", "")
    asked = [m["text"] for m in fake_daemon.of_type("classify")]
    assert "echo 'one" not in asked, asked
