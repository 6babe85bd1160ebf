"""The durable journal: every record bound for the store is appended here first.

Records are JSON lines in numbered segment files under `$XDG_STATE_HOME/parsec/journal/`.
Appends are group-committed: every request waiting shares one `write()`, and a `command_finished`
is acknowledged once that write has returned. The store writer consumes closed segments in order
and deletes each once it is in the store; while the store is down, segments simply accumulate on
disk (memory stays bounded) and are replayed later.

Durability (see docs/daemon.md): an acknowledged record is in the kernel's page cache, so it
survives `kill -9` of the daemon at once (and a failed write — ENOSPC, EIO — is still reported
and the record refused). `fdatasync` (segments and the journal directory) runs in the background
every SYNC_INTERVAL_S and at shutdown, so a machine crash or power cut can lose at most the
records acknowledged in the last SYNC_INTERVAL_S (plus the sync's own duration).
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import paths
from ..fdio import write_all

log = logging.getLogger("parsec.daemon")

SEGMENT_SUFFIX = ".jsonl"
MAX_SEGMENT_BYTES = 8 * 1024 * 1024  # rotate even when the store is down, so replay is chunked
SYNC_INTERVAL_S = 0.05  # background fdatasync period: the window a machine crash could lose
MAX_HELD_BYTES = 4 * 1024 * 1024  # records kept in memory while the journal cannot be written


class JournalError(Exception):
    """The journal could not be written (disk full, read-only): the request is not acknowledged."""


def journal_dir() -> Path:
    return paths.state_dir() / "journal"


class Journal:
    def __init__(self, directory: Path, max_held_bytes: int = MAX_HELD_BYTES) -> None:
        self.directory = directory
        self.max_held_bytes = max_held_bytes
        # Acknowledged records whose write failed (disk full, read-only): kept here, in order,
        # up to max_held_bytes, and written first as soon as the journal takes writes again.
        self._held: list[bytes] = []
        self._held_records = 0
        self._held_bytes = 0
        self.refused = 0  # records refused because the journal failed and memory was full
        self.write_error: str | None = None  # set while the journal cannot be written
        self._sync_io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-sync")  # fdatasync
        self._pending: list[bytes] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._lock = asyncio.Lock()
        self._sync_lock = asyncio.Lock()
        self._committer: asyncio.Task[None] | None = None
        self._syncer: asyncio.Task[None] | None = None
        self._appended = asyncio.Event()  # set by each append: the idle flush waits on it
        self._fd = -1
        self._current: Path | None = None
        self._current_records = 0
        self._current_bytes = 0
        self._retired: list[int] = []  # fds of segments closed to appends, to sync once more and close
        self._dirty = False  # the current segment was written since its last sync
        self._dir_dirty = False  # a segment was created since the directory was last synced
        self.counts: dict[Path, int] = {}  # records per segment not yet in the store
        self.appended = 0
        self.syncs = 0
        self.last_error: str | None = None  # of the background sync

    # --- segments --------------------------------------------------------------------------
    def open(self) -> None:
        paths.ensure_private_dir(self.directory)
        for segment in self.segments():
            self.counts[segment] = _count_lines(segment)
        self._open_next()

    def segments(self) -> list[Path]:
        """Every segment on disk, oldest first (the current one last). Segments are named by a
        number; any other file here (rejected.jsonl, an editor's backup) is not one."""
        return sorted(path for path in self.directory.glob(f"*{SEGMENT_SUFFIX}") if path.stem.isdigit())

    def closed_segments(self) -> list[Path]:
        return [segment for segment in self.segments() if segment != self._current]

    @property
    def current(self) -> Path | None:
        """The segment appends go to (None while the disk refuses a new one)."""
        return self._current

    @property
    def current_records(self) -> int:
        return self._current_records

    @property
    def current_bytes(self) -> int:
        return self._current_bytes

    @property
    def depth(self) -> int:
        """Records appended but not yet in the store."""
        return sum(self.counts.values()) + len(self._pending) + self._held_records

    @property
    def settled(self) -> bool:
        """Everything appended is written and synced, and the background syncer has stopped (what
        an idle daemon comes to; `status`: journal_settled)."""
        return self._committer is None and self._syncer is None and not self._pending

    @property
    def held_records(self) -> int:
        return self._held_records

    @property
    def problem(self) -> str | None:
        """For `status`: the journal cannot be written, and what that costs."""
        if self.write_error is None:
            return None
        return (
            f"journal not writable ({self.directory}): {self.write_error}; {self._held_records} acknowledged "
            f"records held in memory, {self.refused} refused"
        )

    def done(self, segment: Path, records: int) -> None:
        """`records` more lines of `segment` reached the store."""
        if segment in self.counts:
            self.counts[segment] = max(0, self.counts[segment] - records)

    def remove(self, segment: Path) -> None:
        self.counts.pop(segment, None)
        try:
            segment.unlink()
        except FileNotFoundError:
            pass

    async def rotate(self) -> None:
        """Close the current segment (once what is pending is written) and start a new one."""
        self.retry_held()
        await self.commit()
        async with self._lock:
            if self._current_records:
                self._retire()
                self._try_open_next()
                self._start_syncer()  # the retired segment and the new name are synced once more

    def _try_open_next(self) -> None:
        """Start the next segment; on a full or read-only disk the next write tries again."""
        try:
            self._open_next()
        except OSError as err:
            self._current, self._fd = None, -1
            self.write_error = err.strerror or str(err)
            log.error("cannot start a journal segment: %s", self.write_error)

    def _retire(self) -> None:
        """Stop appending to the current segment; the sync thread syncs and closes its fd."""
        if self._fd >= 0:
            self._retired.append(self._fd)
            self._fd = -1
            self._dirty = False

    def _open_next(self) -> None:
        existing = self.segments()
        number = int(existing[-1].stem) + 1 if existing else 1
        self._current = self.directory / f"{number:012d}{SEGMENT_SUFFIX}"
        self._fd = os.open(self._current, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._dir_dirty = True  # the new name is made durable by the next background sync
        self._current_records = 0
        self._current_bytes = 0
        self.counts[self._current] = 0

    # --- appends ---------------------------------------------------------------------------
    async def append(self, record: bytes, durable: bool = True) -> None:
        """Append one JSON line; with `durable`, return only once it is written (write() returned:
        it survives `kill -9`; the background fdatasync follows within SYNC_INTERVAL_S)."""
        self._pending.append(record)
        self._appended.set()
        waiter: asyncio.Future[None] | None = None
        if durable:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
        if self._committer is None:  # runs after this loop iteration: one write for all its appends
            self._committer = asyncio.create_task(self._commit_rounds())
        self._start_syncer()
        if waiter is not None:
            await waiter

    async def wait_for_records(self) -> None:
        """Return once some record is not in the store yet: the flush sleeps on this while the
        daemon is idle instead of waking every flush interval for nothing."""
        while not self.depth:
            self._appended.clear()
            await self._appended.wait()

    async def commit(self) -> None:
        """Wait until everything appended so far is written (in the page cache, not yet synced)."""
        while self._committer is not None:
            await asyncio.shield(self._committer)

    async def sync(self) -> None:
        """Wait until everything appended so far is written and fdatasynced (e.g. before a spool
        file it came from is deleted)."""
        await self.commit()
        await self._sync_once()

    async def _commit_rounds(self) -> None:
        try:
            while self._pending or self._held:
                async with self._lock:
                    batch, waiters = self._pending, self._waiters
                    self._pending, self._waiters = [], []
                    try:
                        self._write_held()
                    except OSError as err:
                        self._hold_or_refuse(batch, waiters, err)
                        if not batch:
                            break  # only old records waiting: the next append or flush retries
                        continue
                    data = b"".join(batch)
                    try:
                        # On the event loop: a write() into the page cache takes microseconds, less
                        # than a hand-off to a thread and back (the fdatasync is what blocks, and it
                        # runs on the sync thread).
                        self._write(data, len(batch))
                    except OSError as err:
                        self._hold_or_refuse(batch, waiters, err)
                        continue
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
                if self._current_bytes > MAX_SEGMENT_BYTES:
                    async with self._lock:
                        self._retire()
                        self._try_open_next()
                        self._start_syncer()
        finally:
            self._committer = None

    def retry_held(self) -> None:
        """Called by the flush: write what was held in memory once the journal takes writes again."""
        if self._held and self._committer is None:
            self._committer = asyncio.create_task(self._commit_rounds())

    def _write(self, data: bytes, records: int) -> None:
        if self._fd < 0:
            self._open_next()  # a segment that could not be created before (disk full)
        _write_all(self._fd, data, self._current_bytes)
        segment = self._current
        assert segment is not None  # an open fd belongs to a current segment
        self._dirty = True
        self._start_syncer()
        self._current_records += records
        self._current_bytes += len(data)
        self.counts[segment] = self.counts.get(segment, 0) + records
        self.appended += records

    def _write_held(self) -> None:
        while self._held:
            data = self._held[0]
            records = data.count(b"\n")
            self._write(data, records)
            self._held.pop(0)
            self._held_records -= records
            self._held_bytes -= len(data)
        if self.write_error is not None:
            log.warning("the journal takes writes again; records held in memory are written")
            self.write_error = None

    def _hold_or_refuse(self, batch: list[bytes], waiters: list[asyncio.Future[None]], err: OSError) -> None:
        """The journal cannot be written: keep the batch in memory (acknowledged, and `status`
        says so) while there is room, else refuse it so that the hook spools it."""
        reason = err.strerror or str(err)
        if self.write_error is None:
            log.error("journal write failed: %s", reason)
        self.write_error = reason
        if not batch:
            return
        data = b"".join(batch)
        if self._held_bytes + len(data) <= self.max_held_bytes:
            self._held.append(data)
            self._held_records += len(batch)
            self._held_bytes += len(data)
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
            return
        self.refused += len(batch)
        log.error(
            "journal not writable and %d bytes already held in memory: %d records refused", self._held_bytes, len(batch)
        )
        _fail(waiters, JournalError(f"cannot write the journal: {reason}"))

    # --- background sync ---------------------------------------------------------------------
    def _start_syncer(self) -> None:
        if self._syncer is None:
            self._syncer = asyncio.create_task(self._sync_rounds())

    async def _sync_rounds(self) -> None:
        """Sync every SYNC_INTERVAL_S while there is something to sync, then stop (an idle daemon
        does not wake 20 times a second); the next append or rotation starts it again."""
        try:
            while True:
                await asyncio.sleep(SYNC_INTERVAL_S)
                if not await self._sync_once():
                    return
        finally:
            self._syncer = None

    async def _sync_once(self) -> bool:
        """Sync what was written since the last sync; False when there was nothing."""
        async with self._sync_lock:
            retired, self._retired = self._retired, []
            current = self._fd if self._dirty else -1
            self._dirty = False
            directory = self.directory if self._dir_dirty else None
            self._dir_dirty = False
            if not retired and current < 0 and directory is None:
                return False
            job = asyncio.get_running_loop().run_in_executor(self._sync_io, _sync_files, retired, current, directory)
            try:
                # Shielded: once taken, the retired fds belong to this job, which closes them.
                error = await asyncio.shield(job)
            except OSError as err:
                error = err
            self.syncs += 1
            if error is not None:
                self.last_error = f"journal fdatasync failed: {error}"
                log.error("%s", self.last_error)
            return True

    def close(self) -> None:
        """Stop the background sync, sync everything one last time and close the files."""
        if self._syncer is not None:
            self._syncer.cancel()
            self._syncer = None
        self._sync_io.shutdown(wait=True)  # a sync in flight finishes (and closes its fds)
        self._retire()
        retired, self._retired = self._retired, []
        error = _sync_files(retired, -1, self.directory if self._current is not None else None)
        if error is not None:
            log.error("journal fdatasync at close failed: %s", error)
        if self._current is not None and self._current_records == 0:
            self.remove(self._current)  # leave no empty segment behind
        if self._held_records:
            log.error(
                "the journal could not be written until exit: %d acknowledged records held in memory are lost",
                self._held_records,
            )


def _write_all(fd: int, data: bytes, size_before: int) -> None:
    try:
        write_all(fd, data)
    except OSError:
        # Cut a torn write off, so the next record does not glue onto half a line.
        try:
            os.ftruncate(fd, size_before)
        except OSError:
            pass
        raise


def _sync_files(retired: list[int], current: int, directory: Path | None) -> OSError | None:
    """fdatasync the retired segments (then close them), the current one, and the directory.
    Returns the first error (after trying everything), so one bad fd does not leak the others."""
    error: OSError | None = None
    for fd in retired:
        try:
            os.fdatasync(fd)
        except OSError as err:
            error = error or err
        finally:
            os.close(fd)
    if current >= 0:
        try:
            os.fdatasync(current)  # the data and the file size; mtime is not worth a second write
        except OSError as err:
            error = error or err
    if directory is not None:
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as err:
            return error or err
        try:
            os.fsync(fd)
        except OSError as err:
            error = error or err
        finally:
            os.close(fd)
    return error


def _fail(waiters: list[asyncio.Future[None]], error: Exception) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_exception(error)


def _count_lines(segment: Path) -> int:
    try:
        with segment.open("rb") as handle:
            return sum(1 for _ in handle)
    except OSError:
        return 0
