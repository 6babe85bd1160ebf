from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from parsec.models import (
    ContextItem,
    ContextType,
    DirectCommandExecution,
    ImportanceLevel,
    RetentionPolicy,
    Session,
    new_id,
)


def test_ids_are_sortable_ulids():
    first, second = new_id(), new_id()
    assert len(first) == 26 and first <= second
    with pytest.raises(ValidationError):
        Session(id="not-a-ulid")


def test_times_are_utc_aware():
    naive = datetime(2026, 1, 1, 12, 0)
    plus_two = datetime(2026, 1, 1, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    session = Session(created_at=naive, last_active=plus_two)
    assert session.created_at.tzinfo == UTC
    assert session.last_active == session.created_at  # 14:00+02:00 is 12:00 UTC


def test_execution_cleans_nul_and_keeps_the_command():
    execution = DirectCommandExecution(session_id=new_id(), command="echo a\x00b", exit_status=0)
    assert execution.command == "echo a\u2400b"
    assert execution.succeeded


def test_unknown_fields_are_rejected():
    with pytest.raises(ValidationError):
        DirectCommandExecution(session_id=new_id(), command="ls", colour="blue")


def test_context_item_scores_are_bounded():
    with pytest.raises(ValidationError):
        ContextItem(content="x", relevance_score=1.5, context_type=ContextType.command)
    item = ContextItem(content="x", context_type="error", importance_level="critical")
    assert item.importance_level.rank > ImportanceLevel.low.rank


def test_retention_policy_rejects_negative_values():
    with pytest.raises(ValidationError):
        RetentionPolicy(session_retention_days=-1)
