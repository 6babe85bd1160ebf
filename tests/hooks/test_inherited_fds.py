"""The commands a hooked shell runs inherit the same file descriptors as in the bare shell: none of
the hook's FIFOs, nor the pipe bash's hook once kept for its naps after the first one-key question.
`lvs` and other programs complain of a leaked descriptor; a long-lived one (an agent started from
the shell) would hold the hook's FIFOs open for its whole life.

The same keys go to a bare and a hooked shell: a recorded command (the hook opens the daemon's
FIFO), an ambiguous line (the one-key question, answered with Enter), a command not found that
reads as prose (the exit-127 offer, declined), then `ls -l /proc/self/fd` lists what a command
gets.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import need
from .harness import Shell

QUESTION_LEGEND = "[a] ask Parsec"
OFFER = "[y/N]"  # the offer's legend: keys count once it shows
LINK = re.compile(r" (\d+) -> (.*?)\r?$", re.M)


def bash_can_set_cloexec() -> bool:
    """bash marks a descriptor close-on-exec only with its loadable `fdflags` (bash-builtins)."""
    dirs = [
        *os.environ.get("BASH_LOADABLES_PATH", "").split(":"),
        "/usr/local/lib/bash",
        "/usr/lib/bash",
        "/usr/lib64/bash",
    ]
    return any(d.startswith("/") and (Path(d) / "fdflags").is_file() for d in dirs)


def descriptors(sh: Shell, sandbox, hooked: bool) -> set[str]:
    sh.run("echo one")
    sh.child.send("touch maybe new file\r")
    if hooked:
        sh.child.expect_exact(QUESTION_LEGEND)
        sh.child.send("\r")
    sh.expect_prompt()
    sh.child.send("kindly list the files\r")
    if hooked:
        sh.child.expect_exact(OFFER)
        sh.child.send("n")
    sh.expect_prompt()
    listing = sh.run("command ls -l /proc/self/fd")
    sh.exit()
    found = set()
    for fd, target in LINK.findall(listing):
        target = target.strip("'")  # (ls quotes a name with brackets)
        target = re.sub(r"^(pipe|socket):\[\d+\]$", r"\1", target)
        target = re.sub(r"^/proc/\d+/", "/proc/PID/", target)  # ls's own open directory
        target = re.sub(r"^/dev/pts/\d+$", "/dev/pts/N", target)  # each shell has its own terminal
        found.add(f"{fd} {target.replace(str(sandbox.root), '@ROOT')}")
    return found


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_commands_inherit_no_descriptor_of_the_hook(sandbox, fake_daemon, shell):
    need(shell)
    bare = descriptors(Shell(shell, sandbox, load_hook=""), sandbox, hooked=False)
    hooked = descriptors(Shell(shell, sandbox), sandbox, hooked=True)
    if shell != "fish":  # (fish's hook spools: it holds no FIFO)
        assert fake_daemon.of_type("command_finished"), "the hook never wrote to the daemon's FIFO"
    extra = hooked - bare
    if shell == "bash" and not bash_can_set_cloexec():
        # Without fdflags bash cannot keep its one held descriptor from the commands: only that.
        extra = {item for item in extra if not item.endswith("/parsec/hooks.fifo")}
    assert (extra, bare - hooked) == (set(), set()), f"bare {sorted(bare)} hooked {sorted(hooked)}"


def test_a_fdflags_the_user_loaded_stays_loaded(sandbox, fake_daemon):
    """The bash hook loads `fdflags` for a moment and unloads it; one the user's rc loaded is
    theirs: still a builtin after the hook has used it, as in the bare shell."""
    need("bash")
    if not bash_can_set_cloexec():
        pytest.skip("no loadable fdflags here (Debian: bash-builtins)")
    found = next(
        str(Path(d) / "fdflags")
        for d in ["/usr/local/lib/bash", "/usr/lib/bash", "/usr/lib64/bash"]
        if (Path(d) / "fdflags").is_file()
    )
    answers = {}
    for hooked in (False, True):
        sh = Shell("bash", sandbox, before=f"enable -f {found} fdflags", load_hook=None if hooked else "")
        sh.run("echo one")  # the hook opens the daemon's FIFO and marks it close-on-exec
        answers[hooked] = sh.run("type -t fdflags").strip().splitlines()[-1]
        sh.exit()
    assert fake_daemon.of_type("command_finished"), "the hook never wrote to the daemon's FIFO"
    assert answers == {False: "builtin", True: "builtin"}
