"""`--since` / `--until` values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from parsec.cli.history.history_common import human_duration, one_line, parse_when
from parsec.errors import UsageError

NOW = datetime(2024, 5, 10, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "text, ago",
    [
        ("30m", timedelta(minutes=30)),
        ("2h", timedelta(hours=2)),
        ("3d", timedelta(days=3)),
        ("1w", timedelta(weeks=1)),
        ("45 min", timedelta(minutes=45)),
        ("2 hours ago", timedelta(hours=2)),
        ("10s", timedelta(seconds=10)),
        ("now", timedelta(0)),
    ],
)
def test_relative(text: str, ago: timedelta) -> None:
    assert parse_when(text, "--since", now=NOW) == NOW - ago


def test_today_and_yesterday_are_local_midnights() -> None:
    today = parse_when("today", "--since", now=NOW)
    assert parse_when("yesterday", "--since", now=NOW) == today - timedelta(days=1)
    local = today.astimezone()
    assert (local.hour, local.minute, local.second) == (0, 0, 0) and today <= NOW


def test_iso_dates() -> None:
    assert parse_when("2024-05-01T10:00:00+02:00", "--since") == datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
    local = parse_when("2024-05-01", "--until")
    assert local.tzinfo == UTC and local.astimezone().replace(tzinfo=None) == datetime(2024, 5, 1)


@pytest.mark.parametrize("text", ["last tuesday", "5 parsecs", "", "2024-13-01"])
def test_bad_values_name_the_option_and_the_forms(text: str) -> None:
    with pytest.raises(UsageError, match="--until .*use a duration like 2h"):
        parse_when(text, "--until", now=NOW)


def test_display_helpers() -> None:
    assert [human_duration(s) for s in (None, 0.25, 3.21, 125, 7300)] == ["", "250ms", "3.2s", "2m05s", "2h01m"]
    assert one_line("a\tb\nc\\d") == "a\\tb\\nc\\\\d" and one_line("plain \\ text") == "plain \\ text"
