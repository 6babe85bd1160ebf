"""Project files are read only once the user trusts them, like `direnv allow` and `mise trust`.

A project file (`.parsec.toml`, the project's PARSEC.md) can add commands that run when a
conversation starts and words that go with every model request, and anyone who can write a
directory the user works in (a cloned repository, a shared checkout, /tmp) can plant one. So a
project file is read only after `parsec trust DIR`, which records its real path and the SHA-256 of
its content in the trust list (`$XDG_STATE_HOME/parsec/trusted.json`, 0600, replaced atomically).
A changed file needs trust again. A file owned by another user, or writable by group or others,
is never trusted: whoever else can write it decides what it says. An untrusted file is ignored
with one line on stderr that says why and how to trust it.

Even a trusted `.parsec.toml` never sets the keys that decide where keys, conversations and
history go (config_merge.USER_ONLY_KEYS): `project_config` drops them, for the full loader
(config.py) and the fast readers (`parsec history`, Ctrl-R) alike.

Standard library only: `parsec history` and Ctrl-R read project files through it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import paths
from .config_merge import without_user_only_keys
from .errors import ParsecError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`parsec history`'s start-up)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from collections import namedtuple as _namedtuple

LIST_VERSION = 1
MAX_PROJECT_FILE_BYTES = 1024 * 1024  # a project file is a few lines; a huge one is not read at all


class NotTrustable(ParsecError):
    """A project file Parsec will not trust: another user's, or writable by others."""


if TYPE_CHECKING:

    class Reading(NamedTuple):
        path: Path  # as the caller named it
        key: str  # its real path: the trust list's key
        content: bytes
        digest: str  # SHA-256 of content, hex
        problem: str  # why it is not trusted, with what to do; "" when it is

    class ProjectConfig(NamedTuple):
        path: Path
        data: dict[str, Any]  # the parsed file without the user-only keys
        dropped: list[str]  # the user-only keys it tried to set ("llm.base_url", …)
else:
    Reading = _namedtuple("Reading", ["path", "key", "content", "digest", "problem"])
    ProjectConfig = _namedtuple("ProjectConfig", ["path", "data", "dropped"])


def trust_list_path() -> Path:
    return paths.state_dir() / "trusted.json"


# --- reading a project file ----------------------------------------------------------------------


def read(path: Path) -> Reading | None:
    """The file at `path` and whether it is trusted; None when there is none. The checks and the
    hash apply to the very bytes returned (one open), so the file cannot change in between."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after fstat and read
    except FileNotFoundError:
        return None
    except OSError as err:
        return Reading(path, str(path), b"", "", f"cannot be read: {err.strerror}")
    with handle:
        info = os.fstat(handle.fileno())
        content = handle.read(MAX_PROJECT_FILE_BYTES + 1)
    key = os.path.realpath(path)
    problem = untrustable(path, info)
    if problem is None and len(content) > MAX_PROJECT_FILE_BYTES:
        problem = f"is larger than {MAX_PROJECT_FILE_BYTES // 1024} KB: not read"
    if problem is not None:
        return Reading(path, key, b"", "", problem)
    digest = _sha256_hex(content)
    known = _load().get(key)
    if known is None:
        problem = f"is not trusted yet: review it, then run `{trust_command(path)}`"
    elif known.get("sha256") != digest:
        problem = f"changed since you trusted it: review it, then run `{trust_command(path)}`"
    else:
        problem = ""
    return Reading(path, key, content, digest, problem)


def read_trusted(path: Path) -> bytes | None:
    """The content of a trusted project file; None when there is none or it is not trusted (then
    one line on stderr, once per process, says why and what to do)."""
    reading = read(path)
    if reading is None:
        return None
    if reading.problem:
        warn(f"ignoring {path}: it {reading.problem}")
        return None
    return reading.content


def project_config(cwd: Path | None = None) -> ProjectConfig | None:
    """The project's `.parsec.toml` as a config layer: None when there is none, it is not trusted
    or it is not valid TOML (each reported on stderr); the user-only keys removed (reported too)."""
    path = paths.project_config_file(cwd)
    content = read_trusted(path)
    if content is None:
        return None
    import tomllib

    try:
        data = tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        warn(f"ignoring {path}: not valid TOML: {err}")
        return None
    kept, dropped = without_user_only_keys(data)
    if dropped:
        keys = ", ".join(dropped)
        warn(
            f"{path}: ignoring {keys}: a project file never decides where keys, conversations and history go "
            f"(set them in {paths.user_config_file()})"
        )
    return ProjectConfig(path, kept, dropped)


def untrustable(path: Path, info: os.stat_result) -> str | None:
    """Why a file with this status is never trusted, or None."""
    import stat

    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.getuid():
        return f"is owned by {_user_name(info.st_uid)}, not by you: Parsec never trusts another user's file"
    writers = [who for who, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if info.st_mode & bit]
    if writers:
        return (
            f"is writable by {' and '.join(writers)}: Parsec never trusts a file others can change "
            f"(`chmod go-w {_quote(str(path))}` if that is not meant to be)"
        )
    return None


def trust_command(path: Path) -> str:
    directory = path.parent
    return "parsec trust" if str(directory) in ("", ".") else f"parsec trust {_quote(str(directory))}"


_warned: set[str] = set()


def warn(message: str) -> None:
    """One line on stderr, once per process: a command may load the config more than once."""
    if message not in _warned:
        _warned.add(message)
        sys.stderr.write(f"parsec: {message}\n")
        sys.stderr.flush()


# --- the trust list --------------------------------------------------------------------------------


def trust(path: Path) -> Reading:
    """Record `path`'s current content as trusted. Raises NotTrustable for another user's file or
    one that group or others can write, and ParsecError when it cannot be read."""
    reading = read(path)
    if reading is None:
        raise ParsecError(f"{path}: no such file")
    if not reading.digest:  # not even hashed: the owner or mode rules it out, or it cannot be read
        raise NotTrustable(f"{path} {reading.problem}")
    from datetime import UTC, datetime

    entry = {"sha256": reading.digest, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    with _locked():
        files = _load()
        files[reading.key] = entry
        _save(files)
    return reading._replace(problem="")


def revoke(path: Path) -> list[str]:
    """Forget the trust in `path` (a file), or in every file directly inside it (a directory);
    returns the real paths that were trusted."""
    real = os.path.realpath(path)
    with _locked():
        files = _load()
        gone = [key for key in files if key == real or os.path.dirname(key) == real]
        for key in gone:
            del files[key]
        if gone:
            _save(files)
    return sorted(gone)


def entries() -> list[tuple[str, str, str, str]]:
    """(real path, sha256, trusted at, state) of each trusted file; state is "trusted",
    "changed", "missing" or why it is no longer trustable."""
    out = []
    for key, entry in sorted(_load().items()):
        reading = read(Path(key))
        if reading is None:
            state = "missing"
        elif not reading.digest:
            state = reading.problem
        else:
            state = "trusted" if reading.digest == entry.get("sha256") else "changed"
        out.append((key, str(entry.get("sha256", "")), str(entry.get("trusted_at", "")), state))
    return out


def _load() -> dict[str, dict[str, str]]:
    """The trust list; empty when there is none. One that someone else could have written is
    ignored (with a line on stderr): it would let them trust their own files."""
    list_path = trust_list_path()
    try:
        with open(list_path, "rb") as handle:
            info = os.fstat(handle.fileno())
            raw = handle.read()
    except FileNotFoundError:
        return {}
    except OSError as err:
        warn(f"cannot read the trust list {list_path}: {err.strerror}; no project file is trusted")
        return {}
    problem = untrustable(list_path, info)
    if problem:
        warn(f"ignoring the trust list {list_path}: it {problem}")
        return {}
    import json

    try:
        document = json.loads(raw)
        files = document["files"]
        if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
            raise TypeError("files is not a table of tables")
    except (ValueError, KeyError, TypeError) as err:
        warn(f"ignoring the trust list {list_path}: it is damaged ({err}); trust your project files again")
        return {}
    return files


def _save(files: dict[str, dict[str, str]]) -> None:
    """Write the list to a private temporary file, flush it to disk, then rename it over the old."""
    import json

    list_path = trust_list_path()
    paths.ensure_private_dir(list_path.parent)
    temporary = list_path.with_name(f".{list_path.name}.{os.getpid()}.tmp")
    data = json.dumps({"version": LIST_VERSION, "files": files}, indent=2, sort_keys=True).encode() + b"\n"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, list_path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(list_path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class _locked:
    """Two `parsec trust` at once must not lose one's entry: read-modify-write under a lock."""

    def __enter__(self) -> None:
        import fcntl

        directory = paths.ensure_private_dir(trust_list_path().parent)
        self._fd = os.open(directory / "trusted.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)  # closing releases the lock


def _sha256_hex(data: bytes) -> str:
    """hashlib loads OpenSSL (about 3 ms of `parsec history`'s start-up); CPython's own SHA-256
    module alone does for one small file."""
    import importlib

    for name in ("_sha256", "_sha2", "hashlib"):  # CPython 3.11; 3.12 and later; any other
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return str(module.sha256(data).hexdigest())
    raise ImportError("no SHA-256 implementation")


def _user_name(uid: int) -> str:
    import pwd

    try:
        return f"user '{pwd.getpwuid(uid).pw_name}'"
    except KeyError:
        return f"uid {uid}"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
