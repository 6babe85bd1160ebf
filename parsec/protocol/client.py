"""A small blocking client for the daemon: the CLI, `parsec shell`, the tests and the benchmark.

with DaemonClient.connect() as client:
    client.call("status")
"""

from __future__ import annotations

import itertools
import json
import socket
from pathlib import Path
from typing import Any

from ..errors import DaemonUnavailable, ProtocolError
from . import endpoints
from .framing import LineSocket
from .messages import request_line

DEFAULT_LIMIT = 1_048_576


class DaemonError(ProtocolError):
    """The daemon answered with an error reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"the daemon refused the request ({code}): {message}")
        self.code = code


class DaemonClient:
    def __init__(self, sock: socket.socket, limit: int = DEFAULT_LIMIT) -> None:
        self._io = LineSocket(sock, limit)
        self._ids = itertools.count(1)

    @classmethod
    def connect(cls, runtime: Path | None = None, timeout: float = 5.0) -> DaemonClient:
        """Connect over the Unix socket in `runtime` (default: the user's runtime directory)."""
        runtime = runtime or endpoints.runtime_dir()
        try:
            sock = endpoints.connect_socket(runtime, timeout)
        except OSError as err:
            raise DaemonUnavailable(
                f"the daemon is not running ({endpoints.socket_path(runtime)}: {err.strerror}): run `parsec daemon start`"
            ) from None
        return cls(sock)

    def send(self, kind: str, **fields: Any) -> None:
        """Send without waiting (use with noreply=True, or read the reply with `receive`)."""
        try:
            self._io.send(request_line(kind, **fields))
        except OSError as err:
            raise DaemonUnavailable(f"cannot reach the daemon: {err.strerror or err}") from None

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests use it for malformed input)."""
        self._io.send(data)

    def receive(self) -> dict[str, Any]:
        try:
            return json.loads(self._io.read_line())
        except TimeoutError:
            raise DaemonUnavailable("the daemon did not answer in time") from None
        except OSError as err:
            raise DaemonUnavailable(f"cannot reach the daemon: {err.strerror or err}") from None

    def request(self, kind: str | dict[str, Any], **fields: Any) -> dict[str, Any]:
        """Send one request and return its reply, whether ok or not.

        `kind` is the message type, or a whole message as a dict (`{"type": "status", ...}`)."""
        if isinstance(kind, dict):
            message = {key: value for key, value in kind.items() if key not in ("type", "v")}
            fields = {**message, **fields}
            kind = str(kind["type"])
        fields.setdefault("id", next(self._ids))
        self.send(kind, **fields)
        return self.receive()

    def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Like `request`, but an error reply raises DaemonError."""
        reply = self.request(kind, **fields)
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise DaemonError(str(error.get("code", "internal")), str(error.get("message", "")))
        return reply

    def close(self) -> None:
        self._io.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
