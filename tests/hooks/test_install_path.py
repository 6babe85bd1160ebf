"""`parsec init SHELL --install` (what install.sh runs) leaves `parsec` on PATH in login and
non-login shells of all three, and running it again keeps its block in place with its PATH line
(issue 28 item 5: installed from a shell that already had ~/.local/bin on PATH, the block had no
PATH line, so zsh and fish login shells had no `parsec`; an upgrade dropped the line and moved the
block after atuin's, handing Ctrl-R over)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pexpect
import pytest

from .conftest import need
from .harness import Sandbox

LOGIN = {"bash": ["-l", "-i"], "zsh": ["-l", "-i"], "fish": ["-l", "-i"]}
NON_LOGIN = {"bash": ["-i"], "zsh": ["-i"], "fish": ["-i"]}
LATER_TOOL = "# atuin's lines, added after Parsec's: they bind Ctrl-R last"


def rc_of(sandbox: Sandbox, kind: str):
    home = sandbox.root / "home"
    return {"bash": home / ".bashrc", "zsh": home / ".zshrc", "fish": sandbox.root / "config" / "fish" / "config.fish"}[
        kind
    ]


def install(sandbox: Sandbox, command, kind: str, path: str) -> None:
    done = subprocess.run(
        [str(command), "init", kind, "--install"],
        env=dict(sandbox.env, PATH=path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done


def which_parsec(sandbox: Sandbox, kind: str, flags: list[str]) -> str:
    """What `command -v parsec` says in a new shell started with a bare PATH."""
    env = dict(sandbox.env, PATH="/usr/bin:/bin")
    env.pop("ZDOTDIR", None)
    child = pexpect.spawn(
        shutil.which(kind) or kind, flags, env=env, cwd=str(sandbox.work), encoding="utf-8", timeout=60
    )
    child.sendline('command -v parsec; echo END""MARK')
    child.expect_exact("ENDMARK")
    out = child.before
    child.sendline("exit")
    child.expect(pexpect.EOF)
    child.close()
    return out


@pytest.mark.parametrize("kind", ["bash", "zsh", "fish"])
def test_parsec_on_path_in_login_and_other_shells_and_an_upgrade_keeps_the_block(sandbox, kind):
    need(kind)
    real = shutil.which("parsec")
    if real is None:
        pytest.skip("the parsec command is not installed")
    bin_dir = sandbox.root / "home" / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    command = bin_dir / "parsec"
    os.symlink(real, command)  # as install.sh links it into the virtualenv
    rc = rc_of(sandbox, kind)
    rc.parent.mkdir(parents=True, exist_ok=True)
    rc.write_text("# the user's own line\n")
    # Installed from a shell whose PATH already has ~/.local/bin (a bash login added it).
    with_bin = f"{bin_dir}:/usr/bin:/bin"
    install(sandbox, command, kind, with_bin)
    rc.write_text(rc.read_text() + LATER_TOOL + "\n")
    install(sandbox, command, kind, with_bin)  # the upgrade: install.sh run again
    text = rc.read_text()
    assert text.count("# >>> parsec >>>") == 1, text
    assert text.index("# >>> parsec >>>") < text.index(LATER_TOOL), text  # the tool still loads last
    assert str(bin_dir) in text, text  # the PATH line is kept
    for flags in (LOGIN[kind], NON_LOGIN[kind]):
        assert str(command) in which_parsec(sandbox, kind, flags), (kind, flags)
