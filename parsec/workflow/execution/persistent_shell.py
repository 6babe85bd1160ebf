"""One persistent shell per conversation, running in a pseudo-terminal.

The shell (bash, see pick_shell) reads the commands to run from a private pipe (fd 3), not from
its terminal, and `eval`s each one itself, so `cd`, exports and activated virtualenvs carry over. Its
terminal is a pty whose output Parsec copies to the user's terminal live and captures; while a
command runs, the user's keystrokes are copied to it, so a sudo password, ssh, an editor or a pager
work. Job control (`set -m`) gives each command its own process group, which is the pty's
foreground group: Ctrl-C reaches the command, never the shell, and a timeout or a second Ctrl-C
kills exactly that group.

After each command the driver writes the exit status, the cwd and the environment to a state
file, then a marker with a per-shell nonce to the pty; the marker says "output complete".

Given a Sandbox (sandbox.py), the whole shell starts inside it: every command it runs is confined,
and state carries over as before. Its private directory (the state file's) is then also $TMPDIR,
the one writable place besides the working directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import BinaryIO

from ...errors import ParsecError
from ...fdio import write_all
from ...models.terminal import strip_ansi
from ...pty_session import RawTerminal, drain, following_window_size, read_pty, readable, spawn_on_pty
from .children import EXIT_CODES, exited, reap, reap_later
from .sandbox import Sandbox
from .session_reaper import start_reaper

SANDBOX_START_TIMEOUT_S = 10.0

# bash runs this driver (zsh understands it too, see pick_shell). `set -m` gives each command its
# own process group; `trap : INT` keeps the shell alive when a Ctrl-C reaches it between commands
# (a trap, unlike ignoring the signal, is reset in the commands it runs).
_DRIVER = r"""
set -m 2>/dev/null
trap : INT
while IFS= read -r -d '' __parsec_cmd <&3; do
  eval "$__parsec_cmd" 3<&-
  __parsec_st=$?
  { printf '%s\0%s\0' "$__parsec_st" "$PWD"; env -0; } > "$PARSEC_SHELL_STATE"
  printf '\033]7770;%s\007' "$PARSEC_SHELL_NONCE"
done
"""
_READY = r"""printf '\033]7770;%s\007' "$PARSEC_SHELL_NONCE"
"""


@dataclass
class ShellResult:
    exit_status: int
    output: str  # as the terminal showed it, with escape sequences removed
    duration_ms: int
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False  # the user pressed Ctrl-C
    timed_out: bool = False
    shell_died: bool = False  # the command ended the shell (e.g. `exit`); it was restarted


class ShellDied(Exception):
    pass


class SandboxFailed(ParsecError):
    """The sandbox did not start: nothing ran, and nothing runs unconfined in its place."""


class PersistentShell:
    def __init__(self, cwd: str, env: dict[str, str], shell: str | None = None, sandbox: Sandbox | None = None) -> None:
        self.cwd = cwd
        self.env = dict(env)
        self.shell = shell or pick_shell(env)
        self.sandbox = sandbox
        self.pid: int | None = None  # the process Parsec started: the shell, or bwrap around it
        self.shell_pid: int | None = None  # the shell itself (in a sandbox: bwrap's child)
        self._master = -1
        self._control = -1
        self._dir = tempfile.mkdtemp(prefix="parsec-shell-")
        self._state_file = os.path.join(self._dir, "state")
        self._nonce = secrets.token_hex(8)
        self._marker = f"\x1b]7770;{self._nonce}\x07".encode()
        self._reaper: tuple[int, int] | None = None
        self.closed = threading.Event()  # set by close(): see executor.py's _launch_shell
        if sandbox is not None:
            tmp = os.path.join(self._dir, "tmp")
            os.mkdir(tmp, 0o700)
            self.env.update(sandbox.environment(tmp))

    # --- life cycle ------------------------------------------------------------------------
    def start(self) -> None:
        control_read, control_write = os.pipe()
        env = dict(self.env)
        env.update(PARSEC_SHELL_STATE=self._state_file, PARSEC_SHELL_NONCE=self._nonce)
        env.setdefault("TERM", os.environ.get("TERM", "xterm"))
        # In a sandbox the shell first says it is up (the marker), so that a bwrap that fails
        # setting the sandbox up is told from a shell that started.
        driver = (_READY if self.sandbox is not None else "") + _DRIVER
        argv = (
            [self.shell, "-f", "-c", driver]
            if self.shell.endswith("zsh")
            else [self.shell, "--norc", "--noprofile", "-c", driver]
        )
        fds = {3: control_read}  # the commands to run
        info_read = -1
        if self.sandbox is not None:
            info_read, info_write = os.pipe()
            fds[4] = info_write  # where bwrap says the sandbox is up
            argv = self.sandbox.command(argv, private_dir=self._dir, cwd=self.cwd, info_fd=4, env=self.env)
        pid, master = spawn_on_pty(
            argv,
            env,
            fds=fds,
            cwd=self.cwd,
            controlling_terminal=self.sandbox is None,  # a sandboxed shell takes the pty itself (sandbox.py)
            close_other_fds=True,
            size_from=_user_terminal(),
            default_size=(24, 100),
        )
        self.pid, self._master, self._control = pid, master, control_write
        self.shell_pid = pid
        self._reaper = start_reaper(pid)
        if info_read >= 0:
            self.shell_pid = self._await_sandbox(info_read)

    def _await_sandbox(self, info_read: int) -> int:
        """The confined shell's pid (bwrap reports it), once the shell inside says it is up. When
        bwrap fails instead, nothing started: SandboxFailed with bwrap's own one-line reason."""
        info = bytearray()
        said = bytearray()
        deadline = time.monotonic() + SANDBOX_START_TIMEOUT_S
        try:
            while time.monotonic() < deadline and self._marker not in said:
                ready = readable([info_read, self._master], 0.1)
                if info_read in ready:
                    info.extend(os.read(info_read, 4096) or b"")
                if self._master in ready:
                    data = read_pty(self._master)
                    if not data:
                        break
                    said.extend(data)
        finally:
            os.close(info_read)
        try:
            if self._marker not in said:
                raise ValueError("the shell did not start")
            return int(json.loads(bytes(info))["child-pid"])
        except (ValueError, KeyError, TypeError):
            lines = strip_ansi(bytes(said)).strip().splitlines()
            self._stop_reaper()
            self._end_shell(signal.SIGKILL)
            shutil.rmtree(self._dir, ignore_errors=True)  # nothing started: nothing of it stays
            reason = lines[-1] if lines else "bwrap did not report the sandbox up"
            raise SandboxFailed(f"the sandbox could not start, so nothing ran: {reason}") from None

    def close(self) -> None:
        self.closed.set()
        self._stop_reaper(wait=False)
        self._end_shell(signal.SIGHUP)
        shutil.rmtree(self._dir, ignore_errors=True)  # the state file, and a sandbox's TMPDIR

    def __enter__(self) -> PersistentShell:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- running a command -----------------------------------------------------------------
    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        echo: BinaryIO | None = None,
        stdin_fd: int | None = None,
        detached_input: bool = False,
    ) -> ShellResult:
        """Run `command`; copy its output to `echo` live; feed keystrokes from `stdin_fd`.

        Ctrl-C (a keystroke on a terminal, or SIGINT to Parsec) stops the command's process group.
        """
        if self.pid is None:
            self.start()
        if os.path.exists(self._state_file):
            os.unlink(self._state_file)
        started = time.monotonic()
        captured = bytearray()
        interrupted = timed_out = False
        deadline = started + timeout if timeout else None
        raw_terminal = RawTerminal(stdin_fd)
        previous_handler = signal.getsignal(signal.SIGINT)

        def on_sigint(signum: int, frame: object) -> None:
            nonlocal interrupted
            interrupted = True
            self._signal_command(signal.SIGINT)

        signal.signal(signal.SIGINT, on_sigint)
        try:
            if detached_input:  # unattended: a command that reads its input gets end of file
                command = "{ " + command + "\n} </dev/null"
            os.write(self._control, command.encode("utf-8", "replace") + b"\0")
            with raw_terminal, following_window_size(self._master, _user_terminal()):
                done, interrupted_by_key, timed_out = self._pump(captured, echo, raw_terminal.fd, deadline)
            interrupted = interrupted or interrupted_by_key
        except (BrokenPipeError, ShellDied):
            done = False
        finally:
            signal.signal(signal.SIGINT, previous_handler)
        duration_ms = int((time.monotonic() - started) * 1000)
        output = strip_ansi(bytes(captured))  # every escape and control sequence, before it is stored or sent
        if not done:
            # The shell is gone (the command ran `exit`, or it was killed): start a fresh one where
            # the last one was, so the conversation can go on.
            ended = self.pid
            self._restart()
            code = EXIT_CODES.pop(ended, 1) if ended is not None else 1
            status = 130 if interrupted else (124 if timed_out else code)
        else:
            status, cwd, env = self._read_state()
            self.cwd, self.env = cwd or self.cwd, env or self.env
            if timed_out and status == 0:
                status = 124
        return ShellResult(
            exit_status=status,
            output=output,
            duration_ms=duration_ms,
            cwd=self.cwd,
            env=dict(self.env),
            interrupted=interrupted,
            timed_out=timed_out,
            shell_died=not done,
        )

    def _pump(
        self, captured: bytearray, echo: BinaryIO | None, stdin_fd: int | None, deadline: float | None
    ) -> tuple[bool, bool, bool]:
        """Copy output until the marker; returns (completed, interrupted by a key, timed out)."""
        interrupted = timed_out = False
        kill_at: float | None = None
        pending = b""
        while True:
            now = time.monotonic()
            if deadline and now >= deadline and not timed_out:
                timed_out = True
                self._signal_command(signal.SIGINT)
                kill_at = now + 2.0
            if kill_at and now >= kill_at:
                self._signal_command(signal.SIGKILL)
                kill_at = now + 2.0
            watch = [self._master] + ([stdin_fd] if stdin_fd is not None else [])
            ready = readable(watch, 0.1)
            if stdin_fd is not None and stdin_fd in ready:
                data = read_pty(stdin_fd)
                if not data:
                    stdin_fd = None
                else:
                    if b"\x03" in data:
                        if interrupted:  # a second Ctrl-C: no more politeness
                            self._signal_command(signal.SIGKILL)
                        interrupted = True
                        kill_at = kill_at or time.monotonic() + 3.0
                    with contextlib.suppress(OSError):  # the shell is gone: the read below sees its end
                        write_all(self._master, data)
            if self._master in ready:
                data = read_pty(self._master)
                if not data:
                    if echo is not None:
                        echo.write(pending)
                        echo.flush()
                    captured.extend(pending)
                    return False, interrupted, timed_out
                pending += data
                at = pending.find(self._marker)
                if at >= 0:
                    chunk = pending[:at]
                    captured.extend(chunk)
                    if echo is not None:
                        echo.write(chunk)
                        echo.flush()
                    return True, interrupted, timed_out
                # Keep back a possible partial marker at the end.
                keep = partial_suffix(pending, self._marker)
                chunk = pending[: len(pending) - keep]
                pending = pending[len(pending) - keep :]
                captured.extend(chunk)
                if echo is not None and chunk:
                    echo.write(chunk)
                    echo.flush()
            if self.pid is not None and exited(self.pid):
                # Drain what is left, then report the death.
                rest = drain(self._master)
                captured.extend(pending + rest)
                return False, interrupted, timed_out

    def _signal_command(self, sig: int) -> None:
        """Signal the pty's foreground process group, unless that is the shell itself."""
        try:
            group = os.tcgetpgrp(self._master)
        except OSError:
            return
        if self.pid is None:
            return
        shell = self.shell_pid or self.pid
        try:
            # In a sandbox the shell keeps bwrap's group (self.pid): signalling that group would
            # end bwrap, so the shell is signalled alone.
            if group not in (self.pid, shell):
                os.killpg(group, sig)
            elif sig == signal.SIGKILL:
                os.killpg(self.pid, signal.SIGKILL)  # the shell itself is stuck in a builtin loop
            else:
                os.kill(shell, sig)
        except OSError:
            pass

    def _read_state(self) -> tuple[int, str, dict[str, str]]:
        try:
            with open(self._state_file, "rb") as handle:
                fields = handle.read().split(b"\0")
        except OSError:
            return 1, self.cwd, self.env
        status = int(fields[0] or b"1")
        cwd = fields[1].decode("utf-8", "replace") if len(fields) > 1 else self.cwd
        env: dict[str, str] = {}
        for item in fields[2:]:
            name, sep, value = item.decode("utf-8", "replace").partition("=")
            if (
                sep
                and not name.startswith("__parsec")
                and name not in ("PARSEC_SHELL_STATE", "PARSEC_SHELL_NONCE", "_", "SHLVL", "OLDPWD")
            ):
                env[name] = value
        return status, cwd, env

    def _stop_reaper(self, wait: bool = True) -> None:
        """End of file on its pipe: the reaper clears the old session and exits. At close it is
        not waited for (its 20 ms polls were Parsec's exit time; issue 26, item 5): it is off our
        session and finishes alone, and is reaped at the next stop or by init once we exit."""
        if self._reaper is not None:
            reaper_pid, pipe = self._reaper
            os.close(pipe)
            if wait:
                reap(reaper_pid, timeout=2.0)
            else:
                reap_later(reaper_pid)
            self._reaper = None

    def _restart(self) -> None:
        self._stop_reaper()
        self._end_shell(signal.SIGKILL)
        self.start()

    def _end_shell(self, sig: int) -> None:
        """Close our ends of the terminal and control pipe, signal the shell's group, reap it."""
        if self.pid is None:
            return
        for fd in (self._control, self._master):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(self.pid, sig)
        except OSError:
            pass
        reap(self.pid, timeout=1.0)
        self.pid = None


def _user_terminal() -> tuple[int, ...]:
    """Where the user's window size is read: Parsec's stdout, else its stdin."""
    try:
        return (sys.stdout.fileno(), 0)
    except (AttributeError, ValueError, OSError):  # no stdout, or one without an fd
        return (0,)


def partial_suffix(data: bytes, marker: bytes) -> int:
    """How many bytes at the end of `data` may be the start of `marker` (kept back until the
    next read says whether the marker follows)."""
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-size:]):
            return size
    return 0


def pick_shell(env: dict[str, str]) -> str:
    """bash, whatever the user's login shell: a non-interactive zsh has no job control, so a
    Ctrl-C there stops the running program but not the rest of its command line. The user's zsh
    is used only where there is no bash."""
    found = shutil.which("bash", path=env.get("PATH")) or shutil.which("bash")
    if found:
        return found
    user = env.get("SHELL", "")
    if os.path.basename(user) == "zsh" and os.access(user, os.X_OK):
        return user
    return "/bin/sh"
