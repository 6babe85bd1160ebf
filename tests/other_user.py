"""A second local account for the tests that treat another user as an attacker.

Created once with `useradd` (the tests run as root in CI); the tests skip, saying why, when
that is impossible. Commands run as that user through `setpriv` (util-linux). The test run that
found no such user removes it when it ends (tests/conftest.py: `remove_if_created`)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

NAME = "parsec-attacker"


def attacker_ids() -> tuple[int, int]:
    """uid and gid of the second user, created if missing."""
    if os.getuid() != 0:
        pytest.skip("creating a second Unix user needs root (useradd)")
    if shutil.which("useradd") is None or shutil.which("setpriv") is None:
        pytest.skip("useradd and setpriv are needed to act as a second Unix user")
    for _ in range(20):  # another test process may be adding it at the same moment
        try:
            entry = pwd.getpwnam(NAME)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            subprocess.run(
                ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME],
                capture_output=True,
            )
            time.sleep(0.1)
    pytest.skip(f"could not create the user {NAME} with useradd")


def as_attacker(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run `argv` as the second user (no supplementary groups, root's environment minus HOME)."""
    uid, gid = attacker_ids()
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 30)
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *argv], **kwargs)


def shared_tmp() -> Path:
    """A fresh sticky, world-writable directory like /tmp (a test's tmp_path is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="parsec-shared-", dir="/tmp"))
    path.chmod(0o1777)
    return path


def existed() -> bool:
    try:
        pwd.getpwnam(NAME)
    except KeyError:
        return False
    return True


def remove_if_created(existed_before: bool) -> None:
    """At the end of the run that created the user (several test processes share it, so no
    single test can remove it): `userdel`, leaving an account that was there before alone."""
    if not existed_before and existed() and shutil.which("userdel"):
        subprocess.run(["userdel", NAME], capture_output=True)
