"""Every daemon reply as a pydantic model: the other half of messages.py.

A reply echoes the request's `id` and says `ok`. Each request class names its reply model
(messages.py: `class Status(Request[StatusReply])`, collected in `messages.REPLY_TYPES`); the
daemon's handler returns it or an `ErrorReply`; `wire()` is what goes on the socket.
Replies forbid undeclared fields, so a handler cannot send what this file does not say; the
tests check every request type's real reply against its model, and the hooks' reading of a
classify answer against `ClassifyReply`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .version import PROTOCOL_VERSION

ErrorCode = Literal[
    "bad_request", "unknown_type", "bad_version", "too_large", "unauthorized", "internal", "unavailable"
]
RequestId = int | str | None


class _Envelope(BaseModel):
    """What every reply carries: the protocol version and the request's id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: int = PROTOCOL_VERSION
    id: RequestId = None

    def wire(self) -> dict[str, Any]:
        return self.model_dump()


class Reply(_Envelope):
    ok: Literal[True] = True


class Ack(Reply):
    """Done (or queued to be), nothing more to say."""


class HelloReply(Reply):
    version: str


class SessionStartReply(Reply):
    session_id: str


class CommandFinishedReply(Reply):
    recorded: bool  # False: the record was a duplicate or had nothing to keep


class ClassifyReply(Reply):
    decision: Literal["command", "prompt", "ambiguous"]
    confidence: float
    reason: str
    leans: Literal["command", "prompt"] | None = None  # which way an ambiguous line leans


class CurrentSessionReply(Reply):
    session_id: str | None  # None: no session known for that shell


class FlushReply(Reply):
    in_store: bool  # every record so far is in the store
    queue_depth: int
    store_problem: str | None = None  # why not, when not
    spool_refused: int = 0  # spooled commands refused while taking the spool in: dropped (the log says which line)


class Job(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    interval_s: float
    runs: int
    last_run: float | None
    last_error: str | None


class StatusReply(Reply):
    pid: int
    version: str
    code_id: str  # protocol/code_id.py: which source tree it started from
    uptime_s: float
    rss_bytes: int  # the daemon and the processes it started (its store writer): process_tree.py
    cpu_percent: float  # of the same processes, since the previous status (100 = one core)
    processes: int = 1
    sessions_open: int
    connections: int
    requests_served: int
    queue_depth: int
    records_written: int
    store_url: str
    store_ok: bool
    store_problem: str | None
    journal_problem: str | None
    journal_held_records: int
    journal_settled: bool = True  # nothing appended waits to be written or synced
    hook_records_waiting: int
    pending_output_bytes: int
    outputs_dropped: int
    output_bytes_dropped: int
    last_error: str | None
    jobs: list[Job]


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    code: ErrorCode
    message: str


class ErrorReply(_Envelope):
    """Any request can get this instead of its reply."""

    ok: Literal[False] = False
    error: ErrorBody

    @classmethod
    def of(cls, req_id: RequestId, code: ErrorCode, message: str) -> ErrorReply:
        return cls(id=req_id, error=ErrorBody(code=code, message=message))
