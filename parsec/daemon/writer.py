"""The store writer: moves journal segments into the ContextStore, in order, off the reply path.

The work happens in a child process (`store_process`), so the store's CPU cost never competes
with replies for the daemon's GIL. When the store fails, the writer backs off and retries the
same segments later; the journal keeps everything meanwhile. A child that dies is restarted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from .journal import Journal

log = logging.getLogger("parsec.daemon")

MAX_BACKOFF_S = 30.0
# A store that accepts connections but never answers (a PostgreSQL stopped with SIGSTOP, a hung
# NFS mount) leaves the writer process waiting forever. `status` and `flush` say so after
# `answer_timeout_s` (twice store.connect_timeout_s, at least 4 s) without progress; a call that
# made no progress for HUNG_AFTER_S is abandoned and the writer process replaced (the journal keeps
# every record, and ids make a replay harmless). Progress, not the whole answer: a writer working
# through a long backlog reports each commit (store_process.PROGRESS_EVERY_S) and is never killed.
HUNG_AFTER_S = 30.0


class StoreWriter:
    def __init__(self, journal: Journal, store_options: dict[str, Any]) -> None:
        self.journal = journal
        self.options = store_options
        self.last_error: str | None = None
        self.store_ok = False
        self.written = 0
        self._child: asyncio.subprocess.Process | None = None
        self._progress: dict[str, int] = {}  # lines of a segment in the store, across writer processes
        self._child_written = 0  # `written` as the current writer process counts it
        self._retry_at = 0.0
        self._backoff = 0.5
        self._lock = asyncio.Lock()
        self._last_progress: float | None = None  # while a call runs: when it last moved
        self.answer_timeout_s = max(4.0, 2 * float(store_options.get("connect_timeout_s", 5.0)))
        self.hung_after_s = max(HUNG_AFTER_S, 2 * self.answer_timeout_s)

    @property
    def problem(self) -> str | None:
        """What `status` shows about the store: not answering, or the last failure."""
        if self._last_progress is not None and time.monotonic() - self._last_progress > self.answer_timeout_s:
            waited = time.monotonic() - self._last_progress
            return f"store not answering within {self.answer_timeout_s:.0f} s (waiting for {waited:.0f} s)"
        return None if self.store_ok else self.last_error

    async def warm_up(self) -> None:
        """Start the writer process now, so that the first flush (`parsec history` right after a
        shell's first command) does not wait for it to import and open the store (it opens the
        store before it reads a request: store_process.SegmentApplier.warm_up)."""
        async with self._lock:
            await self._ensure_child()

    async def flush_within(self, timeout: float) -> bool:
        """flush(force=True), but answer within `timeout`: False while the store does not answer
        (the flush goes on in the background)."""
        task = asyncio.ensure_future(self.flush(force=True))
        try:
            return await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            return False

    async def flush(self, force: bool = False) -> bool:
        """Rotate the current segment and apply every closed one. True when all reached the store."""
        self.journal.retry_held()  # records held in memory while the journal could not be written
        if not force and time.monotonic() < self._retry_at:
            return False
        async with self._lock:
            await self.journal.rotate()  # commits what is pending first; no-op when empty
            segments = [str(path) for path in self.journal.closed_segments()]
            if not segments:
                return not self.journal.held_records
            self._forget_gone(segments)
            known = {segment: self._progress[segment] for segment in segments if segment in self._progress}
            # Progress reported ten times within the guard's bound: a busy writer never trips it.
            report_every_s = min(1.0, self.hung_after_s / 10)
            reply = await self._call(
                {"op": "apply", "segments": segments, "progress": known, "every_s": report_every_s}
            )
            if reply is None:
                return self._failed()
            for segment in reply["completed"]:
                self.journal.remove(Path(segment))
                self._progress.pop(segment, None)
            if not reply["ok"]:
                return self._failed()
            self.store_ok = True
            self._backoff = 0.5
            return True

    def _take_progress(self, reply: dict[str, Any]) -> None:
        """What a reply (or a progress line) says reached the store: counted once, even when a
        replaced writer process reports lines its predecessor already had."""
        self.written += max(0, reply["written"] - self._child_written)
        self._child_written = reply["written"]
        for segment, lines in reply["progress"].items():
            before = self._progress.get(segment, 0)
            if lines > before:
                self.journal.done(Path(segment), lines - before)
                self._progress[segment] = lines

    def _forget_gone(self, segments: list[str]) -> None:
        """Segments a writer process applied and deleted, but was replaced before it could say so:
        their records are in the store and count no more in `queue_depth`."""
        listed = set(segments)
        for segment in list(self.journal.counts):
            if str(segment) not in listed and segment != self.journal.current and not segment.exists():
                self.journal.remove(segment)
                self._progress.pop(str(segment), None)

    async def prune(self, policy: dict[str, Any]) -> str:
        async with self._lock:
            reply = await self._call({"op": "prune", "policy": policy})
        if reply is None or not reply["ok"]:
            raise RuntimeError((reply or {}).get("error") or self.last_error or "the store writer failed")
        return str(reply["report"])

    async def close(self) -> None:
        child = self._child
        if child is not None and child.returncode is None:
            assert child.stdin is not None
            child.stdin.close()
            try:
                await asyncio.wait_for(child.wait(), timeout=10)
            except TimeoutError:
                child.kill()
                await child.wait()

    # --- internals -------------------------------------------------------------------------
    async def _call(self, request: dict[str, Any]) -> dict[str, Any] | None:
        try:
            child = await self._ensure_child()
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(json.dumps(request).encode() + b"\n")
            await child.stdin.drain()
            self._last_progress = time.monotonic()
            while True:
                line = await asyncio.wait_for(child.stdout.readline(), self.hung_after_s)
                reply = json.loads(line) if line else None
                if reply is None or reply.get("op") != "progress":
                    break
                self._take_progress(reply)
                self._last_progress = time.monotonic()
        except TimeoutError:
            self.last_error = f"store not answering within {self.hung_after_s:.0f} s; the store writer was restarted"
            log.error(self.last_error)
            child.kill()
            await child.wait()
            self._child = None
            self.store_ok = False
            return None
        except (OSError, ConnectionError) as err:
            self.last_error = f"the store writer process failed: {err}"
            return None
        finally:
            self._last_progress = None
        if reply is None:
            self.last_error = f"the store writer process exited ({await child.wait()}); restarting it"
            log.error(self.last_error)
            self._child = None
            return None
        if "progress" in reply:
            self._take_progress(reply)
        for message in reply.get("log", []):
            log.warning("%s", message)
        self.last_error = reply.get("last_error") or reply.get("error")
        return reply

    async def _ensure_child(self) -> asyncio.subprocess.Process:
        if self._child is None or self._child.returncode is not None:
            self._child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "parsec.daemon.store_process",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert self._child.stdin is not None
            # Over the pipe, never in argv: the URL may hold a PostgreSQL password (store_process.py).
            self._child.stdin.write(json.dumps(self.options).encode() + b"\n")
            self._child_written = 0
        return self._child

    def _failed(self) -> bool:
        self.store_ok = False
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, MAX_BACKOFF_S)
        return False
