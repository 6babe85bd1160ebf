"""The session id the CLI derives from a hook key is the one the daemon gives that session."""

from __future__ import annotations

import socket

from parsec.daemon.sessions import SessionRecorder
from parsec.models.session_ids import session_id_for_key, this_host
from parsec.privacy.filters import PrivacyFilter
from parsec.config import PrivacyConfig
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
