"""The journal and the segment applier in-process, against a real SQLite store."""

from __future__ import annotations

import asyncio

from parsec.daemon.journal import Journal
from parsec.daemon.records import execution_record, session_record
from parsec.daemon.sessions import derived_id
from parsec.daemon.store_process import SegmentApplier
from parsec.models.session import DirectCommandExecution, Session
from parsec.store import open_store


def _execution(session: Session, seq: int) -> DirectCommandExecution:
    return DirectCommandExecution(
        id=derived_id(1.7e9 + seq, session.id, str(seq)), session_id=session.id, command=f"echo {seq}"
    )


def test_group_commit_keeps_every_append_in_order(tmp_path):
    session = Session()

    async def scenario() -> Journal:
        journal = Journal(tmp_path / "journal")
        journal.open()
        await journal.append(session_record(session, False), durable=False)
        await asyncio.gather(*(journal.append(execution_record(_execution(session, seq))) for seq in range(500)))
        assert journal.depth == 501
        await journal.rotate()
        journal.close()
        return journal

    asyncio.run(scenario())
    (segment,) = sorted((tmp_path / "journal").glob("*.jsonl"))
    lines = segment.read_bytes().splitlines()
    assert len(lines) == 501 and lines[0].startswith(b'{"k":"s"')
    assert [line.count(b"echo ") for line in lines[1:]] == [1] * 500
    reopened = Journal(tmp_path / "journal")
    reopened.open()
    assert reopened.depth == 501  # counted again from disk at start
    reopened.close()


def test_applier_skips_a_torn_line_and_deletes_the_segment(tmp_path):
    session = Session()
    segment = tmp_path / "000000000001.jsonl"
    records = [session_record(session, False)] + [execution_record(_execution(session, seq)) for seq in range(10)]
    segment.write_bytes(b"".join(records) + b'{"k":"e","d":{"id":"01J')  # kill -9 mid-write
    store = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    applier = SegmentApplier(lambda: store, batch_size=4)
    reply = applier.apply([str(segment)])
    assert reply["ok"] and reply["completed"] == [str(segment)] and not segment.exists()
    assert len(store.load_session(session.id).command_history) == 10
    # Applying the same records again (a crash before the delete) adds nothing.
    segment.write_bytes(b"".join(records))
    applier.apply([str(segment)])
    assert len(store.load_session(session.id).command_history) == 10
    assert any("not a record" in message for message in applier.log)
    store.close()


class RefusesOneId:
    """The real store, except that it refuses one execution id (a poison record)."""

    def __init__(self, store, bad_id: str) -> None:
        self.store, self.bad_id = store, bad_id

    def append_executions(self, batch):
        batch = list(batch)
        if any(item.id == self.bad_id for item in batch):
            raise ValueError("value out of range")
        return self.store.append_executions(batch)

    def __getattr__(self, name):
        return getattr(self.store, name)


def test_a_poison_record_is_set_aside_and_the_rest_stored(tmp_path):
    session = Session()
    executions = [_execution(session, seq) for seq in range(6)]
    segment = tmp_path / "000000000001.jsonl"
    segment.write_bytes(session_record(session, False) + b"".join(execution_record(e) for e in executions))
    real = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    applier = SegmentApplier(lambda: RefusesOneId(real, executions[3].id), batch_size=100)
    for _ in range(3):
        assert applier.apply([str(segment)])["ok"] is False  # blocked: retried as a whole
    reply = applier.apply([str(segment)])  # now record by record
    assert reply["ok"] is True and not segment.exists()
    stored = {item.id for item in real.load_session(session.id).command_history}
    assert stored == {e.id for i, e in enumerate(executions) if i != 3}
    rejected = (tmp_path / "rejected.jsonl").read_bytes()
    assert executions[3].id.encode() in rejected and rejected.count(b"\n") == 1
    real.close()


def test_derived_ids_are_ulids_and_stable():
    import hashlib
    import random

    from ulid import ULID

    rng = random.Random(7)
    for index in range(2000):
        when = rng.random() * 4e9
        millis = int(when * 1000)
        expected = ULID.from_bytes(millis.to_bytes(6, "big") + hashlib.sha256(f"s\x1f{index}".encode()).digest()[:10])
        assert derived_id(when, "s", str(index)) == str(expected)
    assert derived_id(1.7e9, "a", "1") == derived_id(1.7e9, "a", "1") != derived_id(1.7e9, "a", "2")
