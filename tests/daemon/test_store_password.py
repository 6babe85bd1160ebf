"""The store's PostgreSQL password is never shown: not by `parsec config show`, not in the store
writer's argv (tests/hooks/test_no_secret_in_argv.py), and doctor warns when the config file
holding it is readable by others."""

from __future__ import annotations

import json

PASSWORD = "Pg-s3cret-" + "77e0aa"


def write_config(sandbox, pg_url: str, mode: int) -> None:
    config = sandbox.root / "config" / "parsec" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[store]\nurl = "{pg_url.replace("://postgres@", f"://postgres:{PASSWORD}@", 1)}"\n')
    config.chmod(mode)


def test_config_show_masks_the_store_password(sandbox, pg_url):
    write_config(sandbox, pg_url, 0o600)
    shown = sandbox.cli("config", "show")
    as_json = sandbox.cli("config", "show", "--json")
    assert shown.returncode == 0 and as_json.returncode == 0, shown.stderr
    assert PASSWORD not in shown.stdout + as_json.stdout
    assert json.loads(as_json.stdout)["values"]["store.url"]["value"].startswith("postgresql+psycopg://postgres:***@")


def test_doctor_warns_about_a_readable_config_holding_the_store_password(sandbox, pg_url):
    write_config(sandbox, pg_url, 0o644)
    doctor = sandbox.cli("doctor")
    line = next(line for line in doctor.stdout.splitlines() if "store password" in line)
    assert "readable by others" in line and PASSWORD not in doctor.stdout + doctor.stderr, doctor.stdout
    write_config(sandbox, pg_url, 0o600)
    line = next(line for line in sandbox.cli("doctor").stdout.splitlines() if "store password" in line)
    assert line.startswith("[ok") and "is private" in line
