"""The pseudo-terminal proxy behind `parsec shell`.

The user's shell runs on a new pty; every byte goes through unchanged in both directions (keys
in, output out), window-size changes are copied to the pty, and the user's terminal is put back
the way it was on exit. A copy of the output stream is scanned for the OSC 133 marks the hooks
emit: what a command prints between its C and D marks is captured (bounded) and handed to the
relay, unless the command switched to the alternate screen.
"""

from __future__ import annotations

import os
import sys
import termios
from collections.abc import Sequence

from ...fdio import write_all
from ...pty_session import RawTerminal, exit_code, following_window_size, read_pty, readable, spawn_on_pty
from .hook_relay import HookRelay
from .osc133 import AltScreen, Mark, MarkScanner
from .output_capture import OutputCapture

HOOK_FD = 97  # the fd the shell's hooks write their records to (PARSEC_PTY_FD)
_READ = 65536


class PtyProxy:
    def __init__(self, argv: Sequence[str], relay: HookRelay, keep_bytes: int, env: dict[str, str]) -> None:
        self.argv = list(argv)
        self.relay = relay
        self.keep_bytes = keep_bytes
        self.env = env
        self.scanner = MarkScanner()
        self.capture: OutputCapture | None = None

    def run(self) -> int:
        stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
        hook_r, hook_w = os.pipe()
        env = dict(self.env, PARSEC_PTY_FD=str(HOOK_FD), PARSEC_OSC133="1")
        pid, master = spawn_on_pty(self.argv, env, fds={HOOK_FD: hook_w}, size_from=(stdin,))
        try:
            # TCSANOW: TCSAFLUSH would drop the keys typed ahead.
            with RawTerminal(stdin, when=termios.TCSANOW), following_window_size(master, (stdin,)):
                self._loop(stdin, stdout, master, hook_r)
        finally:
            self.relay.close()
            for fd in (master, hook_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
        _, status = os.waitpid(pid, 0)
        return exit_code(status)

    def _loop(self, stdin: int, stdout: int, master: int, hook_r: int) -> None:
        readers = [master, stdin, hook_r]
        while True:
            ready = readable(readers, 0.25)
            self.relay.tick()
            if master in ready:
                data = read_pty(master)
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
