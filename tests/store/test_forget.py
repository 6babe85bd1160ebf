"""`forget` reaches conversations and saved achievements, not only the command history."""

from __future__ import annotations

from parsec.models.parsec_model import utcnow
from parsec.models.workflow import Conversation


def test_forget_removes_matching_conversations_and_achievements(store):
    keep = Conversation(session_id="01J00000000000000000000000", name="list files", original_prompt="list files")
    hit = Conversation(
        session_id="01J00000000000000000000000", name="deploy", original_prompt='deploy with "secret-host" please'
    )
    store.save_conversation(keep)
    store.save_conversation(hit)
    store.save_achievements(hit.id, "deploy", "/srv", ["pushed to secret-host"], [], utcnow())
    store.save_achievements("01J00000000000000000000001", "old", "/srv", ["rsync to secret-host"], [], utcnow())
    store.save_achievements(keep.id, "list files", "/srv", ["listed"], [], utcnow())

    # Matched on the decoded text: the quotes are escaped in the stored JSON, not in the prompt.
    assert store.forget_conversations('with "secret-host"', regex=False, dry_run=True) == 1
    assert store.forget_conversations(r"secret-h\w+", dry_run=True) == 2  # hit + the orphan achievement
    assert {c.id for c in store.list_conversations()} == {keep.id, hit.id}  # a dry run removes nothing

    assert store.forget_conversations(r"secret-h\w+") == 2
    assert [c.id for c in store.list_conversations()] == [keep.id]
    assert [a["conversation_id"] for a in store.recent_achievements(limit=10)] == [keep.id]
    assert store.forget_conversations("secret-host") == 0
