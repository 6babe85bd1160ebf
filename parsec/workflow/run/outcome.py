"""How a workflow ended, for people and scripts: a status, an error code and an exit status.

One table, documented in docs/workflow.md § Exit codes and used by `--json` and the exit status
of `parsec ask` / `parsec resume` alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...errors import ConfigError, ParsecError, UsageError
from ...models.workflow import Conversation, ConversationStatus


class Status(StrEnum):
    finished = "finished"
    declined = "declined"  # --yes met a command it may not approve
    not_achieved = "not_achieved"  # --yes: the model said a step was done, twice, and nothing ran
    aborted = "aborted"  # the user said q, or a step failed for good
    paused = "paused"  # Ctrl-C or a provider failure: `parsec resume` goes on
    error = "error"  # the conversation cannot go on (e.g. planning failed)


# What stops a run (raised by runner.py), each mapped to a code below.
class WorkflowPaused(ParsecError):
    """The workflow stopped on an error it can resume from (e.g. the provider is unreachable)."""

    original: Exception | None = None


class WorkflowInterrupted(ParsecError):
    """Ctrl-C at a question or while the model worked: the conversation is paused, resumable."""

    exit_code = 130


class Terminated(BaseException):
    """SIGTERM or SIGHUP (`kill`, a stopped service, a closed terminal): the workflow pauses as at
    Ctrl-C. A BaseException, so nothing that stops only a part on Ctrl-C (an explanation) or
    catches every Exception holds it up."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


class WorkflowTerminated(WorkflowInterrupted):
    """The workflow paused because Parsec was told to stop (Terminated)."""

    exit_code = 143  # 128 + SIGTERM, as a shell reports a process it killed


# error code → exit status
EXIT_CODES = {
    None: 0,  # finished
    "aborted": 1,
    "step_failed": 1,
    "error": 1,
    "usage": 2,
    "config": 2,
    "declined": 3,
    "not_achieved": 6,
    "provider_unavailable": 4,
    "provider_error": 4,
    "auth": 5,
    "internal": 70,
    "interrupted": 130,
    "terminated": 143,
}

NOT_ACHIEVED = "not achieved:"  # how the reason of a conversation stopped as not achieved begins

_UNAVAILABLE = ("EndpointUnreachable", "ProviderTimeout", "RateLimited")


@dataclass(frozen=True)
class Outcome:
    status: Status
    code: str | None  # None when finished
    message: str

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.code]

    def error(self) -> dict[str, str] | None:
        return None if self.code is None else {"code": self.code, "message": self.message}


def error_code(err: BaseException) -> str:
    """The code of an error that stopped a run (`WorkflowPaused` carries the provider's error)."""
    from ...providers.provider_errors import NoProviderConfigured, ProviderAuthError

    err = getattr(err, "original", None) or err
    if isinstance(err, (Terminated, WorkflowTerminated)):
        return "terminated"
    if isinstance(err, KeyboardInterrupt) or getattr(err, "exit_code", None) == 130:
        return "interrupted"
    if isinstance(err, ProviderAuthError):
        return "auth"
    if type(err).__name__ in _UNAVAILABLE:
        return "provider_unavailable"
    if isinstance(err, UsageError):
        return "usage"
    if isinstance(err, (ConfigError, NoProviderConfigured)):  # nothing to reach yet: a setting is missing
        return "config"
    if isinstance(err, ParsecError):
        from ...errors import ProviderError

        return "provider_error" if isinstance(err, ProviderError) else "error"
    return "internal"


def outcome_of(conversation: Conversation | None, err: BaseException | None) -> Outcome:
    if err is not None:
        code = error_code(err)
        if isinstance(err, ParsecError):
            message = str(err)
        elif code in ("interrupted", "terminated"):  # before the runner could pause anything
            message = "interrupted" if code == "interrupted" else f"stopped by {err}"
        else:
            message = f"internal error: {type(err).__name__}: {err}"
        status = Status.error if conversation is None or conversation.is_terminal else Status.paused
        return Outcome(status, code, message)
    assert conversation is not None
    reason = conversation.error or ""
    if conversation.status == ConversationStatus.finished:
        return Outcome(Status.finished, None, "")
    if conversation.status == ConversationStatus.aborted:
        if reason.startswith(NOT_ACHIEVED):
            return Outcome(Status.not_achieved, "not_achieved", reason)
        if reason.startswith("declined"):
            return Outcome(Status.declined, "declined", reason)
        if reason.startswith("step "):
            return Outcome(Status.aborted, "step_failed", reason)
        return Outcome(Status.aborted, "aborted", reason or "aborted")
    if conversation.status == ConversationStatus.error:
        return Outcome(Status.error, "error", reason or "error")
    return Outcome(Status.paused, "interrupted", reason or "paused")


def describe(outcome: Outcome) -> dict[str, Any]:
    return {"status": outcome.status.value, "exit_code": outcome.exit_code, "error": outcome.error()}
