"""The daemon: an asyncio server on the owner-only Unix socket (peer uid checked) and the shells'
FIFO in the same private directory (hook_channel.py). Nothing listens on a network port.

A reply never waits for the store: records go to the journal (written, group-committed, before a
`command_finished` is acknowledged; fdatasynced in the background, see journal.py) and the store
writer moves them on in batches.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

import psutil

from .. import __version__
from ..config import Settings
from ..protocol import endpoints
from ..protocol import messages as m
from ..protocol import replies as r
from ..protocol.code_id import code_id
from ..protocol.framing import ConnectionClosed, MessageTooLarge, read_line
from ..routing import Classifier, reads_like_prose
from .hook_channel import HookChannel
from .hook_spool import HookSpool
from .journal import Journal, JournalError, journal_dir
from .process_tree import TreeUsage
from .records import execution_record, session_record
from .scheduler import Scheduler
from .sessions import Records, SessionRecorder
from .writer import StoreWriter

if TYPE_CHECKING:
    from ..privacy.filters import PrivacyFilter


log = logging.getLogger("parsec.daemon")

MAX_CONNECTIONS = 1024  # one per shell, plus CLI calls; bounds memory
DRAIN_TIMEOUT_S = 10.0
_PEERCRED = struct.Struct("3i")  # pid, uid, gid


def public_url(url: str) -> str:
    """A store URL without its password, for `status` and the log."""
    head, sep, tail = url.partition("://")
    if sep and "@" in tail:
        auth, _, host = tail.rpartition("@")
        user = auth.split(":", 1)[0]
        return f"{head}://{user}:***@{host}" if ":" in auth else url
    return url


class Daemon:
    def __init__(self, settings: Settings, runtime: Path, privacy_filter: PrivacyFilter) -> None:
        cfg = settings.daemon
        self.settings = settings
        self.runtime = runtime
        self.limit = cfg.max_message_bytes
        self.timeout = cfg.client_timeout_s
        self.journal = Journal(journal_dir(), max_held_bytes=cfg.max_held_journal_bytes)
        self.writer = StoreWriter(
            self.journal,
            {
                "url": settings.store_url(),
                "busy_timeout_ms": settings.store.busy_timeout_ms,
                "connect_timeout_s": settings.store.connect_timeout_s,
                "batch_size": cfg.batch_size,
            },
        )
        self.recorder = SessionRecorder(
            privacy_filter,
            privacy_mode=settings.context_management.privacy_mode,
            output_limit=settings.context_pruning.max_command_output_length,
            max_pending_output_bytes=cfg.max_pending_output_bytes,
        )
        self.hook_spool = HookSpool([endpoints.runtime_spool_dir(runtime)], self)
        self.scheduler = Scheduler()
        self.store_url = public_url(settings.store_url())
        self.hook_channel = HookChannel(runtime, self.handle_line, self.limit)
        self.started = time.time()
        self.code_id = code_id()  # of the code this process started with: `status` compares it
        self.requests = 0
        self.last_error: str | None = None  # the daemon's own (the store writer keeps its own)
        self.stopping = asyncio.Event()
        self._servers: list[asyncio.AbstractServer] = []
        self._clients: set[asyncio.Task[None]] = set()
        self._busy: set[asyncio.Task[None]] = set()
        self._classifier: asyncio.Future[Classifier | None] | None = None
        self._usage = TreeUsage(psutil.Process())  # with the store writer: status counts both

    # --- lifecycle -------------------------------------------------------------------------
    async def serve(self) -> None:
        self.journal.open()
        sock_path = endpoints.socket_path(self.runtime)
        sock_path.unlink(missing_ok=True)  # we hold the lock: any socket left here is stale
        unix = await asyncio.start_unix_server(self._client, path=str(sock_path), limit=self.limit + 1)
        os.chmod(sock_path, 0o600)
        self._servers = [unix]
        self.hook_channel.open()
        cfg = self.settings.daemon
        # The flush sleeps while every record is in the store: an idle daemon wakes only for the
        # spool (every 2 s) and the session check.
        self.scheduler.every(
            "flush", cfg.flush_interval_ms / 1000, self.writer.flush, wait_for_work=self.journal.wait_for_records
        )
        self.scheduler.every("close dead sessions", cfg.session_check_interval_s, self._reap_sessions)
        self.scheduler.every("hook spool", 2.0, self.hook_spool.ingest, first_delay=0.0)
        if cfg.prune_interval_hours > 0:
            interval = cfg.prune_interval_hours * 3600
            self.scheduler.every("retention prune", interval, self._prune, first_delay=min(interval, 600.0))
        self.scheduler.start()
        asyncio.ensure_future(self._get_classifier())  # warm it up before the first Enter key
        asyncio.ensure_future(self.writer.warm_up())
        log.info(
            "daemon %s listening on %s and %s (pid %d, store %s)",
            __version__,
            sock_path,
            endpoints.hook_fifo(self.runtime),
            os.getpid(),
            self.store_url,
        )
        await self.stopping.wait()
        await self._drain()

    def stop(self) -> None:
        self.stopping.set()

    async def _drain(self) -> None:
        """Stop listening, answer what is in flight, put every queued record in the store, exit."""
        log.info("stopping: draining %d connections", len(self._busy))
        for server in self._servers:
            server.close()
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        await self.hook_channel.close(timeout=DRAIN_TIMEOUT_S)
        while self._busy and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for task in list(self._clients):
            task.cancel()
        await asyncio.gather(*self._clients, return_exceptions=True)
        await self.scheduler.stop()
        await self.hook_spool.ingest()
        await self.journal.commit()
        # No wall-clock bound here: the writer's own guard ends a call that stops making progress
        # (writer.HUNG_AFTER_S), and a busy one on a loaded machine is let finish (issue 27).
        flushed = await self.writer.flush(force=True)
        if not flushed:
            log.warning(
                "store not reachable at exit: %d records stay in the journal for the next start", self.journal.depth
            )
        await self.writer.close()
        self.journal.close()
        endpoints.socket_path(self.runtime).unlink(missing_ok=True)
        log.info("stopped")

    # --- connections -----------------------------------------------------------------------
    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self._clients) >= MAX_CONNECTIONS or self.stopping.is_set():
            writer.close()
            return
        self._clients.add(task)
        try:
            # The peer's uid is checked before a byte of it is read: another user (were the
            # directory's modes loosened) is answered once and closed, holding nothing.
            if not self._same_user(writer):
                writer.write(
                    m.encode(r.ErrorReply.of(None, "unauthorized", "this daemon belongs to another user").wire())
                )
                async with asyncio.timeout(1.0):
                    await writer.drain()
                return
            conn: dict[str, Any] = {"transport": "socket"}
            while True:
                try:
                    async with asyncio.timeout(self.timeout):
                        line = await read_line(reader)
                except MessageTooLarge:
                    writer.write(
                        m.encode(
                            r.ErrorReply.of(None, "too_large", f"messages are limited to {self.limit} bytes").wire()
                        )
                    )
                    return
                except (ConnectionClosed, TimeoutError):
                    return
                if not line.strip():
                    continue
                self._busy.add(task)
                try:
                    reply = await self.handle_line(line, conn)
                finally:
                    self._busy.discard(task)
                if reply is not None:
                    writer.write(m.encode(reply))
                    if writer.transport.get_write_buffer_size() > 65536:
                        async with asyncio.timeout(self.timeout):  # one that never reads is dropped
                            await writer.drain()
                if conn.get("close") or self.stopping.is_set():
                    return
        except (ConnectionError, OSError, TimeoutError):
            pass
        finally:
            self._clients.discard(task)
            writer.close()

    def _same_user(self, writer: asyncio.StreamWriter) -> bool:
        sock: socket.socket = writer.get_extra_info("socket")
        try:
            _, uid, _ = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
        except OSError:
            return False
        if uid != os.getuid():
            log.warning("refused a connection from uid %d", uid)
            return False
        return True

    async def handle_line(self, line: bytes, conn: dict[str, Any]) -> dict[str, Any] | None:
        self.requests += 1
        try:
            request = m.parse_request(line)
        except m.BadMessage as err:
            req_id, noreply = m.envelope(line)
            if noreply and not conn.get("sees_refusals"):
                return None
            return r.ErrorReply.of(req_id, err.code, str(err)).wire()
        try:
            reply = await self._dispatch(request, conn)
        except JournalError as err:
            self.last_error = f"{time.strftime('%H:%M:%S')} {err}"
            reply = r.ErrorReply.of(request.id, "unavailable", str(err))
        except Exception as err:  # a bug in one handler must not take the daemon down
            log.exception("internal error handling %s", request.type)
            reply = r.ErrorReply.of(request.id, "internal", f"{type(err).__name__}: {err}"[:300])
        if request.noreply and not conn.get("sees_refusals"):  # the spool and FIFO readers retry refusals
            if isinstance(reply, r.ErrorReply):
                log.debug("noreply %s refused: %s", request.type, reply.error.code)
            return None  # the hook is not reading: a reply would be taken for the next answer
        return reply.wire()

    # --- handlers --------------------------------------------------------------------------
    def _dispatch(self, req: m.AnyRequest, conn: dict[str, Any]) -> Awaitable[r.Reply | r.ErrorReply]:
        """The handler table: one case per member of `m.AnyRequest`, most frequent first. A
        request type without a case fails mypy at `assert_never` (and tests/daemon/test_replies.py
        at run time)."""
        match req:
            case m.CommandFinished():
                return self._command_finished(req, conn)
            case m.Classify():
                return self._classify(req, conn)
            case m.SessionStart():
                return self._session_start(req, conn)
            case m.CommandOutput():
                return self._command_output(req, conn)
            case m.CommandStarted():
                return self._command_started(req, conn)
            case m.SessionEnd():
                return self._session_end(req, conn)
            case m.ClassifyFeedback():
                return self._classify_feedback(req, conn)
            case m.CurrentSession():
                return self._current_session(req, conn)
            case m.Flush():
                return self._flush(req, conn)
            case m.Status():
                return self._status(req, conn)
            case m.Hello():
                return self._hello(req, conn)
            case m.Ping():
                return self._ping(req, conn)
            case m.ClassifierReload():
                return self._classifier_reload(req, conn)
            case _:
                assert_never(req)

    async def _hello(self, req: m.Hello, conn: dict[str, Any]) -> r.HelloReply | r.ErrorReply:
        return r.HelloReply(id=req.id, version=__version__)

    async def _ping(self, req: m.Ping, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        return r.Ack(id=req.id)

    async def _session_start(self, req: m.SessionStart, conn: dict[str, Any]) -> r.SessionStartReply | r.ErrorReply:
        session, records = self.recorder.start(req)
        await self._journal(records)
        return r.SessionStartReply(id=req.id, session_id=session.id)

    async def _command_started(self, req: m.CommandStarted, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        await self._journal(self.recorder.command_started(req))
        return r.Ack(id=req.id)

    async def _command_finished(
        self, req: m.CommandFinished, conn: dict[str, Any]
    ) -> r.CommandFinishedReply | r.ErrorReply:
        records = await self.recorder.command_finished(req)
        await self._journal(records)
        return r.CommandFinishedReply(id=req.id, recorded=bool(records.executions))

    async def _command_output(self, req: m.CommandOutput, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        self.recorder.command_output(req)
        return r.Ack(id=req.id)

    async def _session_end(self, req: m.SessionEnd, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        await self._journal(await self.recorder.end(req.session))
        return r.Ack(id=req.id)

    async def _classify(self, req: m.Classify, conn: dict[str, Any]) -> r.ClassifyReply | r.ErrorReply:
        if req.after_127:  # needs no learned choices, so not the classifier either
            return _after_command_not_found(req)
        classifier = await self._get_classifier()
        if classifier is None:
            return r.ErrorReply.of(req.id, "unavailable", "classifier unavailable")
        decision = classifier.classify(
            req.text, first_word=req.first_word, parses=req.parses, cwd=req.cwd, shell=req.shell
        )
        return r.ClassifyReply(id=req.id, **decision.as_dict())

    async def _classify_feedback(self, req: m.ClassifyFeedback, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        classifier = await self._get_classifier()
        if classifier is None:
            return r.ErrorReply.of(req.id, "unavailable", "classifier unavailable")
        await asyncio.get_running_loop().run_in_executor(
            None, classifier.answered, req.text, req.first_word, req.chosen
        )
        return r.Ack(id=req.id)

    async def _classifier_reload(self, req: m.ClassifierReload, conn: dict[str, Any]) -> r.Ack | r.ErrorReply:
        if self._classifier is not None and self._classifier.done():  # not loaded yet: nothing stale
            classifier = self._classifier.result()
            if classifier is not None:
                await asyncio.get_running_loop().run_in_executor(None, classifier.reload)
        return r.Ack(id=req.id)

    async def _status(self, req: m.Status, conn: dict[str, Any]) -> r.StatusReply | r.ErrorReply:
        return r.StatusReply(id=req.id, **self.status())

    async def _current_session(
        self, req: m.CurrentSession, conn: dict[str, Any]
    ) -> r.CurrentSessionReply | r.ErrorReply:
        return r.CurrentSessionReply(id=req.id, session_id=self.recorder.session_id(key=req.session, pid=req.pid))

    async def _flush(self, req: m.Flush, conn: dict[str, Any]) -> r.FlushReply | r.ErrorReply:
        refused = await self.hook_spool.catch_up()  # fish's last commands wait there (hook_spool.py)
        in_store = await self.writer.flush_within(self.writer.hung_after_s)
        return r.FlushReply(
            id=req.id,
            in_store=in_store,
            queue_depth=self.journal.depth,
            store_problem=None if in_store else self.writer.problem,
            spool_refused=refused,
        )

    # --- helpers ---------------------------------------------------------------------------
    async def _journal(self, records: Records) -> None:
        for session, partial in records.sessions:
            await self.journal.append(session_record(session, partial), durable=False)
        # Commit rounds are written in order: waiting for the last record covers the ones before.
        for index, execution in enumerate(records.executions, 1):
            await self.journal.append(execution_record(execution), durable=index == len(records.executions))

    async def _reap_sessions(self) -> None:
        self.hook_channel.prune_dead_shells()
        for records in await self.recorder.reap_dead():
            await self._journal(records)
        await self._journal(self.recorder.due_saves())

    async def _prune(self) -> None:
        policy = self.settings.context_management.retention_policy()
        await self.writer.flush(force=True)
        report = await self.writer.prune(policy.model_dump())
        log.info("retention prune: %s", report)

    async def _get_classifier(self) -> Classifier | None:
        """The classifier, built once on a worker thread (it reads learned choices from the store)."""
        if self._classifier is None:
            self._classifier = asyncio.get_running_loop().run_in_executor(None, self._build_classifier)
        return await self._classifier

    def _build_classifier(self) -> Classifier | None:
        try:
            from ..store import open_store_from

            store = open_store_from(self.settings)
        except Exception as err:  # learned choices are a bonus; classification works without them
            log.warning("the classifier runs without learned choices: %s", err)
            store = None
        try:
            return Classifier(store=store, settings=self.settings)
        except Exception:
            log.exception("the classifier cannot start")
            return None

    def status(self) -> dict[str, Any]:
        rss, cpu, processes = self._usage.read()
        return {
            "pid": os.getpid(),
            "version": __version__,
            "code_id": self.code_id,
            "uptime_s": round(time.time() - self.started, 1),
            "rss_bytes": rss,
            "cpu_percent": cpu,
            "processes": processes,
            "sessions_open": self.recorder.open_count,
            "connections": len(self._clients),
            "requests_served": self.requests,
            "queue_depth": self.journal.depth,
            "records_written": self.writer.written,
            "store_url": self.store_url,
            "store_ok": self.writer.store_ok,
            "store_problem": self.writer.problem,
            "journal_problem": self.journal.problem,
            "journal_held_records": self.journal.held_records,
            "journal_settled": self.journal.settled,
            "hook_records_waiting": self.hook_channel.waiting_records,
            **self.recorder.outputs.describe(),
            "last_error": self.journal.problem or self.writer.last_error or self.last_error or self.journal.last_error,
            "jobs": self.scheduler.describe(),
        }


def _after_command_not_found(req: m.Classify) -> r.ClassifyReply:
    """The exit-127 check: stricter than the live decision, so a typo (`gti status`) is never
    offered to Parsec while a sentence (`tidy up the readme`) is."""
    if reads_like_prose(req.text):
        return r.ClassifyReply(
            id=req.id, decision="prompt", confidence=0.8, reason="command not found, and the line reads like a sentence"
        )
    return r.ClassifyReply(
        id=req.id,
        decision="command",
        confidence=0.8,
        reason="command not found, but the line reads like a mistyped command",
    )
