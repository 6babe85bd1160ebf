"""The pseudo-terminal proxy behind `parsec shell`.

The user's shell runs on a new pty; every byte goes through unchanged in both directions (keys
in, output out), window-size changes are copied to the pty, and the user's terminal is put back
the way it was on exit. A copy of the output stream is scanned for the OSC 133 marks the hooks
emit: what a command prints between its C and D marks is captured (bounded) and handed to the
relay, unless the command switched to the alternate screen.
"""

from __future__ import annotations

import errno
import fcntl
import os
import pty
import select
import signal
import sys
import termios
import tty
from collections.abc import Sequence

from ..fdio import write_all
from .hook_relay import HookRelay
from .osc133 import AltScreen, Mark, MarkScanner
from .output_capture import OutputCapture

HOOK_FD = 97  # the fd the shell's hooks write their records to (PARSEC_PTY_FD)
_READ = 65536


def _copy_winsize(src_fd: int, dst_fd: int) -> None:
    try:
        size = fcntl.ioctl(src_fd, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(dst_fd, termios.TIOCSWINSZ, size)
    except OSError:
        pass


class PtyProxy:
    def __init__(self, argv: Sequence[str], relay: HookRelay, keep_bytes: int, env: dict[str, str]) -> None:
        self.argv = list(argv)
        self.relay = relay
        self.keep_bytes = keep_bytes
        self.env = env
        self.scanner = MarkScanner()
        self.capture: OutputCapture | None = None
        self._winch = False

    def run(self) -> int:
        stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
        hook_r, hook_w = os.pipe()
        pid, master = pty.fork()
        if pid == 0:  # the child: becomes the user's shell
            os.close(hook_r)
            if hook_w != HOOK_FD:
                os.dup2(hook_w, HOOK_FD)
                os.close(hook_w)
            os.set_inheritable(HOOK_FD, True)
            env = dict(self.env, PARSEC_PTY_FD=str(HOOK_FD), PARSEC_OSC133="1")
            try:
                os.execvpe(self.argv[0], self.argv, env)
            except OSError as err:
                os.write(2, f"parsec: cannot start {self.argv[0]}: {err.strerror}\n".encode())
                os._exit(127)
        os.close(hook_w)
        is_tty = os.isatty(stdin)
        saved = termios.tcgetattr(stdin) if is_tty else None
        old_winch = signal.signal(signal.SIGWINCH, self._on_winch)
        try:
            if is_tty:
                _copy_winsize(stdin, master)
                tty.setraw(stdin, termios.TCSANOW)  # TCSAFLUSH would drop keys typed ahead
            self._loop(stdin, stdout, master, hook_r)
        finally:
            if saved is not None:
                termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
            signal.signal(signal.SIGWINCH, old_winch)
            self.relay.close()
            for fd in (master, hook_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128 + os.WTERMSIG(status)

    def _on_winch(self, signum: int, frame: object) -> None:
        self._winch = True

    def _loop(self, stdin: int, stdout: int, master: int, hook_r: int) -> None:
        readers = [master, stdin, hook_r]
        while True:
            if self._winch:
                self._winch = False
                _copy_winsize(stdin, master)
            try:
                ready, _, _ = select.select(readers, [], [], 0.25)
            except InterruptedError:
                continue
            self.relay.tick()
            if master in ready:
                try:
                    data = os.read(master, _READ)
                except OSError as err:
                    if err.errno in (errno.EIO, errno.EBADF):
                        data = b""
                    else:
                        raise
                if not data:
                    self._drain_hooks(hook_r)
                    return
                write_all(stdout, data)  # untouched, before anything looks at it
                self._scan(data)
            if stdin in ready:
                data = os.read(stdin, _READ)
                if data:
                    write_all(master, data)
                else:  # the user's side closed: stop forwarding keys, keep the output
                    readers.remove(stdin)
            if hook_r in ready:
                data = os.read(hook_r, _READ)
                if data:
                    self.relay.feed(data)
                else:
                    readers.remove(hook_r)

    def _drain_hooks(self, hook_r: int) -> None:
        os.set_blocking(hook_r, False)
        try:
            while data := os.read(hook_r, _READ):
                self.relay.feed(data)
        except OSError:
            pass

    def _scan(self, data: bytes) -> None:
        for event in self.scanner.feed(data):
            if isinstance(event, bytes):
                if self.capture is not None:
                    self.capture.add(event)
            elif isinstance(event, AltScreen):
                if self.capture is not None:
                    self.capture.alt_screen = True
            elif isinstance(event, Mark):
                self._mark(event)

    def _mark(self, mark: Mark) -> None:
        if mark.kind == "C":
            self.capture = OutputCapture(self.keep_bytes)
        elif mark.kind == "D":
            capture, self.capture = self.capture, None
            ident = mark.option("parsec")
            if capture is None or not ident or ":" not in ident:
                return
            session, _, seq = ident.rpartition(":")
            if not seq.isdigit():
                return
            text = None if capture.alt_screen else capture.text()
            self.relay.command_output(session, int(seq), text, capture.total)
        elif mark.kind == "A":
            self.capture = None
