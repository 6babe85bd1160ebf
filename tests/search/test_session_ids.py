"""The session id the CLI derives from a hook key is the one the daemon gives that session."""

from __future__ import annotations

import socket

from parsec.config import PrivacyConfig
from parsec.daemon.sessions import SessionRecorder
from parsec.models.session_ids import session_id_for_key, this_host
from parsec.privacy.filters import PrivacyFilter
from parsec.protocol import current_session, messages


def test_cli_and_daemon_derive_the_same_session_id() -> None:
    recorder = SessionRecorder(PrivacyFilter(PrivacyConfig()), privacy_mode=False, output_limit=1000)
    key = "4242-1764200000.123456"
    session, _ = recorder.start(messages.SessionStart(session=key, shell="bash", pid=4242))
    assert this_host() == socket.gethostname() == recorder.host
    assert session.id == session_id_for_key(key, this_host())
    assert session_id_for_key("no-time-here", "h") is None


def test_the_hand_written_request_speaks_the_current_protocol() -> None:
    assert current_session.PROTOCOL_VERSION == messages.PROTOCOL_VERSION


def test_the_fast_ulid_encoder_agrees_with_python_ulid() -> None:
    """Every derived id (records, imported history) goes through ulid_text; python-ulid is the
    outside truth for the encoding, clamping included."""
    import random

    from ulid import ULID

    from parsec.models.session_ids import ulid_text

    rng = random.Random(7)
    for millis in [0, 1, 2**48 - 1, *(rng.randrange(2**48) for _ in range(2000))]:
        tail = rng.randbytes(10)
        assert ulid_text(millis, tail) == str(ULID.from_bytes(millis.to_bytes(6, "big") + tail))
    assert ulid_text(-5, bytes(10)) == str(ULID.from_bytes(bytes(16)))
    assert ulid_text(2**50, b"\xff" * 10) == str(ULID.from_bytes(b"\xff" * 16))
