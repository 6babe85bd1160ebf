"""Periodic jobs on the event loop (store flush, dead-session check, hook spool, retention prune).

A failing job is logged and tried again at its next turn; it never stops the others.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("parsec.daemon")


@dataclass
class Job:
    name: str
    interval_s: float
    action: Callable[[], Awaitable[Any]]
    first_delay_s: float
    # Awaited before each run: a job with nothing to do sleeps on it instead of waking each interval.
    wait_for_work: Callable[[], Awaitable[Any]] | None = None
    runs: int = 0
    last_run: float | None = None
    last_error: str | None = None


class Scheduler:
    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self._tasks: list[asyncio.Task[None]] = []

    def every(
        self,
        name: str,
        interval_s: float,
        action: Callable[[], Awaitable[Any]],
        first_delay: float | None = None,
        wait_for_work: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        """Run `action` every `interval_s`; with `wait_for_work`, only once that returns."""
        first = interval_s if first_delay is None else first_delay
        self.jobs.append(Job(name, interval_s, action, first, wait_for_work))

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._loop(job), name=f"job:{job.name}") for job in self.jobs]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []

    async def _loop(self, job: Job) -> None:
        await asyncio.sleep(job.first_delay_s)
        while True:
            try:
                if job.wait_for_work is not None:
                    await job.wait_for_work()
                await job.action()
                job.last_error = None
            except asyncio.CancelledError:
                raise
            except Exception as err:
                if job.last_error is None:
                    log.exception("job %r failed", job.name)
                job.last_error = f"{type(err).__name__}: {err}"[:300]
            job.runs += 1
            job.last_run = time.time()
            await asyncio.sleep(job.interval_s)

    def describe(self) -> list[dict[str, Any]]:
        return [
            {
                "name": job.name,
                "interval_s": job.interval_s,
                "runs": job.runs,
                "last_run": job.last_run,
                "last_error": job.last_error,
            }
            for job in self.jobs
        ]
