"""Inside `parsec shell`, the hooks hand their records to the proxy (a pipe, PARSEC_PTY_FD) and
the proxy forwards them: each command's output first, then its `command_finished`, so the
daemon sees them in the order it needs. Anything undeliverable goes to the spool file.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ... import paths
from ...errors import UnsafeRuntimeDir
from ...fdio import append_private
from ...protocol import endpoints
from ...protocol.version import PROTOCOL_VERSION

RECONNECT_EVERY_S = 2.0
PAIR_WAIT_S = 1.0  # how long a record waits for its output (or the output for its record)


@dataclass
class _Pending:
    since: float
    finished: dict | None = None  # the hook's command_finished
    output: str | None = None  # None: not seen (yet); "": nothing to store
    output_bytes: int = 0
    output_done: bool = False


@dataclass
class HookRelay:
    runtime: Path
    capture_output: bool = True
    exclude: list = field(default_factory=list)  # compiled privacy.exclude_commands
    mask: Callable[[str], str] | None = None  # secrets masked
    _sock: socket.socket | None = None
    _next_connect: float = 0.0
    _buffer: bytes = b""
    _pending: dict = field(default_factory=dict)
    _refused: bool = False  # the runtime directory or its server is not the user's: nothing goes there

    # ---- input from the hooks --------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for raw in lines:
            if raw.strip():
                self._hook_line(raw)

    def _hook_line(self, raw: bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            self._deliver(raw)  # not ours to judge: the daemon answers bad input
            return
        if isinstance(msg, dict) and msg.get("type") == "command_finished" and "seq" in msg:
            entry = self._entry(str(msg.get("session")), msg["seq"])
            entry.finished = msg
            self._flush_ready()
        else:
            self._deliver(raw)

    # ---- input from the terminal stream ----------------------------------------------------
    def command_output(self, session: str, seq: int, text: str | None, total: int) -> None:
        """The D mark of `session:seq` arrived; `text` is None when nothing may be stored."""
        entry = self._entry(session, seq)
        entry.output_done = True
        entry.output = text if self.capture_output else None
        entry.output_bytes = total
        self._flush_ready()

    # ---- pairing ---------------------------------------------------------------------------
    def _entry(self, session: str, seq: int) -> _Pending:
        key = (session, int(seq))
        if key not in self._pending:
            self._pending[key] = _Pending(since=time.monotonic())
        return self._pending[key]

    def tick(self) -> None:
        """Called from the proxy loop: sends whatever waited too long for its other half."""
        self._flush_ready(force_older_than=time.monotonic() - PAIR_WAIT_S)

    def close(self) -> None:
        self._flush_ready(force_older_than=float("inf"))
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _flush_ready(self, force_older_than: float | None = None) -> None:
        for key in list(self._pending):
            entry = self._pending[key]
            forced = force_older_than is not None and entry.since <= force_older_than
            if entry.finished is None or not (entry.output_done or forced):
                if forced and entry.finished is None:
                    del self._pending[key]  # output of a command the hook did not record
                continue
            del self._pending[key]
            command = str(entry.finished.get("command") or "")
            if entry.output and not any(p.search(command) for p in self.exclude):
                text = self.mask(entry.output) if self.mask else entry.output
                out = {
                    "v": PROTOCOL_VERSION,
                    "type": "command_output",
                    "noreply": True,
                    "session": key[0],
                    "seq": key[1],
                    "output": text,
                    "output_bytes": entry.output_bytes,
                }
                self._deliver(json.dumps(out).encode())
            self._deliver(json.dumps(entry.finished).encode())

    # ---- delivery --------------------------------------------------------------------------
    def _deliver(self, line: bytes) -> None:
        sock = self._connection()
        if sock is not None:
            try:
                sock.sendall(line + b"\n")
                return
            except OSError:
                sock.close()
                self._sock = None
        self._spool(line)

    def problem(self) -> str | None:
        """Why nothing will be sent or spooled (said once by `parsec shell`), else None."""
        try:
            endpoints.check_runtime_dir(self.runtime)
        except UnsafeRuntimeDir as err:
            self._refused = True
            return str(err)
        except OSError:
            pass  # not there yet: made private when first needed
        return None

    def _connection(self) -> socket.socket | None:
        if self._refused:
            return None
        if self._sock is not None and not _peer_closed(self._sock):
            return self._sock
        if self._sock is not None:  # the daemon restarted or dropped an idle client
            self._sock.close()
            self._sock = None
        if time.monotonic() < self._next_connect:
            return None
        try:
            self._sock = endpoints.connect_socket(self.runtime, timeout=0.5)
        except UnsafeRuntimeDir:
            self._refused = True
            return None
        except OSError:
            self._next_connect = time.monotonic() + RECONNECT_EVERY_S
            return None
        return self._sock

    def _spool(self, line: bytes) -> None:
        if self._refused:
            return
        try:
            if not os.path.lexists(self.runtime):
                paths.ensure_private_dir(self.runtime)
            endpoints.check_runtime_dir(self.runtime)
            append_private(endpoints.runtime_spool_dir(self.runtime) / f"pty-{os.getpid()}.jsonl", line + b"\n")
        except UnsafeRuntimeDir:
            self._refused = True
        except OSError:
            pass  # nowhere to keep it: the shell must keep working regardless


def _peer_closed(sock: socket.socket) -> bool:
    """A send to a peer that already closed would seem to succeed and lose the line."""
    try:
        data = sock.recv(4096, socket.MSG_DONTWAIT | socket.MSG_PEEK)
    except BlockingIOError:
        return False
    except OSError:
        return True
    if data:  # replies to lines the daemon refused: read and drop them
        try:
            sock.recv(len(data), socket.MSG_DONTWAIT)
        except OSError:
            return True
        return False
    return True
