"""The import's deterministic ids are real ULIDs: same bytes as python-ulid, valid for the model."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st
from ulid import ULID

from parsec.cli.history.import_cmd import _ulid
from parsec.models.session import DirectCommandExecution


@given(st.integers(min_value=0, max_value=2**48 - 1), st.text())
def test_ids_match_python_ulid(millis: int, key: str) -> None:
    expected = str(ULID.from_bytes(millis.to_bytes(6, "big") + hashlib.sha256(key.encode()).digest()[:10]))
    assert _ulid(millis, key) == expected


def test_ids_validate_and_are_deterministic() -> None:
    first = _ulid(1_700_000_000_000, "zsh\0file\0git status\0" + "0")
    assert first == _ulid(1_700_000_000_000, "zsh\0file\0git status\0" + "0")
    assert first != _ulid(1_700_000_000_000, "zsh\0file\0git status\0" + "1")
    DirectCommandExecution(id=first, session_id=first, command="x")  # passes the model's ULID check
