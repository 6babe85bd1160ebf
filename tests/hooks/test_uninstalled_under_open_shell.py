"""Parsec uninstalled while terminals are open (README: `parsec init SHELL --uninstall`, then the
command removed): an open shell goes quiet (issue 28 item 7: Ctrl-R failed with an error and
every command went on being spooled). Its next prompt finds the hook file gone: nothing is
recorded or spooled, nothing is printed, and Ctrl-R is the shell's own search again."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from .conftest import need
from .harness import Shell

SHELLS_OWN_SEARCH = {"bash": "(reverse-i-search)", "zsh": "bck-i-search", "fish": "search:"}


def spooled(sandbox) -> int:
    spool = sandbox.runtime / "spool"
    if not spool.exists():
        return 0
    return sum(path.read_bytes().count(b'"command_finished"') for path in spool.glob("*.jsonl*"))


@pytest.mark.parametrize("kind", ["bash", "zsh", "fish"])
def test_an_open_shell_goes_quiet_after_uninstall(sandbox, kind):
    need(kind)
    wrapper = sandbox.root / "bin" / "parsec-installed"  # stands for ~/.local/bin/parsec
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m parsec.cli.entry "$@"\n')
    wrapper.chmod(0o755)
    sh = Shell(kind, sandbox, env={"PARSEC_BIN": str(wrapper)})
    sh.run("echo before-uninstall")  # no daemon: the record goes to the spool
    deadline = time.monotonic() + 30
    while spooled(sandbox) < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    before = spooled(sandbox)
    assert before >= 1
    hook_file = sandbox.root / "data" / "parsec" / f"hook.{kind}"
    assert hook_file.exists()
    # Uninstalled from another terminal, as the README says: the hook file, then the command.
    done = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "init", kind, "--uninstall"],
        env=sandbox.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not hook_file.exists(), done
    wrapper.unlink()
    out = sh.run("echo after-uninstall")
    out += sh.run("echo again")
    assert "after-uninstall" in out and "parsec" not in out.lower(), out
    assert spooled(sandbox) == before  # nothing more spooled
    sh.child.send("\x12")  # Ctrl-R: the shell's own search, no error
    sh.child.expect_exact(SHELLS_OWN_SEARCH[kind])
    assert "not found" not in sh.child.before and "No such file" not in sh.child.before, sh.child.before
    if kind == "fish":  # its pager stays open: no key sent after Escape is sure to be read alone
        sh.child.close(force=True)
        assert spooled(sandbox) == before
        return
    sh.child.send("\x07")  # Ctrl-G leaves the search
    out = sh.run("echo still-here")
    assert "still-here" in out and "not found" not in out, out
    assert spooled(sandbox) == before
    sh.exit()


# A tool loaded after Parsec that binds Ctrl-R (atuin, fzf): its key, not Parsec's.
LATER_TOOL = {
    "bash": "later_tool() { READLINE_LINE='echo LATER''TOOL'; READLINE_POINT=${#READLINE_LINE}; }\n"
    "bind -x '\"\\C-r\": later_tool'",
    "zsh": "later_tool() { BUFFER='echo LATER''TOOL'; CURSOR=$#BUFFER; }\nzle -N later_tool\n"
    "bindkey -M emacs '^R' later_tool\nbindkey -M viins '^R' later_tool",
    "fish": "function later_tool; commandline -r 'echo LATER''TOOL'; end\n"
    "bind \\cr later_tool; bind -M insert \\cr later_tool",
}


@pytest.mark.parametrize("kind", ["bash", "zsh", "fish"])
def test_a_tool_that_took_ctrl_r_after_parsec_keeps_it_after_uninstall(sandbox, kind):
    """Going quiet gives back only the keys that are still Parsec's: Ctrl-R bound by a tool loaded
    after it stays that tool's (it was reset to the shell's own search, or erased in fish)."""
    need(kind)
    sh = Shell(kind, sandbox, after=LATER_TOOL[kind])
    sh.run("echo before-uninstall")
    done = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "init", kind, "--uninstall"],
        env=sandbox.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done
    sh.run("echo after-uninstall")  # its prompt finds the hook file gone
    sh.child.send("\x12")  # Ctrl-R: the later tool puts its line in
    sh.child.send("\r")
    sh.child.expect_exact("LATERTOOL")
    sh.expect_prompt()
    sh.exit()
