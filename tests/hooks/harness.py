"""Driving real shells with the hooks through a pseudo-terminal, against a real daemon."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pexpect

REPO = Path(__file__).resolve().parents[2]
PROMPT = "T> "
TIMEOUT = 8

ASK_STUB = """#!/bin/sh
# Stand-in for `parsec ask`: shows what it got, and moves the shell when ASK_STUB_CD is set.
printf 'ASKED<%s>\\n' "$*"
if [ -n "$ASK_STUB_CD" ] && [ -n "$PARSEC_CD_FILE" ]; then printf '%s\\n' "$ASK_STUB_CD" > "$PARSEC_CD_FILE"; fi
"""


@dataclass
class Sandbox:
    """Private XDG directories, a stand-in `parsec ask`, and the environment for a shell."""

    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path) -> Sandbox:
        for name in ("run", "data", "state", "config", "cache", "home", "bin", "work"):
            (root / name).mkdir(parents=True, exist_ok=True)
        os.chmod(root / "run", 0o700)
        stub = root / "bin" / "ask_stub"
        stub.write_text(ASK_STUB)
        stub.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PARSEC_", "XDG_", "ATUIN_"))}
        env.update(
            HOME=str(root / "home"),
            XDG_RUNTIME_DIR=str(root / "run"),
            XDG_DATA_HOME=str(root / "data"),
            XDG_STATE_HOME=str(root / "state"),
            XDG_CONFIG_HOME=str(root / "config"),
            XDG_CACHE_HOME=str(root / "cache"),
            PATH=f"{root / 'bin'}:{os.environ['PATH']}",
            PARSEC_ASK_COMMAND="ask_stub",
            TERM="xterm",
            LANG="C.UTF-8",
            PARSEC_HOOKS_AUTOSTART_DAEMON="0",
            # The hooks give up on a classify reply after 0.15 s; 8 engineers share 2 cores here.
            PARSEC_HOOK_TIMEOUT="1",
        )
        env.pop("PROMPT_COMMAND", None)
        return cls(root=root, env=env)

    def write_config(self, text: str) -> None:
        """The user's config.toml (what `parsec init` reads when the shell starts)."""
        config = self.root / "config" / "parsec"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text(text)

    @property
    def runtime(self) -> Path:
        return self.root / "run" / "parsec"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def store_url(self) -> str:
        return f"sqlite:///{self.root / 'data' / 'parsec' / 'parsec.db'}"


class Daemon:
    """`parsec daemon run` in the background with the sandbox's directories."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.proc: subprocess.Popen | None = None

    def start(self) -> Daemon:
        log = open(self.sandbox.root / "daemon.out", "ab")  # noqa: SIM115 - the daemon writes it as long as it runs
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "parsec.cli.entry", "daemon", "run"],
            env=self.sandbox.env,
            stdout=log,
            stderr=log,
            cwd=self.sandbox.root,
        )
        # Generous: on a busy machine (CI shares it) the daemon's start and its store writer's
        # took over 15 s while other tests ran; a deadline costs nothing when it starts at once.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (self.sandbox.runtime / "hooks.fifo").exists() and (self.sandbox.runtime / "daemon.sock").exists():
                try:
                    # The first classify loads the classifier: do it now, not on a typed line.
                    self.call("classify", session="0-0", text="ls", first_word="file", parses=True, cwd="/")
                    return self
                except Exception:
                    pass
            if self.proc.poll() is not None:
                raise RuntimeError((self.sandbox.root / "daemon.out").read_text())
            time.sleep(0.05)
        raise RuntimeError("daemon did not start")

    def call(self, kind: str, **fields):
        from parsec.protocol.client import DaemonClient

        # Generous: a flush waits for the store's fsync, which a loaded 2-core machine can stretch.
        with DaemonClient.connect(self.sandbox.runtime, timeout=30) as client:
            return client.call(kind, **fields)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def executions(sandbox: Sandbox, daemon: Daemon | None, cwd: Path, want: int, timeout: float = 30.0) -> list:
    """The store's executions run in `cwd` (and below), oldest first, once at least `want` exist."""
    from parsec.store import open_store
    from parsec.store.protocols import ExecutionQuery

    deadline = time.monotonic() + timeout
    while True:
        if daemon is not None:
            daemon.call("flush")
        found = []
        if (sandbox.root / "data" / "parsec" / "parsec.db").exists():
            store = open_store(sandbox.store_url)
            try:
                found = store.query_executions(ExecutionQuery(cwd=str(cwd), cwd_subtree=True, limit=500))
            finally:
                store.close()
        if len(found) >= want or time.monotonic() > deadline:
            return sorted(found, key=lambda e: (e.executed_at, e.id))
        time.sleep(0.2)


# A freshly printed prompt, told apart from the redraws of the line being edited.
FRESH_PROMPT = {
    "bash": r"\x1b\[\?2004h(?:\[\d+\] )?T> ",
    "zsh": r"\x1b\[J(?:\[\d+\] )?T> ",
    "fish": r"\x1b\[\?2004h(?:\x1b\[[0-9;]*m|\x1b\(B|\x1b\]133;A\x07|\r)*T> ",
}


class Shell:
    """An interactive bash, zsh or fish with the hook loaded from its rc file."""

    def __init__(
        self,
        kind: str,
        sandbox: Sandbox,
        before: str = "",
        after: str = "",
        env: dict[str, str] | None = None,
        load_hook: str | None = None,
        argv: list[str] | None = None,
    ) -> None:
        self.kind = kind
        shell_env = dict(sandbox.env, **(env or {}))
        hook = load_hook if load_hook is not None else _load_line(kind)
        cmd = write_rc_file(kind, sandbox.root, f"{before}\n{hook}\n{after}", shell_env)
        if argv is not None:
            cmd = [*argv, *cmd]
        self.child = pexpect.spawn(
            cmd[0],
            cmd[1:],
            env=shell_env,
            cwd=str(sandbox.work),
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(40, 200),
            codec_errors="replace",
        )
        self.child.delaybeforesend = None
        self.expect_prompt()

    def expect_prompt(self) -> str:
        self.child.expect(FRESH_PROMPT[self.kind])
        return self.child.before

    def run(self, line: str) -> str:
        """Type a line (or several), press Enter, wait for the next prompt; the output between."""
        self.child.sendline(line)
        return self.expect_prompt()

    def exit(self) -> None:
        self.child.sendline("exit")
        self.child.expect(pexpect.EOF)
        self.child.close()


def write_rc_file(kind: str, root: Path, body: str, env: dict[str, str]) -> list[str]:
    """Write `body` into the shell's rc file under `root` (HOME is root/home, XDG_CONFIG_HOME
    root/config) with the plain prompt PROMPT; return the argv of an interactive shell reading it.
    `env` gets what the shell needs to find the file (zsh's ZDOTDIR)."""
    home = root / "home"
    if kind == "bash":
        rc = home / ".bashrc"
        rc.write_text(f"PS1='{PROMPT}'\n{body}\n")
        return ["bash", "--rcfile", str(rc), "-i"]
    if kind == "zsh":
        (home / ".zshrc").write_text(f"PS1='{PROMPT}'\nunsetopt PROMPT_SP\n{body}\n")
        env["ZDOTDIR"] = str(home)
        return ["zsh", "-i"]
    conf = root / "config" / "fish"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "config.fish").write_text(
        f"set -g fish_greeting ''\nfunction fish_prompt; printf '{PROMPT}'; end\n"
        f"function fish_right_prompt; end\nfunction fish_title; end\n{body}\n"
    )
    return ["fish", "-i"]


def _load_line(kind: str) -> str:
    parsec = shutil.which("parsec") or "parsec"
    if kind == "fish":
        return f"{parsec} init fish | source"
    return f'eval "$({parsec} init {kind})"'
