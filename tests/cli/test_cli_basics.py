import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def parsec(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


@pytest.fixture
def env(tmp_path):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PARSEC_")}
    clean.update(
        XDG_CONFIG_HOME=str(tmp_path / "c"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        XDG_STATE_HOME=str(tmp_path / "s"),
        XDG_RUNTIME_DIR=str(tmp_path / "r"),
    )
    return clean


def test_version():
    from parsec import __version__

    result = parsec("--version")
    assert result.returncode == 0, result.stderr
    client, daemon = result.stdout.splitlines()  # the daemon's own: tests/daemon/test_upgrade.py
    assert client.startswith(f"parsec {__version__} (code ") and daemon.startswith("daemon")


def test_config_show_json_reports_sources(env, tmp_path):
    env["PARSEC_DAEMON_BATCH_SIZE"] = "7"
    result = parsec("--set", "llm.model=m1", "config", "show", "--json", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)["values"]
    assert values["daemon.batch_size"] == {"value": 7, "source": "environment PARSEC_DAEMON_BATCH_SIZE"}
    assert values["llm.model"] == {"value": "m1", "source": "command line"}
    assert values["store.url"] == {"value": "", "source": "default", "user_only": True}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--set", "nodot=1", "config", "show"], "--set expects SECTION.KEY=VALUE"),
        (["--set", "store.nope=1", "config", "show"], "unknown key 'nope'"),
        (["init", "tcsh"], "unknown shell 'tcsh'"),
    ],
)
def test_user_errors_are_one_line(env, tmp_path, args, needle):
    result = parsec(*args, env=env, cwd=tmp_path)
    assert result.returncode != 0
    assert needle in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_debug_shows_the_traceback(env, tmp_path):
    result = parsec("--debug", "--set", "store.nope=1", "config", "show", env=env, cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" in result.stderr


def test_doctor_reports_each_check(env, tmp_path):
    result = parsec("doctor", env=env, cwd=tmp_path)
    assert "[ok  ] config" in result.stdout
    assert "store" in result.stdout and "token counting" in result.stdout
