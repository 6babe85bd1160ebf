"""Which session the calling shell is, asked of the daemon in one request, spoken directly.

Used where start-up time counts (`parsec ask`, `parsec search`, `parsec history --session
current`): the protocol client's imports (asyncio, the pydantic message models) cost more than
the whole exchange. Standard library only.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import UnsafeRuntimeDir
from . import endpoints
from .version import PROTOCOL_VERSION

REPLY_LIMIT = 1_048_576


def ask_daemon(key: str = "", pid: int | None = None, timeout: float = 0.5) -> str | None:
    """The session id the daemon knows for the hook's `key` (else for the shell `pid`, default our
    parent); None when there is no daemon or it does not know the shell."""
    runtime = endpoints.runtime_dir()
    if not endpoints.socket_path(runtime).exists():
        return None  # no daemon
    fields: dict[str, Any] = {"session": key} if key else {"pid": os.getppid() if pid is None else pid}
    request = {"v": PROTOCOL_VERSION, "type": "current_session", "id": 1, **fields}
    try:
        with endpoints.connect_socket(runtime, timeout) as sock:
            sock.sendall(json.dumps(request, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n") and len(data) < REPLY_LIMIT:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        reply = json.loads(data)
    except (OSError, ValueError, UnsafeRuntimeDir):
        return None
    found = reply.get("session_id") if isinstance(reply, dict) and reply.get("ok") else None
    return str(found).upper() if isinstance(found, str) and found else None


def session_for_key(key: str, timeout: float) -> str | None:
    """The session id of the shell whose hook exported `key` (`<pid>-<start time>`): derived from
    the key as the daemon derives it (models/session_ids), so it works before the daemon has heard
    of the shell and with the daemon down; else asked of the daemon (by key, or by our parent pid
    when there is no key)."""
    from ..models.session_ids import session_id_for_key, this_host

    derived = session_id_for_key(key, this_host()) if key else None
    return derived if derived is not None else ask_daemon(key, timeout=timeout)
