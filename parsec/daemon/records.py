"""The journal's record format: one JSON line per session snapshot or execution."""

from __future__ import annotations

import json
from typing import Any

from ..models.session import DirectCommandExecution, Session


def session_record(session: Session, partial: bool) -> bytes:
    data = session.model_dump_json(exclude={"command_history"}).encode()
    return b'{"k":"s","p":%s,"d":%s}\n' % (b"true" if partial else b"false", data)


def execution_record(execution: DirectCommandExecution) -> bytes:
    return b'{"k":"e","d":%s}\n' % execution.model_dump_json().encode()


def decode_record(line: bytes) -> tuple[str, Any, bool] | None:
    """("s", Session, partial) or ("e", DirectCommandExecution, False); None for a torn line."""
    try:
        data = json.loads(line)
        if data["k"] == "s":
            return "s", Session.model_validate(data["d"]), bool(data.get("p"))
        if data["k"] == "e":
            return "e", DirectCommandExecution.model_validate(data["d"]), False
    except Exception:  # a torn or foreign line must never stop the writer
        return None
    return None
