"""An upgrade while the daemon runs (issue 27: it went on running the old code, and `version`
said 0.1.0 for both): the daemon reports the code it started with, and `parsec --version`,
`parsec daemon status` and doctor show both and say to restart it when they differ. The
"installed" package is a copy of this checkout; the upgrade is an edit of one of its files."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .harness import REPO, Sandbox

HINT = "the daemon runs older code than this parsec"


@pytest.fixture
def installed(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(REPO / "parsec", site / "parsec", ignore=shutil.ignore_patterns("__pycache__"))
    box = Sandbox()
    box.env["PYTHONPATH"] = str(site)
    yield box, site
    box.close()


def run(box: Sandbox, *args: str) -> subprocess.CompletedProcess:
    # -P: the package from PYTHONPATH (the copy), never a `parsec/` in the working directory
    return subprocess.run(
        [sys.executable, "-P", "-m", "parsec.cli.entry", *args],
        env=box.env,
        cwd=box.root,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_daemon_running_older_code_is_noticed(installed):
    box, site = installed
    started = run(box, "daemon", "start")
    assert started.returncode == 0, started.stderr
    before = run(box, "--version").stdout
    [client_line, daemon_line] = before.splitlines()
    assert client_line.startswith("parsec 0.1.0 (code ") and daemon_line.startswith("daemon 0.1.0 (code ")
    assert client_line.split("(code ")[1] == daemon_line.split("(code ")[1] and HINT not in before

    with (site / "parsec" / "errors.py").open("a") as handle:  # the upgrade: new code, same version
        handle.write("\n# upgraded\n")
    after = run(box, "--version").stdout
    assert HINT in after and "parsec daemon restart" in after, after
    status = run(box, "daemon", "status").stdout
    assert "daemon 0.1.0 (code " in status and "client 0.1.0 (code " in status and HINT in status, status
    doctor = run(box, "doctor").stdout
    assert any(line.startswith("[warn") and HINT in line for line in doctor.splitlines()), doctor

    assert run(box, "daemon", "restart").returncode == 0
    assert HINT not in run(box, "--version").stdout
    run(box, "daemon", "stop")
