"""A small stand-in daemon speaking docs/protocol.md (TCP with token + Unix socket), for the hook tests.

It records every message it receives and answers `classify` from a fixed rule, so the tests can
check exactly what a hook sent and steer routing. Tests against the real daemon live alongside.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
from pathlib import Path


def classify_rule(text: str) -> str:
    if "please" in text:
        return "prompt"
    if "maybe" in text:
        return "ambiguous"
    return "command"


class FakeDaemon:
    def __init__(self, runtime: Path) -> None:
        self.runtime = runtime
        self.messages: list[dict] = []
        self.lock = threading.Lock()
        self.token = secrets.token_hex(32)
        self._stop = False
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []

    def start(self) -> "FakeDaemon":
        self.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        port = self.tcp.getsockname()[1]
        (self.runtime / "tcp").write_text(f"{port} {self.token}\n")
        sock_path = self.runtime / "daemon.sock"
        if sock_path.exists():
            sock_path.unlink()
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(sock_path))
        self.unix.listen(64)
        for listener, needs_hello in ((self.tcp, True), (self.unix, False)):
            t = threading.Thread(target=self._accept, args=(listener, needs_hello), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self) -> None:
        self._stop = True
        for s in [self.tcp, self.unix, *self._conns]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        (self.runtime / "tcp").unlink(missing_ok=True)
        (self.runtime / "daemon.sock").unlink(missing_ok=True)

    def _accept(self, listener: socket.socket, needs_hello: bool) -> None:
        while not self._stop:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn, needs_hello), daemon=True).start()

    def _serve(self, conn: socket.socket, needs_hello: bool) -> None:
        reader = conn.makefile("rb")
        authed = not needs_hello
        try:
            for raw in reader:
                msg = json.loads(raw)
                if not authed:
                    if msg.get("type") != "hello" or msg.get("token") != self.token:
                        return
                    authed = True
                with self.lock:
                    self.messages.append(msg)
                if msg.get("noreply"):
                    continue
                reply = {"v": 1, "ok": True}
                if "id" in msg:
                    reply["id"] = msg["id"]
                if msg.get("type") == "classify":
                    reply.update(decision=classify_rule(msg["text"]), confidence=0.9, reason="rule")
                conn.sendall((json.dumps(reply) + "\n").encode())
        except (OSError, ValueError):
            pass
        finally:
            conn.close()

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
