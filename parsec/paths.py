"""Where Parsec keeps its files, following the XDG base directory specification.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "parsec"


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var, "")
    # The spec says relative paths are invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / fallback


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share") / APP


def config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config") / APP


def state_dir() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state") / APP


def cache_dir() -> Path:
    return _xdg("XDG_CACHE_HOME", ".cache") / APP


def runtime_dir() -> Path:
    """Private per-user directory for the socket, lock and pid file.

    `$XDG_RUNTIME_DIR/parsec`, else `$TMPDIR/parsec-<uid>`, else `/tmp/parsec-<uid>` (each
    variable only when it is an absolute path). The one rule the hooks follow too: TEMP and TMP,
    which Python's tempfile also reads, would send the daemon where no hook looks.
    """
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base):
        return Path(base) / APP
    tmp = os.environ.get("TMPDIR", "")
    return Path(tmp if os.path.isabs(tmp) else "/tmp") / f"{APP}-{os.getuid()}"


def default_db_path() -> Path:
    return data_dir() / "parsec.db"


def user_config_file() -> Path:
    return config_dir() / "config.toml"


def project_config_file(cwd: Path | None = None) -> Path:
    return (cwd or Path.cwd()) / ".parsec.toml"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make sure only the owner can enter it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)
    return path
