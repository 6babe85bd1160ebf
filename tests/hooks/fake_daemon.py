"""A small stand-in daemon speaking docs/protocol.md (the hooks' FIFO + the Unix socket), for the
hook tests.

It records every message it receives and answers `classify` from a fixed rule, so the tests can
check exactly what a hook sent and steer routing ("please": prose, "maybe": ambiguous, "kindly":
prose after exit status 127, the exit-127 offer; a line with "slowly" is answered late). Tests against the real daemon live alongside.
It makes its FIFOs and answers the way the real one does (parsec/daemon/hook_channel.py).
"""

from __future__ import annotations

import json
import os
import select
import socket
import threading
import time
from pathlib import Path

from parsec.daemon.hook_channel import hook_answer, write_reply
from parsec.protocol.version import PROTOCOL_VERSION

SLOW_ANSWER_S = 0.5  # a line with "slowly" is answered this late: longer than PARSEC_HOOK_TIMEOUT


def classify_rule(text: str, after_127: bool = False) -> str:
    if "please" in text:
        return "prompt"
    if "maybe" in text:
        return "ambiguous"
    if "kindly" in text and after_127:  # prose only once the shell said "command not found"
        return "prompt"
    return "command"


class FakeDaemon:
    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime
        self.messages: list[dict] = []
        self.late_answers = 0  # written after the hook stopped waiting (a line with "slowly")
        self.lock = threading.Lock()
        self._stop = False
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []

    def start(self) -> FakeDaemon:
        self.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.runtime / "reply").mkdir(exist_ok=True, mode=0o700)
        fifo = self.runtime / "hooks.fifo"
        fifo.unlink(missing_ok=True)
        os.mkfifo(fifo, 0o600)
        self.fifo_fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        sock_path = self.runtime / "daemon.sock"
        sock_path.unlink(missing_ok=True)
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(sock_path))
        self.unix.listen(64)
        for target in (self._read_fifo, self._accept):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self) -> None:
        self._stop = True
        for s in [self.unix, *self._conns]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        for t in self._threads:
            t.join(5)
        os.close(self.fifo_fd)
        (self.runtime / "hooks.fifo").unlink(missing_ok=True)
        (self.runtime / "daemon.sock").unlink(missing_ok=True)

    def _read_fifo(self) -> None:
        buffer = b""
        while not self._stop:
            ready, _, _ = select.select([self.fifo_fd], [], [], 0.05)
            if not ready:
                continue
            try:
                buffer += os.read(self.fifo_fd, 65536)
            except BlockingIOError:
                continue
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                try:  # as the real daemon: bytes that are not UTF-8 become U+FFFD, a bad line is skipped
                    msg = json.loads(raw.decode("utf-8", "replace"))
                except ValueError:
                    continue
                reply = self._handle(msg)
                name = msg.get("reply_to") if reply else None
                if name:
                    if "slowly" in str(msg.get("text")):  # answers after the hook stopped waiting
                        time.sleep(SLOW_ANSWER_S)
                    write_reply(self.runtime / "reply" / name, (json.dumps(hook_answer(reply)) + "\n").encode())
                    if "slowly" in str(msg.get("text")):
                        with self.lock:
                            self.late_answers += 1

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.unix.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        try:
            for raw in reader:
                reply = self._handle(json.loads(raw))
                if reply is not None:
                    conn.sendall((json.dumps(reply) + "\n").encode())
        except (OSError, ValueError):
            pass
        finally:
            conn.close()

    def _handle(self, msg: dict) -> dict | None:
        with self.lock:
            self.messages.append(msg)
        if msg.get("noreply"):
            return None
        reply = {"v": PROTOCOL_VERSION, "ok": True}
        if "id" in msg:
            reply["id"] = msg["id"]
        if msg.get("type") == "classify":
            reply.update(decision=classify_rule(msg["text"], bool(msg.get("after_127"))), confidence=0.9, reason="rule")
        return reply

    def of_type(self, kind: str) -> list[dict]:
        with self.lock:
            return [m for m in self.messages if m.get("type") == kind]


def read_spool(runtime: Path) -> list[dict]:
    out = []
    spool = runtime / "spool"
    if spool.is_dir():
        for path in sorted(spool.glob("*.jsonl")):
            out.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return out
