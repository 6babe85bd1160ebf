"""A small blocking client for the daemon: the CLI, `parsec shell`, the tests and the benchmark.

Typed: send a request model, get its reply model back (messages.py says which):

    with DaemonClient.connect() as client:
        status = client.call(m.Status())          # -> replies.StatusReply

The wire-level form, a type name and fields in, a dict out (`client.call("status")`), is for the
tests that send what no model would (malformed input, missing fields) and read the raw reply.
"""

from __future__ import annotations

import functools
import itertools
import json
import socket
from pathlib import Path
from typing import Annotated, Any, TypeVar, overload

from pydantic import Field, TypeAdapter, ValidationError

from ..errors import DaemonUnavailable, ProtocolError
from . import endpoints
from . import replies as r
from .framing import LineSocket
from .messages import REPLY_TYPES, Request, request_line

DEFAULT_LIMIT = 1_048_576
ReplyT = TypeVar("ReplyT", bound=r.Reply)


class DaemonError(ProtocolError):
    """The daemon answered with an error reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"the daemon refused the request ({code}): {message}")
        self.code = code


class ReplyMismatch(ProtocolError):
    """A reply that is not the model this client expects: the daemon runs other code."""


@functools.cache
def _outcome(model: type[r.Reply]) -> TypeAdapter[Any]:
    """A request's reply, or an error reply: the union told apart by `ok`."""
    return TypeAdapter(Annotated[model | r.ErrorReply, Field(discriminator="ok")])


def parse_reply(model: type[ReplyT], data: object) -> ReplyT | r.ErrorReply:
    """`data` (a decoded reply line) as `model` or an ErrorReply. Fields this client does not know
    are dropped (a newer daemon may say more); a missing or mistyped one is a ReplyMismatch."""
    if isinstance(data, dict) and data.get("ok") is True:
        data = {key: value for key, value in data.items() if key in model.model_fields}
    try:
        reply: ReplyT | r.ErrorReply = _outcome(model).validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:])  # [0] is the union member
        raise ReplyMismatch(
            f"the daemon's reply is not what this parsec expects ({where}: {first['msg']}): "
            "it may run other code, `parsec daemon restart`"
        ) from None
    return reply


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

    # --- typed: request models in, reply models out ---------------------------------------
    def exchange(self, request: Request[ReplyT]) -> ReplyT | r.ErrorReply:
        """Send one request and return its reply model, or the daemon's ErrorReply."""
        if request.id is None:
            request = request.model_copy(update={"id": next(self._ids)})
        self._send_line(_wire(request))
        return parse_reply(_reply_model(request), self.receive())

    @overload
    def call(self, request: Request[ReplyT]) -> ReplyT: ...

    @overload
    def call(self, request: str, **fields: object) -> dict[str, Any]: ...

    def call(self, request: Request[r.Reply] | str, **fields: object) -> r.Reply | dict[str, Any]:
        """Like `exchange`, but an error reply raises DaemonError. Given a type name and fields
        instead of a model: the wire-level form, a dict out."""
        if isinstance(request, str):
            raw = self.request(request, **fields)
            if not raw.get("ok"):
                error = raw.get("error") or {}
                raise DaemonError(str(error.get("code", "internal")), str(error.get("message", "")))
            return raw
        reply = self.exchange(request)
        if isinstance(reply, r.ErrorReply):
            raise DaemonError(reply.error.code, reply.error.message)
        return reply

    def tell(self, request: Request[r.Reply]) -> None:
        """Send without waiting for a reply (the request should say noreply=True)."""
        self._send_line(_wire(request))

    # --- wire level: for tests and tools that send what no model would ----------------------
    def send(self, kind: str, **fields: object) -> None:
        """Send without waiting (use with noreply=True, or read the reply with `receive`)."""
        self._send_line(request_line(kind, **fields))

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

    def request(self, kind: str | dict[str, Any], **fields: object) -> dict[str, Any]:
        """Send one request and return its reply as a dict, whether ok or not.

        `kind` is the message type, or a whole message as a dict (`{"type": "status", ...}`)."""
        if isinstance(kind, dict):
            message = {key: value for key, value in kind.items() if key not in ("type", "v")}
            fields = {**message, **fields}
            kind = str(kind["type"])
        fields.setdefault("id", next(self._ids))
        self.send(kind, **fields)
        return self.receive()

    def _send_line(self, line: bytes) -> None:
        try:
            self._io.send(line)
        except OSError as err:
            raise DaemonUnavailable(f"cannot reach the daemon: {err.strerror or err}") from None

    def close(self) -> None:
        self._io.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _wire(request: Request[r.Reply]) -> bytes:
    """A request model's line: its fields, less the defaults (the daemon fills them in the same)."""
    return request_line(request.type, **request.model_dump(exclude_defaults=True, exclude={"type", "v"}))


def _reply_model(request: Request[ReplyT]) -> type[ReplyT]:
    model: type[ReplyT] = REPLY_TYPES[request.type]  # type: ignore[assignment]  # the class's own parameter
    return model
