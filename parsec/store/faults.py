"""Errors that are the disk's fault, not the record's: disk full, read-only, I/O error.

They become StoreNotWritable (a StoreUnavailable), so the daemon's writer keeps the records in
its journal and retries, and `status`/`doctor` can say "store not writable: disk full (path)".
"""

from __future__ import annotations

import os

from ..errors import StoreNotWritable
from .sqlite_url import sqlite_file


def storage_fault(message: str) -> str | None:
    """ "disk full" / "read-only" / "I/O error" when a database error is the disk's fault."""
    lowered = message.lower()
    if "disk is full" in lowered or "no space left" in lowered or "disk full" in lowered:
        return "disk full"
    if "readonly" in lowered or "read-only" in lowered:
        return "read-only"
    if "disk i/o error" in lowered:
        return "I/O error"
    return None


def not_writable(message: str, url: str) -> StoreNotWritable | None:
    fault = storage_fault(message)
    if fault is None:
        return None
    path = sqlite_file(url)
    where = str(path) if path is not None else url.split("@")[-1]
    return StoreNotWritable(f"store not writable: {_disk_says(path, fault)} ({where}; {message})")


def _disk_says(path, fault: str) -> str:
    """SQLite reports a write refused by a read-only mount as a "disk I/O error": ask the file
    system of a SQLite store which it is."""
    if path is None:
        return fault
    try:
        info = os.statvfs(path.parent)
    except OSError:
        return fault
    if info.f_flag & os.ST_RDONLY:
        return "read-only"
    if info.f_bavail == 0:
        return "disk full"
    return fault
