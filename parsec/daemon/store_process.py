"""The store writer process: applies journal segments to the ContextStore, in order.

It runs apart from the daemon so SQLAlchemy and record validation never hold the daemon's GIL
while it answers shells. The first line on its stdin is its options (the store URL, which may hold
a PostgreSQL password: never in argv, which every local user can read in /proc/PID/cmdline). Then
the daemon drives it with JSON lines on stdin and reads one reply line per request on stdout:

    {"op": "apply", "segments": [path, ...], "progress": {path: lines}, "every_s": seconds}
        → {"ok", "completed", "progress", "written", "last_error", "log"}
    {"op": "prune", "policy": {...}}          → {"ok", "report", "last_error", "log"}

While an apply runs, it also writes `{"op": "progress", "progress", "written"}` after a commit, at
most every `every_s` (default PROGRESS_EVERY_S): a busy writer is told from a hung one by its progress, not by
how long the whole answer takes (a long backlog takes minutes). `progress` in the request is what
the daemon already knows is in the store (lines per segment), from a writer it replaced: those
lines are not applied again.

It ignores SIGTERM/SIGINT (the daemon decides when it stops) and exits when stdin closes, so it
never outlives a daemon killed with -9. A segment it applied completely is deleted. Ids are
deterministic, so a segment applied twice (a crash between commit and delete) duplicates
nothing. A record the store rejects again and again while it is otherwise reachable is set aside
in `rejected.jsonl`, so it cannot block everything behind it.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NotFound, StoreNotWritable, StoreUnavailable
from ..models.session import DirectCommandExecution, Session
from .records import decode_record

if TYPE_CHECKING:
    from ..store.protocols import ContextStore

POISON_AFTER = 3  # failures of one segment while the store answers before going record by record
PROGRESS_EVERY_S = 1.0


class SegmentApplier:
    def __init__(
        self,
        open_store: Callable[[], ContextStore],
        batch_size: int,
        on_progress: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._open_store = open_store
        self._on_progress = on_progress
        self._progress_every_s = PROGRESS_EVERY_S
        self._progress_sent = time.monotonic()
        self.batch_size = batch_size
        self.store: ContextStore | None = None
        self.written = 0
        self.last_error: str | None = None
        self.log: list[str] = []  # messages for the daemon's log, sent with the next reply
        self.progress: dict[str, int] = {}  # lines of a segment already in the store
        self._failures: dict[str, int] = {}

    def apply(
        self, segments: list[str], known: dict[str, int] | None = None, every_s: float = PROGRESS_EVERY_S
    ) -> dict[str, Any]:
        self._progress_every_s = every_s
        for segment, lines in (known or {}).items():
            self.progress[segment] = max(self.progress.get(segment, 0), lines)
        completed: list[str] = []
        ok = True
        for segment in segments:
            if not self._apply_segment(Path(segment)):
                ok = False
                break
            self.progress.pop(segment, None)
            self._failures.pop(segment, None)
            Path(segment).unlink(missing_ok=True)
            completed.append(segment)
        if ok:
            self.last_error = None
        return {"ok": ok, "completed": completed, "progress": dict(self.progress), "written": self.written}

    def prune(self, policy: dict[str, Any]) -> dict[str, Any]:
        from ..models.retention import RetentionPolicy

        try:
            report = self._ensure_store().prune_old_context(RetentionPolicy.model_validate(policy))
        except Exception as err:
            self._close_store()
            return {"ok": False, "report": None, "error": _describe(err)}
        return {"ok": True, "report": str(report)}

    def warm_up(self) -> None:
        """Import the store and open it now, while the daemon starts: the first apply is the
        flush of `parsec history` right after a shell's first command, which otherwise waited for
        this (2-3 s on a loaded machine, at nice 10) and gave up before the command was stored.
        A store that cannot be opened yet is opened again by the first apply, which reports why."""
        try:
            self._ensure_store()
        except Exception:
            self._close_store()

    # --- internals -------------------------------------------------------------------------
    def _ensure_store(self) -> ContextStore:
        if self.store is None:
            self.store = self._open_store()
        return self.store

    def _close_store(self) -> None:
        if self.store is not None:
            try:
                self.store.close()
            except Exception:
                pass
            self.store = None

    def _apply_segment(self, segment: Path) -> bool:
        key = str(segment)
        try:
            store = self._ensure_store()
        except Exception as err:
            return self._failed(f"cannot open the store: {_describe(err)}")
        one_by_one = self._failures.get(key, 0) >= POISON_AFTER
        try:
            self._apply_lines(store, segment, one_by_one)
        except FileNotFoundError:
            return True  # already applied and deleted (a retry after a lost reply)
        except Exception as err:
            if not _is_unavailable(err):  # only a refusal by a working store points at a bad record
                self._failures[key] = self._failures.get(key, 0) + 1
            self._close_store()  # a broken connection pool is rebuilt on the next try
            if isinstance(err, StoreNotWritable):
                return self._failed(str(err))  # "store not writable: disk full (path; …)"
            return self._failed(f"store write failed: {_describe(err)}")
        return True

    def _apply_lines(self, store: ContextStore, segment: Path, one_by_one: bool) -> None:
        key = str(segment)
        seen = skip = self.progress.get(key, 0)
        batch: list[tuple[DirectCommandExecution, bytes]] = []
        with segment.open("rb") as handle:
            for index, line in enumerate(handle):
                if index < skip:
                    continue
                seen = index + 1
                record = decode_record(line)
                if record is None:
                    self.log.append(f"journal {segment.name} line {seen} is not a record; skipped")
                elif record[0] == "e":
                    batch.append((record[1], line))
                else:
                    self._append(store, batch, segment, one_by_one)
                    batch = []
                    session, partial = record[1], record[2]
                    self._guarded(
                        segment, line, one_by_one, functools.partial(self._save_session, store, session, partial)
                    )
                if len(batch) >= (1 if one_by_one else self.batch_size):
                    self._append(store, batch, segment, one_by_one)
                    batch = []
                if not batch:
                    self.progress[key] = seen
                    self._report_progress()
        self._append(store, batch, segment, one_by_one)
        self.progress[key] = seen

    def _report_progress(self) -> None:
        if self._on_progress is not None and time.monotonic() - self._progress_sent >= self._progress_every_s:
            self._progress_sent = time.monotonic()
            self._on_progress({"op": "progress", "progress": dict(self.progress), "written": self.written})

    def _append(
        self, store: ContextStore, batch: list[tuple[DirectCommandExecution, bytes]], segment: Path, one_by_one: bool
    ) -> None:
        if not batch:
            return
        executions = [execution for execution, _ in batch]
        self._guarded(segment, batch[0][1], one_by_one, lambda: store.append_executions(executions))
        self.written += len(batch)

    def _guarded(self, segment: Path, line: bytes, one_by_one: bool, action: Callable[[], Any]) -> None:
        if not one_by_one:
            action()
            return
        try:
            action()
        except Exception as err:
            if _is_unavailable(err):
                raise
            self.log.append(f"the store rejects a record of {segment.name} ({_describe(err)}); kept in rejected.jsonl")
            with (segment.parent / "rejected.jsonl").open("ab") as handle:
                handle.write(line if line.endswith(b"\n") else line + b"\n")

    def _save_session(self, store: ContextStore, session: Session, partial: bool) -> None:
        if partial:
            # Built from a command message after a restart: keep what the store already knows.
            try:
                known = store.load_session(session.id, history_limit=0)
            except NotFound:
                known = None
            if known is not None:
                known.command_history = []
                known.last_active = max(known.last_active, session.last_active)
                if session.ended_at is not None and known.ended_at is None:
                    known.ended_at = session.ended_at
                session = known
        store.save_session(session)

    def _failed(self, message: str) -> bool:
        if message != self.last_error:
            self.log.append(f"{message}; records stay in the journal and are retried")
        self.last_error = message
        return False


def _describe(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f"{type(err).__name__}: {text}"[:300]


def _is_unavailable(err: BaseException) -> bool:
    """A fault of the store (down, busy, disk full, read-only), not of the record: never rejected."""
    if isinstance(err, (StoreUnavailable, OSError, MemoryError)):
        return True
    if type(err).__name__ in ("OperationalError", "InterfaceError", "DisconnectionError"):
        return True
    text = str(err).lower()
    faults = ("disk is full", "no space left", "readonly", "read-only", "disk i/o error", "malformed")
    return any(sign in text for sign in faults)  # malformed: a damaged file, not a bad record


def _die_with_the_daemon() -> None:
    """SIGKILL when the daemon dies (Linux's PR_SET_PDEATHSIG): stdin's end is read only between
    requests, and a long apply on a loaded machine outlived a daemon killed with -9. What it had
    not committed stays in the journal."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the end of stdin still stops it
    if os.getppid() == 1:
        sys.exit(0)  # the daemon died before that took effect


def main() -> int:
    _die_with_the_daemon()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # batch work: let the daemon's replies (and the shells) have the CPU first
        os.nice(10)
    except OSError:
        pass
    options = json.loads(sys.stdin.readline() or "null")
    if not isinstance(options, dict):
        return 2  # the daemon closed the pipe before sending them

    def open_store() -> ContextStore:
        from ..store import open_store as open_configured

        # durable: a segment is deleted right after the store committed it (docs/daemon.md, Durability)
        return open_configured(
            options["url"],
            busy_timeout_ms=options["busy_timeout_ms"],
            connect_timeout_s=options["connect_timeout_s"],
            durable=True,
        )

    def send(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    applier = SegmentApplier(open_store, options["batch_size"], on_progress=send)
    applier.warm_up()
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "apply":
            reply = applier.apply(
                request["segments"], request.get("progress"), request.get("every_s", PROGRESS_EVERY_S)
            )
        elif request["op"] == "prune":
            reply = applier.prune(request["policy"])
        else:
            reply = {"ok": False}
        reply.update(last_error=applier.last_error, log=applier.log)
        applier.log = []
        send(reply)
    applier._close_store()
    return 0


if __name__ == "__main__":
    sys.exit(main())
