"""Every daemon message as a pydantic model, shared by the daemon, the client and the tests.

The wire format (docs/protocol.md): one JSON object per line with `"v": 1` and `"type"`; an
optional `"id"` is echoed in the reply; `"noreply": true` asks for no reply. Unknown fields are
ignored, so newer hooks can talk to an older daemon.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ProtocolError

PROTOCOL_VERSION = 1
SHELL_FACTS = frozenset({"file", "alias", "builtin", "function", "keyword", "none"})

ErrorCode = Literal["bad_request", "unknown_type", "bad_version", "too_large", "unauthorized", "internal", "unavailable"]

# A shell's own name for its session ("<pid>-<start time>"); bounded so it cannot bloat memory.
SessionKey = str


def _key() -> Any:
    return Field(min_length=1, max_length=128)


_TEXT_LIMIT = 1_000_000  # the framing limit bounds every field anyway; this keeps models honest


class BadMessage(ProtocolError):
    """A request the daemon refuses; `code` goes into the error reply."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code


class Request(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)
    type: ClassVar[str] = ""
    v: int = PROTOCOL_VERSION
    id: int | str | None = None
    noreply: bool = False


class Hello(Request):
    type: ClassVar[str] = "hello"
    token: str = Field(default="", max_length=256)


class Ping(Request):
    type: ClassVar[str] = "ping"


class SessionStart(Request):
    type: ClassVar[str] = "session_start"
    session: SessionKey = _key()
    # null is accepted for every text field: a hook sends null for what it does not know.
    shell: str | None = Field(default=None, max_length=64)
    pid: int | None = None
    tty: str | None = Field(default=None, max_length=256)
    user: str | None = Field(default=None, max_length=256)
    host: str | None = Field(default=None, max_length=256)
    cwd: str | None = Field(default=None, max_length=4096)
    env: dict[str, str] = Field(default_factory=dict)


class Classify(Request):
    type: ClassVar[str] = "classify"
    session: SessionKey | None = Field(default=None, max_length=128)
    text: str = Field(max_length=_TEXT_LIMIT)
    # file | alias | builtin | function | keyword | none; anything else means "unknown".
    first_word: str | None = Field(default=None, max_length=32)
    parses: bool | None = None

    @field_validator("first_word")
    @classmethod
    def _known_fact(cls, value: str | None) -> str | None:
        return value if value in SHELL_FACTS else None
    cwd: str | None = Field(default=None, max_length=4096)


class CommandStarted(Request):
    type: ClassVar[str] = "command_started"
    session: SessionKey = _key()
    seq: int = Field(ge=0)
    command: str = Field(max_length=_TEXT_LIMIT)
    started_at: float | None = None
    cwd: str | None = Field(default=None, max_length=4096)


class CommandFinished(Request):
    type: ClassVar[str] = "command_finished"
    session: SessionKey = _key()
    seq: int = Field(ge=0)
    exit_status: int | None = None
    pipeline_statuses: list[int] = Field(default_factory=list, max_length=256)
    finished_at: float | None = None
    duration_ms: int | None = None
    cwd_after: str | None = Field(default=None, max_length=4096)
    # Optional: a lone command_finished (e.g. from a spool file) is then a full record.
    command: str | None = Field(default=None, max_length=_TEXT_LIMIT)
    started_at: float | None = None
    cwd: str | None = Field(default=None, max_length=4096)

    @field_validator("duration_ms")
    @classmethod
    def _no_negative_duration(cls, value: int | None) -> int | None:
        # A clock stepped back mid-command: keep the record, drop the impossible duration.
        return value if value is None or value >= 0 else None


class CommandOutput(Request):
    type: ClassVar[str] = "command_output"
    session: SessionKey = _key()
    seq: int = Field(ge=0)
    output: str = Field(max_length=_TEXT_LIMIT)
    output_bytes: int | None = Field(default=None, ge=0)


class SessionEnd(Request):
    type: ClassVar[str] = "session_end"
    session: SessionKey = _key()


class ClassifyFeedback(Request):
    type: ClassVar[str] = "classify_feedback"
    session: SessionKey | None = Field(default=None, max_length=128)
    text: str = Field(max_length=_TEXT_LIMIT)
    first_word: str | None = Field(default=None, max_length=32)
    chosen: Literal["command", "prompt"]


class Status(Request):
    type: ClassVar[str] = "status"


class CurrentSession(Request):
    type: ClassVar[str] = "current_session"
    pid: int | None = None
    session: SessionKey | None = Field(default=None, max_length=128)


class Flush(Request):
    type: ClassVar[str] = "flush"


REQUEST_TYPES: dict[str, type[Request]] = {
    cls.type: cls
    for cls in (
        Hello, Ping, SessionStart, Classify, CommandStarted, CommandFinished, CommandOutput,
        SessionEnd, ClassifyFeedback, Status, CurrentSession, Flush,
    )
}


def parse_request(line: bytes | str) -> Request:
    """Decode one line into its typed request, or raise BadMessage with the reply's error code."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise BadMessage("bad_request", "not a JSON object") from None
    if not isinstance(data, dict):
        raise BadMessage("bad_request", "not a JSON object")
    version = data.get("v")
    if version != PROTOCOL_VERSION:
        raise BadMessage("bad_version", f"protocol version {version!r} is not supported (expected {PROTOCOL_VERSION})")
    kind = data.get("type")
    cls = REQUEST_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadMessage("unknown_type", f"unknown message type {str(kind)[:64]!r}")
    try:
        return cls.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or kind
        raise BadMessage("bad_request", f"{kind}: {where}: {first['msg']}") from None


def envelope(line: bytes | str) -> tuple[int | str | None, bool]:
    """(`id`, `noreply`) of a line that failed to parse, as far as they can still be read."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None, False
    if not isinstance(data, dict):
        return None, False
    value = data.get("id")
    req_id = value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    return req_id, data.get("noreply") is True


def ok_reply(req_id: int | str | None, **fields: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": req_id, "ok": True, **fields}


def error_reply(req_id: int | str | None, code: ErrorCode, message: str) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "id": req_id, "ok": False, "error": {"code": code, "message": message}}


def request_line(kind: str, **fields: Any) -> bytes:
    """The wire form of a request (used by the client, the tests and the benchmark)."""
    if kind not in REQUEST_TYPES:
        raise ValueError(f"unknown message type {kind!r}")
    return encode({"v": PROTOCOL_VERSION, "type": kind, **fields})


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
