"""Project files need the user's trust (issue 25 item 5): `parsec trust`, `--list`, `--revoke`,
the owner and mode rules (a real second user), a changed file, and the keys no project file sets."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from parsec import trust
from parsec.config import load_config
from parsec.config_merge import USER_ONLY_KEYS

REPO = Path(__file__).resolve().parents[1]
PARSEC = [sys.executable, "-m", "parsec.cli.entry"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    for var in list(os.environ):
        if var.startswith("PARSEC_"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return project


def parsec(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([*PARSEC, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def plant(directory: Path, text: str = "[store]\nbusy_timeout_ms = 222\n") -> Path:
    path = directory / ".parsec.toml"
    path.write_text(text)
    path.chmod(0o644)
    return path


def timeout_ms() -> int:
    return load_config(env={}).settings.store.busy_timeout_ms


def test_an_untrusted_file_is_ignored_with_one_line_saying_how_to_trust_it(home, capsys):
    plant(home)
    assert timeout_ms() == 5000
    assert timeout_ms() == 5000  # loaded twice, said once
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"parsec: ignoring {home}/.parsec.toml: it is not trusted yet: review it, then run `parsec trust {home}`"
    ]


def test_trust_then_a_change_then_revoke(home, capsys):
    path = plant(home)
    trust.trust(path)
    assert timeout_ms() == 222
    path.write_text("[store]\nbusy_timeout_ms = 333\n")  # same size class, new content
    assert timeout_ms() == 5000, "a changed file needs trust again"
    assert "changed since you trusted it" in capsys.readouterr().err
    trust.trust(path)
    assert timeout_ms() == 333
    assert trust.revoke(home) == [str(path)]
    assert timeout_ms() == 5000


def test_the_trust_list_is_private_and_keyed_by_real_path_and_hash(home):
    path = plant(home)
    trust.trust(home / "." / ".parsec.toml")
    list_path = trust.trust_list_path()
    assert stat.S_IMODE(list_path.stat().st_mode) == 0o600
    files = json.loads(list_path.read_text())["files"]
    import hashlib

    assert files == {
        str(path.resolve()): {
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "trusted_at": files[str(path.resolve())]["trusted_at"],
        }
    }
    assert not [p for p in list_path.parent.iterdir() if p.name.endswith(".tmp")], "written atomically, no leftovers"


def test_a_group_or_world_writable_file_is_never_trusted(home, capsys):
    path = plant(home)
    trust.trust(path)
    for mode, who in ((0o664, "group"), (0o646, "others")):
        path.chmod(mode)
        with pytest.raises(trust.NotTrustable, match=f"writable by {who}"):
            trust.trust(path)
        assert timeout_ms() == 5000, "trusted before, yet now others could change it"
    err = capsys.readouterr().err
    assert "writable by group" in err and "chmod go-w" in err


def test_a_trust_list_others_can_write_is_ignored(home, capsys):
    path = plant(home)
    trust.trust(path)
    trust.trust_list_path().chmod(0o622)
    assert timeout_ms() == 5000
    assert "ignoring the trust list" in capsys.readouterr().err


def test_a_file_planted_by_another_user_is_never_trusted(home):
    from other_user import as_attacker, shared_tmp

    shared = shared_tmp()
    try:
        planted = shared / ".parsec.toml"
        made = as_attacker(
            ["sh", "-c", f"printf '[store]\\nbusy_timeout_ms = 666\\n' > {planted} && chmod 644 {planted}"]
        )
        assert made.returncode == 0, made.stderr
        result = parsec("trust", str(shared), cwd=home)
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            f"parsec: not trusted: {planted} is owned by user 'parsec-attacker', not by you: Parsec never trusts another user's file"
        ]
        assert not trust.entries()
        shown = parsec("config", "show", "--json", cwd=shared)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["values"]["store.busy_timeout_ms"]["value"] == 5000
        assert "owned by user 'parsec-attacker'" in shown.stderr
    finally:
        as_attacker(["rm", "-f", str(shared / ".parsec.toml")])
        subprocess.run(["rm", "-rf", str(shared)], check=False)


def test_user_only_keys_are_never_taken_from_a_project_file_even_trusted(home, capsys):
    path = plant(
        home,
        "[llm]\nbase_url = 'http://127.0.0.1:9/v1'\napi_key = 'sk-planted'\nmodel = 'm'\n"
        "[store]\nurl = 'sqlite:////tmp/planted.db'\nbusy_timeout_ms = 7\n"
        "[privacy]\nmask_secrets = false\n[context_management]\nprivacy_mode = false\n"
        "[daemon]\nsocket_dir = '/tmp/planted'\n",
    )
    trust.trust(path)
    loaded = load_config(env={})
    settings = loaded.settings
    assert (settings.llm.base_url, settings.llm.api_key, settings.store.url, settings.daemon.socket_dir) == (
        "",
        "",
        "",
        "",
    )
    assert settings.privacy.mask_secrets is True
    assert (settings.llm.model, settings.store.busy_timeout_ms) == ("m", 7), "the other keys are read"
    err = capsys.readouterr().err
    assert "ignoring llm.base_url, llm.api_key, store.url, privacy.mask_secrets" in err
    shown = parsec("config", "show", cwd=home)
    rows = dict(line.split("\t")[0::2] for line in shown.stdout.splitlines()[2:])
    assert rows["llm.base_url"] == f"default (ignored from {path}: never from a project file)"
    assert rows["privacy.extra_patterns"] == "default (never from a project file)"
    assert rows["store.busy_timeout_ms"] == str(path)
    described = json.loads(parsec("config", "show", "--json", cwd=home).stdout)["values"]
    assert described["llm.base_url"] == {"value": "", "source": "default", "user_only": True, "ignored_from": str(path)}


def test_the_reference_config_marks_every_user_only_key():
    text = (REPO / "config.toml").read_text()
    for key in USER_ONLY_KEYS:
        section, _, name = key.partition(".")
        if name:
            line = next(line for line in text.splitlines() if line.startswith(f"{name} ="))
            assert "# user only" in line, key
        else:
            assert f"[{section}]                                # user only" in text, key


@pytest.mark.parametrize(
    "text, reason",
    [
        ("[store\nurl=", "not valid TOML"),
        ("[nosuch]\na = 1\n", "unknown section"),
        ("[daemon]\nbatch_size = 'x'\n", "batch_size"),
    ],
)
def test_a_trusted_file_that_is_wrong_is_reported_not_fatal(home, capsys, text, reason):
    path = plant(home, text)
    trust.trust(path)
    assert timeout_ms() == 5000
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"parsec: ignoring {path}") and reason in err[0]


def test_the_cli_trusts_lists_and_revokes(home):
    plant(home, "[[context_commands]]\nname = 'x'\ncommand = 'git status'\n[llm]\nbase_url = 'http://x'\n")
    (home / "PARSEC.md").write_text("use ruff\n")
    nothing = parsec("trust", "--list", cwd=home)
    assert nothing.stdout.startswith("no project file is trusted")
    done = parsec("trust", cwd=home)
    assert done.returncode == 0, done.stderr
    assert f"trusted {home}/.parsec.toml" in done.stdout and f"trusted {home}/PARSEC.md" in done.stdout
    assert "runs for every conversation here: 'git status'" in done.stdout
    assert "ignored even so: llm.base_url" in done.stdout
    (home / "PARSEC.md").write_text("use black\n")
    listed = parsec("trust", "--list", cwd=home).stdout.splitlines()
    assert listed[0].split("\t") == ["file", "sha256", "trusted at", "state"]
    states = {row.split("\t")[0]: row.split("\t")[3] for row in listed[1:]}
    assert states == {f"{home}/.parsec.toml": "trusted", f"{home}/PARSEC.md": "changed"}
    revoked = parsec("trust", "--revoke", str(home), cwd=home.parent)
    assert revoked.returncode == 0 and revoked.stdout.count("no longer trusted") == 2
    assert parsec("trust", "--list", cwd=home).stdout.startswith("no project file is trusted")
    empty = home / "empty"
    empty.mkdir()
    missing = parsec("trust", str(empty), cwd=home)
    assert missing.returncode == 2 and "no project file here" in missing.stderr


def test_doctor_says_whether_the_project_files_here_are_read(home):
    path = plant(home)
    untrusted = parsec("doctor", cwd=home)
    assert f"{path} is not trusted yet" in untrusted.stdout and f"parsec trust {home}" in untrusted.stdout
    trust.trust(path)
    assert f"{path}: trusted, read" in parsec("doctor", cwd=home).stdout
    path.chmod(0o666)
    assert "writable by group and others" in parsec("doctor", cwd=home).stdout
