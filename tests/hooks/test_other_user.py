"""Another local user is an attacker: with XDG_RUNTIME_DIR unset, the hooks' fallback directory
`$TMPDIR/parsec-<uid>` can be made by anyone first. A hook must then record nothing there,
follow nothing planted there, and say so once."""

from __future__ import annotations

import os
import shutil

import pytest
from other_user import as_attacker, shared_tmp

from .conftest import need
from .harness import Shell

REFUSAL = "is not a private directory of yours"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_runtime_dir_made_by_another_user_is_refused(sandbox, shell):
    need(shell)
    tmp = shared_tmp()
    try:
        trap = tmp / f"parsec-{os.getuid()}"
        loot = sandbox.root / "victim-dir"  # where a planted `spool` symlink points
        loot.mkdir()
        made = as_attacker(["sh", "-c", f"mkdir -m 777 {trap} && ln -s {loot} {trap}/spool"])
        assert made.returncode == 0, made.stderr
        sandbox.env.pop("XDG_RUNTIME_DIR")
        sandbox.env["TMPDIR"] = str(tmp)
        sh = Shell(shell, sandbox, env={"PARSEC_HOOKS_AUTOSTART_DAEMON": "0"})
        out = sh.run("echo first")
        cd_file = sh.run("echo CD=$PARSEC_CD_FILE").split("CD=")[-1].split()[0]
        # The attacker tries to move the shell through the cd file the hook names.
        as_attacker(["sh", "-c", f"echo {tmp} > {cd_file}"])
        out += sh.run("echo second")
        where = sh.run("pwd")
        out += sh.run("how do I list the biggest files")  # a line that would be classified
        sh.exit()
        assert out.count(REFUSAL) + where.count(REFUSAL) == 1, out
        assert str(sandbox.work) in where and str(tmp) + "\r" not in where
        assert sorted(p.name for p in trap.iterdir()) == sorted(["spool", os.path.basename(cd_file)])
        assert list(loot.iterdir()) == []
        assert all(p.stat().st_uid != os.getuid() for p in trap.iterdir() if not p.is_symlink())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_spool_files_are_private(sandbox, shell):
    need(shell)
    sh = Shell(shell, sandbox)  # no daemon: every record goes to the spool
    sh.run("echo spooled")
    sh.exit()
    spool = sandbox.runtime / "spool"
    files = list(spool.glob("*.jsonl"))
    assert files, "nothing was spooled"
    assert spool.stat().st_mode & 0o777 == 0o700 and sandbox.runtime.stat().st_mode & 0o777 == 0o700
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(0o600)}
