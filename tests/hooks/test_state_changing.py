"""Issue 16: prose whose command changes state is never run without asking. The hooks skip the
daemon for a line that looks plainly like a command (an option, shell syntax); after a command on
the classifier's state-changing list (routing/state_changing.txt, written into the hook by
`parsec init`) they ask even then. The stand-in daemon calls lines with "please" prose."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from parsec.routing.danger import STATE_CHANGING

from .conftest import need
from .harness import Shell


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_state_changing_command_with_an_option_still_asks(sandbox, fake_daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    # `set` with an option: before, bash and zsh ran it (overwriting $1 and turning on xtrace).
    assert "ASKED<set please -x>" in sh.run("set please -x")
    sh.run("touch gone")
    sh.run("rm -f gone")  # asked too, and the stand-in says command: it runs
    assert not (sandbox.work / "gone").exists()
    sh.run("ls -d /")  # not state-changing: plainly a command, never asked
    sh.exit()
    asked = [m["text"] for m in fake_daemon.of_type("classify")]
    assert "set please -x" in asked and "rm -f gone" in asked
    assert "ls -d /" not in asked


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_hook_gets_the_classifiers_list(sandbox, shell):
    body = subprocess.run(["parsec", "init", shell], env=sandbox.env, capture_output=True, text=True, check=True).stdout
    line = next(
        line
        for line in body.splitlines()
        if line.startswith(("__parsec_state_changing=", "set -g __parsec_state_changing "))
    )
    if shell == "fish":  # set -g __parsec_state_changing 'exit' 'logout' ...
        names = line.replace("'", " ").split()[3:]
    else:  # __parsec_state_changing=' exit logout ... '
        names = line.split("=", 1)[1].strip("'").split()
    assert set(names) == STATE_CHANGING and len(names) == len(STATE_CHANGING)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_hook_names_its_shell(sandbox, fake_daemon, shell):
    """A builtin's grammar is its shell's (fish's `set password` empties $password, zsh's
    `disable` takes builtin names), so each hook says which shell is asking."""
    need(shell)
    sh = Shell(shell, sandbox)
    sh.run("set please -x")
    sh.exit()
    asked = [m for m in fake_daemon.of_type("classify") if m["text"] == "set please -x"]
    assert asked and all(m.get("shell") == shell for m in asked)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_prose_quoting_a_command_in_backticks_does_not_run_it(sandbox, daemon, shell):
    """bash and zsh run a command substitution before they look for the command: typed at the
    prompt, `undo `touch MARK`` would create MARK, then say "undo: command not found". With the
    real daemon the hook asks first, and keeping the line for editing runs nothing."""
    need(shell)
    sh = Shell(shell, sandbox)
    sh.child.sendline("undo `touch MARK`")
    sh.child.expect_exact("[a] ask Parsec")
    sh.child.send("e")  # keep the line for editing
    sh.child.send("\x15")  # Ctrl-U clears it
    assert "after" in sh.run("echo after")
    sh.exit()
    assert not (sandbox.work / "MARK").exists()


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_a_line_with_a_substitution_is_never_plainly_a_command(sandbox, daemon, shell):
    """`grep` resolves and the line has an option, so the hook used to run it without asking:
    the shell ran `touch MARK` inside the backticks first. Now the daemon decides (a request)."""
    need(shell)
    sh = Shell(shell, sandbox)
    line = "grep for `touch MARK -c -a` in the scripts"
    assert f"ASKED<{line}>" in sh.run(line)
    assert "fine" in sh.run("echo $(echo fine)")  # a real command with a substitution still runs
    sh.exit()
    assert not (sandbox.work / "MARK").exists()


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_prose_redirecting_to_a_file_does_not_empty_it(sandbox, daemon, shell):
    """`dump the db > NOTES` with no `dump` installed: the shell opens NOTES first
    (emptying it), then reports the command missing. The line goes to Parsec, or the hook asks."""
    need(shell)
    if shutil.which("dump"):
        pytest.skip("this machine has a `dump` program")
    (sandbox.work / "NOTES").write_text("keep me\n")
    sh = Shell(shell, sandbox)
    sh.child.sendline("dump the db > NOTES")
    if sh.child.expect_exact(["[a] ask Parsec", "ASKED<dump the db > NOTES>"]) == 0:
        sh.child.send("e")  # keep the line for editing
        sh.child.send("\x15")  # Ctrl-U clears it
    else:
        sh.expect_prompt()
    assert "after" in sh.run("echo after")
    sh.exit()
    assert (sandbox.work / "NOTES").read_text() == "keep me\n"
