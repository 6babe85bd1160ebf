"""The zsh hook, typed into a real zsh through a pseudo-terminal."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import need
from .fake_daemon import read_spool
from .harness import REPO, Daemon, Shell, executions

pytestmark = pytest.mark.usefixtures("zsh_installed")


@pytest.fixture
def zsh_installed():
    need("zsh")


def test_records_commands_as_typed(sandbox, daemon):
    (sandbox.work / "sub").mkdir()
    sh = Shell("zsh", sandbox)
    sh.run("echo hello")
    sh.run("false | true")
    sh.run("sleep 0.3")
    sh.run("cd sub")
    sh.run('for i in 1 2\ndo echo "n$i"\ndone')
    assert "line one" in sh.run("cat <<EOF\nline one\nEOF")
    sh.run(" echo private-by-space")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=6)
    assert [e.command for e in found] == [
        "echo hello",
        "false | true",
        "sleep 0.3",
        "cd sub",
        'for i in 1 2\ndo echo "n$i"\ndone',
        "cat <<EOF\nline one\nEOF",
    ]
    by = {e.command: e for e in found}
    assert by["false | true"].pipeline_statuses == [1, 0]
    assert 280 <= by["sleep 0.3"].duration_ms < 3000
    assert (by["cd sub"].working_directory, by["cd sub"].cwd_after) == (str(sandbox.work), str(sandbox.work / "sub"))


def test_prompt_goes_to_parsec_ask_and_history_keeps_it(sandbox, daemon):
    target = sandbox.root / "elsewhere"
    target.mkdir()
    sh = Shell("zsh", sandbox, env={"ASK_STUB_CD": str(target)})
    assert "ASKED<how do I find the largest files in this folder>" in sh.run(
        "how do I find the largest files in this folder"
    )
    assert "ask_stub 'how do I find the largest files in this folder'" in sh.run("fc -ln -1")
    assert str(target) in sh.run("pwd")
    sh.exit()


def test_ambiguous_key_and_overrides(sandbox, fake_daemon):
    sh = Shell("zsh", sandbox)
    sh.child.sendline("maybe echo hi")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("a")
    assert "ASKED<maybe echo hi>" in sh.expect_prompt()
    sh.child.sendline("echo maybe it ran")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("\r")
    out = sh.expect_prompt()
    assert "maybe it ran" in out and "ASKED" not in out
    assert "ASKED<list big files>" in sh.run("?list big files")
    out = sh.run("\\echo please run me")
    assert "please run me" in out and "ASKED" not in out
    assert "ASKED<please list files>" in sh.run("please list files")
    sh.exit()
    assert [m["chosen"] for m in fake_daemon.of_type("classify_feedback")] == ["prompt", "command"]


def test_daemon_down_spools_then_replays(sandbox):
    sh = Shell("zsh", sandbox)
    for i in range(3):
        assert f"offline {i}" in sh.run(f"echo offline {i}")
    sh.exit()
    assert [m["command"] for m in read_spool(sandbox.runtime) if m["type"] == "command_finished"] == [
        f"echo offline {i}" for i in range(3)
    ]
    daemon = Daemon(sandbox).start()
    try:
        assert [e.command for e in executions(sandbox, daemon, sandbox.work, want=3)] == [
            f"echo offline {i}" for i in range(3)
        ]
    finally:
        daemon.stop()


def test_strict_options_sourced_twice_and_status_kept(sandbox, daemon):
    hook = sandbox.root / "data" / "parsec" / "hook.zsh"  # the hook file `parsec init` wrote at start-up
    sh = Shell(
        "zsh",
        sandbox,
        before="setopt no_unset pipe_fail err_return",
        after=f"source {hook}; source {hook}; PS1='[%?] T> '",
    )
    sh.child.sendline("false")
    sh.child.expect_exact("[1] T> ")
    out = sh.run("echo $((1+1)) | cat")
    assert "2" in out and "parameter not set" not in out and "parsec" not in out
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2)
    assert [(e.command, e.exit_status) for e in found] == [("false", 1), ("echo $((1+1)) | cat", 0)]


def test_non_interactive_does_nothing(sandbox):
    out = subprocess.run(
        [
            "zsh",
            "-c",
            f"source {REPO / 'shell-hooks' / 'parsec.zsh'}; echo ok; (( $+functions[__parsec_precmd] )) && echo loaded",
        ],
        env=sandbox.env,
        capture_output=True,
        text=True,
    )
    assert (out.stdout, out.stderr) == ("ok\n", "")
