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
# `answer_timeout_s` (twice store.connect_timeout_s, at least 4 s); a call still unanswered after
# HUNG_AFTER_S is abandoned and the writer process replaced (the journal keeps every record, and
# ids make a replay harmless).
HUNG_AFTER_S = 30.0


class StoreWriter:
    def __init__(self, journal: Journal, store_options: dict[str, Any]) -> None:
        self.journal = journal
        self.options = store_options
        self.last_error: str | None = None
        self.store_ok = False
        self.written = 0
        self._child: asyncio.subprocess.Process | None = None
        self._progress: dict[str, int] = {}
        self._retry_at = 0.0
        self._backoff = 0.5
        self._lock = asyncio.Lock()
        self._call_started: float | None = None
        self.answer_timeout_s = max(4.0, 2 * float(store_options.get("connect_timeout_s", 5.0)))
        self.hung_after_s = max(HUNG_AFTER_S, 2 * self.answer_timeout_s)

    @property
    def problem(self) -> str | None:
        """What `status` shows about the store: not answering, or the last failure."""
        if self._call_started is not None and time.monotonic() - self._call_started > self.answer_timeout_s:
            waited = time.monotonic() - self._call_started
            return f"store not answering within {self.answer_timeout_s:.0f} s (waiting for {waited:.0f} s)"
        return None if self.store_ok else self.last_error

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
            reply = await self._call({"op": "apply", "segments": segments})
            if reply is None:
                return self._failed()
            self.written = reply["written"]
            for segment in reply["completed"]:
                self.journal.remove(Path(segment))
                self._progress.pop(segment, None)
            for segment, lines in reply["progress"].items():
                self.journal.done(Path(segment), lines - self._progress.get(segment, 0))
                self._progress[segment] = lines
            if not reply["ok"]:
                return self._failed()
            self.store_ok = True
            self._backoff = 0.5
            return True

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
            self._call_started = time.monotonic()
            line = await asyncio.wait_for(child.stdout.readline(), self.hung_after_s)
        except TimeoutError:
            self.last_error = f"store not answering within {self.hung_after_s:.0f} s; the store writer was restarted"
            log.error(self.last_error)
            child.kill()
            await child.wait()
            self._child = None
            self._progress.clear()
            self.store_ok = False
            return None
        except (OSError, ConnectionError) as err:
            self.last_error = f"the store writer process failed: {err}"
            return None
        finally:
            self._call_started = None
        if not line:
            self.last_error = f"the store writer process exited ({await child.wait()}); restarting it"
            log.error(self.last_error)
            self._child = None
            self._progress.clear()
            return None
        reply = json.loads(line)
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
            self._progress.clear()
        return self._child

    def _failed(self) -> bool:
        self.store_ok = False
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, MAX_BACKOFF_S)
        return False
