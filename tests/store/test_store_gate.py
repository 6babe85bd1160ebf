"""The store boundary masks every record, whoever wrote it (issue 13: one gate at the store).

Each write path gets a record carrying secrets straight through the store API, bypassing the
masking writers do upstream; nothing of them reaches the database, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from parsec.models.parsec_model import new_id
from parsec.models.session import DirectCommandExecution, GlobalContext, Session
from parsec.models.text import TruncatedText
from parsec.models.workflow import Conversation
from parsec.privacy.masking import configure_store_gate
from parsec.store.sqlite_url import sqlite_file

GH = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2J3k4"
PW = "Hunter2secretPw"
LINE = f"export GITHUB_TOKEN={GH}; mysql -u root -p{PW} shop"


def _dump(store) -> str:
    tables = ("executions", "sessions", "conversations", "preferences", "achievements")
    with store.engine.connect() as connection:
        from sqlalchemy import text

        return json.dumps(
            [[list(map(str, row)) for row in connection.execute(text(f"select * from {t}"))] for t in tables]
        )


def _write_everything(store) -> None:
    session = Session(
        shell="bash", global_context=GlobalContext(working_directory="/tmp", environment_snapshot={"NOTE": LINE})
    )
    store.save_session(session)
    store.append_executions(
        [
            DirectCommandExecution(
                session_id=session.id,
                command=LINE,
                stdout=TruncatedText.from_output(f"ok\n{LINE}\n", limit=1000),
                stderr=TruncatedText.from_output(LINE, limit=1000),
            )
        ]
    )
    conversation = Conversation(session_id=session.id, name=f"deploy {GH}", original_prompt=LINE, error=LINE)
    conversation.context_summary.key_achievements.append(LINE)
    store.save_conversation(conversation)
    store.set_preference("classifier", f"{GH}|w|1", {"choice": "command", "example": LINE})
    store.save_achievements(conversation.id, f"deploy {GH}", "/tmp", [LINE], [LINE], datetime.now(UTC))


def test_every_write_path_is_masked_at_the_store(store) -> None:
    _write_everything(store)
    stored = _dump(store)
    assert GH not in stored and PW not in stored
    assert "[REDACTED:" in stored
    [execution] = store.query_executions(
        __import__("parsec.store.protocols", fromlist=["ExecutionQuery"]).ExecutionQuery()
    )
    assert execution.command == "export GITHUB_TOKEN=[REDACTED:github_token]; mysql -u root -p[REDACTED:password] shop"


def test_sqlite_file_holds_no_secret_byte(sqlite_url) -> None:
    from parsec.store import open_store

    store = open_store(sqlite_url)
    _write_everything(store)
    store.close()
    data = b"".join(p.read_bytes() for p in sqlite_file(sqlite_url).parent.glob(sqlite_file(sqlite_url).name + "*"))
    assert GH.encode() not in data and PW.encode() not in data


@pytest.fixture
def masking_off():
    configure_store_gate(False)
    yield
    configure_store_gate(True)


def test_mask_secrets_off_is_the_users_choice_at_the_store_too(store, masking_off) -> None:
    store.append_executions([DirectCommandExecution(session_id=new_id(), command=LINE)])
    assert GH in _dump(store)


def test_a_conversation_saved_again_is_masked_again_under_the_policy_of_the_moment(store) -> None:
    """A conversation's masking is remembered between its saves (issue 26, item 5); what is
    remembered follows the policy: the same text saved with masking off, then on, is stored as
    the policy of each save says."""
    conversation = Conversation(session_id=new_id(), name="x", original_prompt="p", working_directory="/tmp")
    conversation.context_summary.key_achievements.append(LINE)
    configure_store_gate(False)
    try:
        store.save_conversation(conversation)
        assert GH in _dump(store)
    finally:
        configure_store_gate(True)
    store.save_conversation(conversation)
    store.save_conversation(conversation)  # remembered: the same result
    assert GH not in _dump(store) and PW not in _dump(store)
    assert store.load_conversation(conversation.id).context_summary.key_achievements == [
        "export GITHUB_TOKEN=[REDACTED:github_token]; mysql -u root -p[REDACTED:password] shop"
    ]
