"""The daemon's footprint as one figure: its own process and every process it started (the store
writer, `store_process.py`), which holds the store's connection, SQLAlchemy and a share of the CPU
per record; the daemon's process alone understates both (status, bench/daemon.py)."""

from __future__ import annotations

import time

import psutil


def tree(root: psutil.Process) -> list[psutil.Process]:
    """`root` and its descendants still alive."""
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return [root]


def rss_bytes(processes: list[psutil.Process]) -> int:
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:  # it ended between the listing and the reading
            pass
    return total


def cpu_seconds(processes: list[psutil.Process]) -> float:
    """User + system CPU time of these processes, their reaped children's included."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


class TreeUsage:
    """CPU percent of the whole tree since the previous reading (100 = one core busy)."""

    def __init__(self, root: psutil.Process) -> None:
        self.root = root
        self._last = (time.monotonic(), cpu_seconds(tree(root)))

    def read(self) -> tuple[int, float, int]:
        """(RSS bytes, CPU percent, process count) of the tree now."""
        processes = tree(self.root)
        now, cpu = time.monotonic(), cpu_seconds(processes)
        last_at, last_cpu = self._last
        self._last = (now, cpu)
        percent = 100.0 * max(0.0, cpu - last_cpu) / max(1e-6, now - last_at)
        return rss_bytes(processes), round(percent, 1), len(processes)
