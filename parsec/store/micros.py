"""Times as stored: BIGINT microseconds since the epoch, UTC, on every backend.

Standard library only, so the SQLite fast paths (`history.py`, the workflow's quick start) share
it without loading SQLAlchemy.
"""

from __future__ import annotations

from datetime import UTC, datetime

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_micros(value: datetime) -> int:
    if value.tzinfo is None:  # Parsec only writes UTC: naive means UTC
        value = value.replace(tzinfo=UTC)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    seconds, micros = divmod(value, 1_000_000)
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=micros)
