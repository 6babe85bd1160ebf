"""Every daemon request as a pydantic model, shared by the daemon, the client and the tests (the
replies: replies.py).

The wire format (docs/protocol.md): one JSON object per line with `"v"` (version.py) and `"type"`; an
optional `"id"` is echoed in the reply; `"noreply": true` asks for no reply. Unknown fields are
ignored, so newer hooks can talk to an older daemon.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Generic, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from ..errors import ProtocolError
from . import replies as r
from .replies import ErrorCode
from .version import PROTOCOL_VERSION

SHELL_FACTS = frozenset({"file", "alias", "builtin", "function", "keyword", "none"})

# A shell's own name for its session ("<pid>-<start time>"); bounded so it cannot bloat memory.
SessionKey = str


def _key() -> Any:  # noqa: ANN401 - pydantic types Field() as Any, to stand for any default
    return Field(min_length=1, max_length=128)


_TEXT_LIMIT = 1_000_000  # the framing limit bounds every field anyway; this keeps models honest

# Every integer is a JSON integer (strict: `1.5`, `1e20`, `"3"` and `true` are refused, not
# coerced) within what the store's column and the models can hold, so a value the daemon
# acknowledges can always be read back. JSON numbers written with an exponent or a fraction
# arrive as floats and are refused even when whole.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# The hooks send $? and $pipestatus: 0..255, 128+N for a signal (130 for Ctrl-C), 127 for a
# command not found. The executions.exit_status column is a 32-bit INTEGER; negative values are
# accepted too (a recorder may report a signal as -N), anything else is refused.
ExitStatus = Annotated[int, Field(strict=True, ge=INT32_MIN, le=INT32_MAX)]
# A counter from the shell (seq) or a byte count: never negative, at most a signed 64-bit value.
Count = Annotated[int, Field(strict=True, ge=0, le=INT64_MAX)]
# A process id: sessions.pid is a 32-bit INTEGER (Linux pids stay below 2**22). 0 is what
# getppid() returns when the parent lives in another pid namespace.
Pid = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]
# Milliseconds, stored as BIGINT. Negative values are dropped (see CommandFinished), not refused.
Millis = Annotated[int, Field(strict=True, ge=INT64_MIN, le=INT64_MAX)]
# Epoch seconds with a fraction, as the hooks send them: finite, or refused. An implausible time
# (a bogus clock) is dropped by the recorder and the record kept (daemon/sessions.py: _epoch).
Timestamp = Annotated[float, Field(strict=True, allow_inf_nan=False)]  # true, "1" refused
MAX_PIPELINE = 256  # statuses in one pipeline
MAX_ENV = 256  # variables in a session_start (the hooks send about a dozen)


class BadMessage(ProtocolError):
    """A request the daemon refuses; `code` goes into the error reply."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code


ReplyT = TypeVar("ReplyT", bound=r.Reply, covariant=True)  # a Status is a Request[Reply]


class Request(BaseModel, Generic[ReplyT]):
    """A request, parametrised by the reply it gets (`Status(Request[r.StatusReply])`), so the
    typed client returns that reply model. `type` is the union's discriminator."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    type: str  # each request narrows it to its own Literal
    v: Annotated[int, Field(strict=True)] = PROTOCOL_VERSION
    id: Annotated[int, Field(strict=True, ge=INT64_MIN, le=INT64_MAX)] | str | None = None
    noreply: bool = False


class Hello(Request[r.HelloReply]):
    type: Literal["hello"] = "hello"


class Ping(Request[r.Ack]):
    type: Literal["ping"] = "ping"


class SessionStart(Request[r.SessionStartReply]):
    type: Literal["session_start"] = "session_start"
    session: SessionKey = _key()
    # null is accepted for every text field: a hook sends null for what it does not know.
    shell: str | None = Field(default=None, max_length=64)
    pid: Pid | None = None
    tty: str | None = Field(default=None, max_length=256)
    user: str | None = Field(default=None, max_length=256)
    host: str | None = Field(default=None, max_length=256)
    cwd: str | None = Field(default=None, max_length=4096)
    env: dict[str, str] = Field(default_factory=dict, max_length=MAX_ENV)


class Classify(Request[r.ClassifyReply]):
    type: Literal["classify"] = "classify"
    session: SessionKey | None = Field(default=None, max_length=128)
    text: str = Field(max_length=_TEXT_LIMIT)
    # file | alias | builtin | function | keyword | none; anything else means "unknown".
    first_word: str | None = Field(default=None, max_length=32)
    parses: bool | None = None
    cwd: str | None = Field(default=None, max_length=4096)  # arguments naming files here are command evidence
    # The line already ran and the shell said "command not found": was it prose after all?
    after_127: bool = False
    # bash | zsh | fish: a builtin's grammar may depend on it (fish assigns with `set x 1`).
    shell: str | None = Field(default=None, max_length=16)

    @field_validator("first_word")
    @classmethod
    def _known_fact(cls, value: str | None) -> str | None:
        return value if value in SHELL_FACTS else None


class CommandStarted(Request[r.Ack]):
    type: Literal["command_started"] = "command_started"
    session: SessionKey = _key()
    seq: Count
    command: str = Field(max_length=_TEXT_LIMIT)
    started_at: Timestamp | None = None
    cwd: str | None = Field(default=None, max_length=4096)


class CommandFinished(Request[r.CommandFinishedReply]):
    type: Literal["command_finished"] = "command_finished"
    session: SessionKey = _key()
    seq: Count
    exit_status: ExitStatus | None = None
    pipeline_statuses: list[ExitStatus] = Field(default_factory=list, max_length=MAX_PIPELINE)
    finished_at: Timestamp | None = None
    duration_ms: Millis | None = None
    cwd_after: str | None = Field(default=None, max_length=4096)
    # Optional: a lone command_finished (e.g. from a spool file) is then a full record.
    command: str | None = Field(default=None, max_length=_TEXT_LIMIT)
    started_at: Timestamp | None = None
    cwd: str | None = Field(default=None, max_length=4096)

    @field_validator("duration_ms")
    @classmethod
    def _no_negative_duration(cls, value: int | None) -> int | None:
        # A clock stepped back mid-command: keep the record, drop the impossible duration.
        return value if value is None or value >= 0 else None


class CommandOutput(Request[r.Ack]):
    type: Literal["command_output"] = "command_output"
    session: SessionKey = _key()
    seq: Count
    output: str = Field(max_length=_TEXT_LIMIT)
    output_bytes: Count | None = None


class SessionEnd(Request[r.Ack]):
    type: Literal["session_end"] = "session_end"
    session: SessionKey = _key()


class ClassifyFeedback(Request[r.Ack]):
    type: Literal["classify_feedback"] = "classify_feedback"
    session: SessionKey | None = Field(default=None, max_length=128)
    text: str = Field(max_length=_TEXT_LIMIT)
    first_word: str | None = Field(default=None, max_length=32)
    chosen: Literal["command", "prompt"]


class Status(Request[r.StatusReply]):
    type: Literal["status"] = "status"


class CurrentSession(Request[r.CurrentSessionReply]):
    type: Literal["current_session"] = "current_session"
    pid: Pid | None = None
    session: SessionKey | None = Field(default=None, max_length=128)


class Flush(Request[r.FlushReply]):
    type: Literal["flush"] = "flush"


class ClassifierReload(Request[r.Ack]):
    """Re-read the learned classifier choices (`parsec classify --learn/--forget` changed them)."""

    type: Literal["classifier_reload"] = "classifier_reload"


# Every request the daemon answers, told apart by `type`. Adding a class here makes mypy demand
# its handler (daemon/server.py: `_dispatch` ends in `assert_never`) and its reply model (the
# class's parameter); tests/daemon/test_replies.py and tests/hooks/test_hook_messages.py
# validate what the daemon and the hooks put on the wire against it.
AnyRequest = Annotated[
    Hello
    | Ping
    | SessionStart
    | Classify
    | CommandStarted
    | CommandFinished
    | CommandOutput
    | SessionEnd
    | ClassifyFeedback
    | Status
    | CurrentSession
    | Flush
    | ClassifierReload,
    Field(discriminator="type"),
]
REQUEST_ADAPTER: TypeAdapter[AnyRequest] = TypeAdapter(AnyRequest)


def _kind(cls: type[Request[r.Reply]]) -> str:
    return str(cls.model_fields["type"].default)


def _reply_model(cls: type[Request[r.Reply]]) -> type[r.Reply]:
    """The reply class a request class was declared with (`Request[r.StatusReply]`)."""
    for base in cls.__mro__:
        meta = getattr(base, "__pydantic_generic_metadata__", None)
        if meta and meta["origin"] is Request and meta["args"]:
            reply: type[r.Reply] = meta["args"][0]
            return reply
    raise TypeError(f"{cls.__name__} does not say which reply it gets")


REQUEST_TYPES: dict[str, type[Request[r.Reply]]] = {_kind(cls): cls for cls in get_args(get_args(AnyRequest)[0])}
REPLY_TYPES: dict[str, type[r.Reply]] = {kind: _reply_model(cls) for kind, cls in REQUEST_TYPES.items()}


def parse_request(line: bytes | str) -> AnyRequest:
    """Decode one line into its typed request, or raise BadMessage with the reply's error code."""
    if isinstance(line, bytes):
        # A directory or command in another encoding: its stray bytes become U+FFFD, the rest
        # of the record is kept (a strict decode would drop the whole record).
        line = line.decode("utf-8", "replace")
    try:
        data = json.loads(line)
    except ValueError:
        raise BadMessage("bad_request", "not a JSON object") from None
    except RecursionError:  # `[[[[…` thousands deep: the parser's stack, not the daemon's problem
        raise BadMessage("bad_request", "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise BadMessage("bad_request", "not a JSON object")
    version = data.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:  # not 1.0, not true
        raise BadMessage("bad_version", f"protocol version {version!r} is not supported (expected {PROTOCOL_VERSION})")
    kind = data.get("type")
    cls = REQUEST_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadMessage("unknown_type", f"unknown message type {str(kind)[:64]!r}")
    try:
        # The class `type` names, not the union: the same model, and an error that names the
        # field alone (`command_finished: seq: Field required`).
        request: AnyRequest = cls.model_validate(data)  # type: ignore[assignment]  # cls is a member
        return request
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or kind
        raise BadMessage("bad_request", f"{kind}: {where}: {first['msg']}") from None


def envelope(line: bytes | str) -> tuple[int | str | None, bool]:
    """(`id`, `noreply`) of a line that failed to parse, as far as they can still be read."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None, False
    if not isinstance(data, dict):
        return None, False
    value = data.get("id")
    req_id = value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    return req_id, data.get("noreply") is True


def request_line(kind: str, **fields: object) -> bytes:
    """The wire form of a request (used by the client, the tests and the benchmark)."""
    if kind not in REQUEST_TYPES:
        raise ValueError(f"unknown message type {kind!r}")
    return encode({"v": PROTOCOL_VERSION, "type": kind, **fields})


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
