"""The fish hook, typed into a real fish through a pseudo-terminal."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import need
from .harness import REPO, Shell, executions

pytestmark = pytest.mark.usefixtures("fish_installed")


@pytest.fixture
def fish_installed():
    need("fish")


def test_records_commands_through_the_spool(sandbox, daemon):
    (sandbox.work / "sub").mkdir()
    sh = Shell("fish", sandbox)
    sh.run("echo hello")
    sh.run("false | true")
    sh.run("sleep 0.3")
    sh.run("cd sub")
    sh.run("for i in 1 2\necho n$i\nend")
    sh.run(" echo private-by-space")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=6, timeout=12)  # the daemon reads spools every 2 s
    # fish knows the start of a line to the second only: order within a second is not kept
    assert sorted(e.command for e in found) == sorted(
        ["echo hello", "false | true", "sleep 0.3", "cd sub", "for i in 1 2\necho n$i\nend", "exit"]
    )
    by = {e.command: e for e in found}
    assert by["false | true"].pipeline_statuses == [1, 0]
    assert 280 <= by["sleep 0.3"].duration_ms < 3000
    assert (by["cd sub"].working_directory, by["cd sub"].cwd_after) == (str(sandbox.work), str(sandbox.work / "sub"))


def test_prompt_goes_to_parsec_ask(sandbox, daemon):
    target = sandbox.root / "elsewhere"
    target.mkdir()
    sh = Shell("fish", sandbox, env={"ASK_STUB_CD": str(target)})
    assert "ASKED<how do I find the largest files in this folder>" in sh.run(
        "how do I find the largest files in this folder"
    )
    assert "ask_stub 'how do I find the largest files in this folder'" in sh.run("history search --max 1 ask_stub")
    assert str(target) in sh.run("pwd")
    sh.exit()


def test_ambiguous_key_and_overrides(sandbox, fake_daemon):
    sh = Shell("fish", sandbox)
    sh.child.sendline("maybe echo hi")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("a")
    assert "ASKED<maybe echo hi>" in sh.expect_prompt()
    assert "ASKED<list big files>" in sh.run("?list big files")
    out = sh.run("command echo please run me")
    assert "please run me" in out and "ASKED" not in out
    assert "ASKED<please list files>" in sh.run("please list files")
    sh.exit()


def test_disabled_and_non_interactive_do_nothing(sandbox):
    hook = REPO / "shell-hooks" / "parsec.fish"
    out = subprocess.run(
        ["fish", "-c", f"source {hook}; echo ok; functions -q __parsec_enter; and echo loaded"],
        env=sandbox.env,
        capture_output=True,
        text=True,
    )
    assert (out.stdout, out.stderr) == ("ok\n", "")
    sh = Shell("fish", sandbox, env={"PARSEC_DISABLE": "1"})
    assert "not loaded" in sh.run("functions -q __parsec_enter; or echo not loaded")
    sh.exit()


def test_json_escaping_keeps_every_character():
    """fish has no JSON encoder: the hook's own must round-trip control characters, quotes,
    backslashes, newlines and non-ASCII text exactly, as the other shells' do."""
    import json

    texts = ["plain", 'say "hi" \\ there', "tab\there\r\nnext line", "bell\x07esc\x1b[0mdel\x7f", "naïve ☃ 😀"]
    hook = REPO / "shell-hooks" / "parsec.fish"
    script = f'sed -n "/^function __parsec_json/,/^end/p" {hook} | source\n'
    script += "".join("__parsec_json (printf '%s' " + _fish_quote(t) + " | string collect); echo\n" for t in texts)
    out = subprocess.run(["fish", "-c", script], capture_output=True, text=True, check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == texts


def _fish_quote(text: str) -> str:
    """`text` as a fish single-quoted string (only \\ and ' are special there)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_the_classify_request_says_whether_the_line_parses(sandbox, fake_daemon):
    sh = Shell("fish", sandbox)
    sh.run("echo hello there friend")
    sh.child.sendline("echo unbalanced )")
    sh.child.expect("Unexpected")  # fish reports the error and keeps the line for editing
    sh.child.sendcontrol("u")
    sh.run("echo next")
    sh.exit()
    parses = {m["text"]: m["parses"] for m in fake_daemon.of_type("classify")}
    # A syntax error is asked about too (it may be prose), told it does not parse; the stand-in
    # says "command", so fish reports its error as without Parsec.
    assert parses == {"echo hello there friend": True, "echo unbalanced )": False, "echo next": True}


def test_fish_assignments_run_without_a_question(sandbox, daemon):
    """`set x 1` is how fish assigns: the real daemon must not treat it as bash's `set` (which
    would overwrite $1 and reads as prose) and ask about it."""
    sh = Shell("fish", sandbox)
    out = sh.run("set parsec_x 41")
    assert "ask Parsec" not in out
    assert "got-41" in sh.run("echo got-$parsec_x")
    sh.exit()
