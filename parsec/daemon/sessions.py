"""Session recording: shell session keys → Sessions, command messages → executions.

Everything here runs on the event loop and is pure bookkeeping; what must be stored is returned
as records for the journal. Ids are derived from what the shell sends (session key, seq), so a
message replayed from a spool file, or resent after a daemon restart, maps to the same rows.
Masking a long command or output is the one slow step: it runs on a worker thread, so the loop
keeps answering other shells meanwhile (see _masked).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import psutil

from .. import directory_facts
from ..models.session import DirectCommandExecution, GlobalContext, Session, SessionSettings
from ..models.session_ids import derived_id, epoch, key_pid, key_time
from ..models.text import TruncatedText
from ..privacy.memory import SecretValues
from ..protocol.messages import CommandFinished, CommandOutput, CommandStarted, SessionStart
from .output_buffer import OutputBuffer

# Looked up on the daemon's event loop for each new directory or PATH, so cached here; a
# workflow step asks `directory_facts` directly, since its directory changes under it.
detect_project_type = lru_cache(maxsize=512)(directory_facts.detect_project_type)
tools_on_path = lru_cache(maxsize=64)(directory_facts.tools_on_path)
tool_of = directory_facts.tool_of

MAX_LIVE_SESSIONS = 4096  # beyond this the least recently active session is forgotten (not lost)
MAX_PENDING_PER_SESSION = 64  # started-but-unfinished commands remembered per session
SESSION_SAVE_INTERVAL_S = 30.0  # last_active reaches the store at most this often per session
# Texts (command + output) longer than this are masked on a worker thread: 1 MB costs 30-100 ms
# (bench/masking.py), 16 KB under 2 ms, less than the hop to a thread is worth on the loop.
OFF_LOOP_CHARS = 16 * 1024
# The ids are derived in parsec/models/session_ids.py, so the CLI computes the same ones.
_epoch, _key_time, _key_pid = epoch, key_time, key_pid


@dataclass
class LiveSession:
    key: str
    session: Session
    started: OrderedDict[int, CommandStarted] = field(default_factory=OrderedDict)
    last_saved: float = float("-inf")  # monotonic time it was last journaled
    last_saved_wall: float = 0.0  # its last_active (epoch) at that time
    active: float = 0.0  # epoch of the last message; copied to session.last_active when saved
    partial: bool = False  # created from a command message: the store may know it better
    # Secret values this shell has shown (keyed hashes only): masked wherever they appear again.
    secret_values: SecretValues = field(default_factory=SecretValues)
    # Held while one of this shell's records is masked: its records are masked, and so reach the
    # journal, in message order, and a secret found in one is known when masking the next.
    masking: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class Records:
    """What a message produced for the journal."""

    sessions: list[tuple[Session, bool]] = field(default_factory=list)  # (session, partial)
    executions: list[DirectCommandExecution] = field(default_factory=list)


class SessionRecorder:
    def __init__(
        self,
        privacy_filter,
        privacy_mode: bool,
        output_limit: int,
        host: str | None = None,
        max_pending_output_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.filter = privacy_filter
        self.outputs: OutputBuffer[CommandOutput] = OutputBuffer(max_pending_output_bytes)  # of all sessions, one bound
        self.privacy_mode = privacy_mode
        self.output_limit = output_limit
        self.host = host or socket.gethostname()
        self.live: OrderedDict[str, LiveSession] = OrderedDict()
        self.by_pid: dict[int, str] = {}

    # --- messages --------------------------------------------------------------------------
    def start(self, msg: SessionStart) -> tuple[Session, Records]:
        live = self._get(msg.session, create=True, partial=False)
        session = live.session
        session.shell = msg.shell or session.shell
        session.pid = msg.pid if msg.pid is not None else session.pid
        session.tty, session.user = msg.tty or session.tty, msg.user or session.user
        session.host = msg.host or session.host
        # A shell resends session_start on every new connection; what it leaves out is kept.
        previous = session.global_context
        env = previous.environment_snapshot
        if msg.env:
            live.secret_values.remember_environment(msg.env)
            env = {} if self.privacy_mode else self.filter.filter_environment(msg.env)
        cwd = msg.cwd or previous.working_directory
        on_path = tools_on_path(msg.env.get("PATH", os.environ.get("PATH", "")))
        session.global_context = GlobalContext(
            working_directory=cwd,
            environment_snapshot=env,
            detected_project_type=detect_project_type(cwd),
            active_tools=list(dict.fromkeys([*previous.active_tools, *on_path])),
        )
        session.settings = SessionSettings(privacy_mode=self.privacy_mode)
        if session.pid is not None:
            self.by_pid[session.pid] = msg.session
        live.partial = False
        return session, Records(sessions=[self._saved(live)])

    def command_started(self, msg: CommandStarted) -> Records:
        live = self._get(msg.session, create=True)
        live.started[msg.seq] = msg
        _bound(live.started)
        return self._touch(live)

    def command_output(self, msg: CommandOutput) -> None:
        live = self._get(msg.session, create=True)
        if not self.privacy_mode:
            self.outputs.put(live.key, msg.seq, msg, len(msg.output))

    async def command_finished(self, msg: CommandFinished) -> Records:
        live = self._get(msg.session, create=True)
        started = live.started.pop(msg.seq, None)
        records = self._touch(live)
        command = msg.command if msg.command is not None else (started.command if started else None)
        cwd = msg.cwd or (started.cwd if started else "") or live.session.global_context.working_directory
        cwd_after = msg.cwd_after or cwd
        self._moved_to(live, cwd_after)
        started_at = _epoch(msg.started_at) or (_epoch(started.started_at) if started else None)
        execution = await self._execution(
            live,
            msg.seq,
            command,
            cwd,
            cwd_after,
            started_at,
            _epoch(msg.finished_at),
            msg.duration_ms,
            msg.exit_status,
            msg.pipeline_statuses,
        )
        if execution is not None:
            records.executions.append(execution)
        return records

    async def _execution(
        self,
        live: LiveSession,
        seq: int,
        command: str | None,
        cwd: str,
        cwd_after: str | None,
        started_at: float | None,
        finished_at: float | None,
        duration: int | None,
        exit_status: int | None,
        pipeline_statuses: list[int],
    ) -> DirectCommandExecution | None:
        output = self.outputs.take(live.key, seq)
        if command is None or not command.strip() or not self.filter.should_record(command, cwd):
            return None
        context = live.session.global_context
        tool = tool_of(command)
        if tool and tool not in context.active_tools:
            context.active_tools = [*context.active_tools, tool]
        if duration is None and started_at is not None and finished_at is not None and finished_at >= started_at:
            duration = int((finished_at - started_at) * 1000)
        when = started_at or finished_at or time.time()
        session = live.session
        command, stdout = await self._masked(live, command, output)
        return DirectCommandExecution(
            id=derived_id(when, session.id, str(seq)),
            session_id=session.id,
            command=command,
            executed_at=datetime.fromtimestamp(when, UTC),
            duration_ms=duration,
            exit_status=exit_status,
            pipeline_statuses=pipeline_statuses,
            stdout=stdout,
            working_directory=cwd,
            cwd_after=cwd_after,
            host=session.host or self.host,
            user=session.user,
        )

    async def end(self, key: str) -> Records:
        live = self.live.pop(key, None)
        if live is None:
            live = self._new(key, partial=True)
        self._forget_pid(live)
        live.active = time.time()
        live.session.last_active = datetime.fromtimestamp(live.active, UTC)
        live.session.close()
        records = Records(sessions=[(live.session.model_copy(), live.partial)])
        # Commands still running when the shell went away (terminal closed, shell killed) are kept,
        # with no exit status.
        for seq, started in live.started.items():
            cwd = started.cwd or live.session.global_context.working_directory
            execution = await self._execution(
                live, seq, started.command, cwd, None, _epoch(started.started_at), None, None, None, []
            )
            if execution is not None:
                records.executions.append(execution)
        live.started.clear()
        self.outputs.forget_session(key)
        return records

    # --- queries and housekeeping ----------------------------------------------------------
    def session_id(self, key: str | None = None, pid: int | None = None) -> str | None:
        if key is None and pid is not None:
            key = self.by_pid.get(pid)
        live = self.live.get(key) if key else None
        return live.session.id if live else None

    async def reap_dead(self) -> list[Records]:
        """Close the sessions whose shell process is gone."""
        gone = [key for key, live in self.live.items() if live.session.pid and not psutil.pid_exists(live.session.pid)]
        return [await self.end(key) for key in gone]

    def due_saves(self) -> Records:
        """Sessions whose last_active changed since they were last journaled."""
        now = time.monotonic()
        records = Records()
        for live in self.live.values():
            if live.last_saved < now - SESSION_SAVE_INTERVAL_S and live.active > live.last_saved_wall:
                records.sessions.append(self._saved(live))
        return records

    @property
    def open_count(self) -> int:
        return len(self.live)

    # --- internals -------------------------------------------------------------------------
    def _get(self, key: str, create: bool, partial: bool = True) -> LiveSession:
        live = self.live.get(key)
        if live is None:
            live = self._new(key, partial=partial)
            self.live[key] = live
            while len(self.live) > MAX_LIVE_SESSIONS:
                _, evicted = self.live.popitem(last=False)
                self._forget_pid(evicted)
                self.outputs.forget_session(evicted.key)
        else:
            self.live.move_to_end(key)
        return live

    def _new(self, key: str, partial: bool) -> LiveSession:
        created = _key_time(key) or time.time()
        session = Session(
            id=derived_id(created, self.host, key),
            created_at=datetime.fromtimestamp(created, UTC),
            pid=_key_pid(key),
            host=self.host,
            settings=SessionSettings(privacy_mode=self.privacy_mode),
        )
        live = LiveSession(key=key, session=session, partial=partial)
        if partial and session.pid is not None:
            self.by_pid.setdefault(session.pid, key)
        return live

    def _touch(self, live: LiveSession) -> Records:
        live.active = time.time()  # cheap: the model's validated field is set only when saving
        if live.last_saved < time.monotonic() - SESSION_SAVE_INTERVAL_S:
            return Records(sessions=[self._saved(live)])
        return Records()

    def _saved(self, live: LiveSession) -> tuple[Session, bool]:
        if live.active:
            live.session.last_active = datetime.fromtimestamp(live.active, UTC)
        live.last_saved = time.monotonic()
        live.last_saved_wall = live.active
        return live.session.model_copy(), live.partial

    def _moved_to(self, live: LiveSession, cwd: str) -> None:
        context = live.session.global_context
        if cwd and cwd != context.working_directory:
            context.working_directory = cwd
            context.detected_project_type = detect_project_type(cwd)

    async def _masked(
        self, live: LiveSession, command: str, output: CommandOutput | None
    ) -> tuple[str, TruncatedText | None]:
        """(the command, its output) as they may be stored. Long texts are masked on a worker
        thread (RE2 lets the loop's thread run meanwhile); the session's lock keeps its records in
        message order. The lock is free unless a long text of this shell is being masked, and
        the caller journals the records before yielding, so order holds up to the journal."""
        text = output.output if output is not None and not self.privacy_mode else None
        async with live.masking:
            if len(command) + len(text or "") <= OFF_LOOP_CHARS:
                return self._mask_texts(live, command, text)
            return await asyncio.get_running_loop().run_in_executor(None, self._mask_texts, live, command, text)

    def _mask_texts(self, live: LiveSession, command: str, output: str | None) -> tuple[str, TruncatedText | None]:
        masked = self.filter.mask(command, live.secret_values)
        if output is None:
            return masked, None
        return masked, TruncatedText.from_output(self.filter.mask(output, live.secret_values), limit=self.output_limit)

    def _forget_pid(self, live: LiveSession) -> None:
        pid = live.session.pid
        if pid is not None and self.by_pid.get(pid) == live.key:
            del self.by_pid[pid]


def _bound(items: OrderedDict) -> None:
    while len(items) > MAX_PENDING_PER_SESSION:
        items.popitem(last=False)
