"""Conversions between domain models and table rows. Kept apart so the store reads as SQL only."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..models.parsec_model import utcnow
from ..models.session import DirectCommandExecution, GlobalContext, Session, SessionSettings
from ..models.text import TruncatedText, clean_text
from ..models.workflow import Conversation
from ..privacy.masking import mask_json, store_gate
from .micros import to_micros
from .protocols import ExecutionRecord


def _text(value: str) -> str:
    """Text every backend accepts: no NUL (PostgreSQL refuses it), no lone surrogates (not UTF-8).

    Models clean their text on validation, but model_construct() and surrogate-escaped file names
    skip that; the ASCII fast path keeps bulk recording cheap."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return clean_text(value) if "\x00" in value else value


def _masked_output(text: TruncatedText | None) -> str | None:
    if text is None:
        return None
    return text.model_copy(update={"head": store_gate(text.head), "tail": store_gate(text.tail)}).model_dump_json()


def execution_row(item: ExecutionRecord) -> dict[str, Any]:
    """The row of one execution. Hot path of bulk recording: plain attribute reads, no dumps of
    the whole model. Times are converted here so the bulk insert binds plain integers. Text
    passes the store's masking gate (store_gate) whoever built the record."""
    return {
        "id": item.id,
        "session_id": item.session_id,
        "command": _text(store_gate(item.command)),
        "executed_at": to_micros(item.executed_at),
        "duration_ms": item.duration_ms,
        "exit_status": item.exit_status,
        "pipeline_statuses": json.dumps(item.pipeline_statuses) if item.pipeline_statuses else None,
        "stdout": _masked_output(item.stdout),
        "stderr": _masked_output(item.stderr),
        "cwd": _text(item.working_directory),
        "cwd_after": _text(item.cwd_after) if item.cwd_after else item.cwd_after,
        "host": _text(item.host),
        "user": _text(item.user),
        "source": item.source,
        "conversation_id": item.conversation_id,
    }


def execution_from_row(row: Mapping[Any, Any]) -> DirectCommandExecution:
    return DirectCommandExecution(
        id=row["id"],
        session_id=row["session_id"],
        command=row["command"],
        executed_at=row["executed_at"],
        duration_ms=row["duration_ms"],
        exit_status=row["exit_status"],
        pipeline_statuses=json.loads(row["pipeline_statuses"]) if row["pipeline_statuses"] else [],
        stdout=TruncatedText.model_validate_json(row["stdout"]) if row["stdout"] else None,
        stderr=TruncatedText.model_validate_json(row["stderr"]) if row["stderr"] else None,
        working_directory=row["cwd"],
        cwd_after=row["cwd_after"],
        host=row["host"],
        user=row["user"],
        source=row["source"],
        conversation_id=row["conversation_id"],
    )


def session_row(session: Session) -> dict[str, Any]:
    data = {
        "global_context": session.global_context.model_dump(mode="json"),
        "settings": session.settings.model_dump(mode="json"),
        "conversations": list(session.conversations),
    }
    return {
        "id": session.id,
        "created_at": session.created_at,
        "last_active": session.last_active,
        "ended_at": session.ended_at,
        "shell": _text(session.shell),
        "pid": session.pid,
        "tty": _text(session.tty),
        "user": _text(session.user),
        "host": _text(session.host),
        "data": json.dumps(mask_json(data, store_gate)),
    }


def session_from_row(row: Mapping[Any, Any], history: list[DirectCommandExecution]) -> Session:
    data = json.loads(row["data"] or "{}")
    return Session(
        id=row["id"],
        created_at=row["created_at"],
        last_active=row["last_active"],
        ended_at=row["ended_at"],
        shell=row["shell"],
        pid=row["pid"],
        tty=row["tty"],
        user=row["user"],
        host=row["host"],
        conversations=data.get("conversations", []),
        command_history=history,
        global_context=GlobalContext.model_validate(data.get("global_context", {})),
        settings=SessionSettings.model_validate(data.get("settings", {})),
    )


def conversation_row(conversation: Conversation) -> dict[str, Any]:
    return {
        "id": conversation.id,
        "session_id": conversation.session_id,
        "name": _text(store_gate(conversation.name)),
        "original_prompt": _text(store_gate(conversation.original_prompt)),
        "status": conversation.status.value,
        "created_at": conversation.created_at,
        "updated_at": conversation.updated_at,
        "finished_at": conversation.finished_at,
        "working_directory": _text(conversation.working_directory),
        "step_count": len(conversation.steps),
        "data": json.dumps(mask_json(conversation.model_dump(mode="json"), store_gate)),
    }


def conversation_from_row(row: Mapping[str, Any]) -> Conversation:
    return Conversation.model_validate_json(row["data"])


def achievement_row(
    conversation_id: str,
    name: str,
    working_directory: str,
    achievements: list[str],
    artifacts: list[str],
    completed_at: datetime,
) -> dict[str, Any]:
    """What a conversation achieved, masked, as the achievements table keeps it."""
    return {
        "conversation_id": conversation_id,
        "name": _text(store_gate(name)),
        "working_directory": _text(working_directory),
        "achievements": json.dumps(mask_json(list(achievements), store_gate)),
        "artifacts": json.dumps(mask_json(list(artifacts), store_gate)),
        "completed_at": completed_at,
    }


def llm_usage_row(
    provider: str,
    model: str,
    purpose: str,
    input_tokens: int,
    output_tokens: int,
    conversation_id: str | None,
    at: datetime | None,
) -> dict[str, Any]:
    """One model call's token usage as the llm_usage table keeps it."""
    return {
        "at": at or utcnow(),
        "provider": provider,
        "model": model,
        "purpose": purpose,
        "input_tokens": int(input_tokens),
        "output_tokens": int(output_tokens),
        "conversation_id": conversation_id,
    }
