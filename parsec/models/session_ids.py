"""Session and record ids derived from what the hooks send, the same in every process.

A hook names its shell's session by a key `<pid>-<start time>`; the daemon turns it into a ULID
(derived_id of the start time, the host and the key). Standard library only, so the CLI can
compute the same id without asking the daemon: `parsec history --session current` then works in
a shell's first command and right after a daemon restart, when the daemon does not know the
shell yet.
"""

from __future__ import annotations

import os

_MIN_EPOCH, _MAX_EPOCH = 0.0, 32503680000.0  # year 3000: anything outside is a bogus clock
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # the ULID alphabet
_PAIRS = [a + b for a in _CROCKFORD for b in _CROCKFORD]  # every 10-bit value as two digits


def derived_id(timestamp: float, *parts: str) -> str:
    """A ULID whose time part is `timestamp` and whose random part is a hash of `parts`."""
    import hashlib  # here: OpenSSL's loading is a cost the search's first frame need not pay

    millis = int(max(_MIN_EPOCH, min(timestamp, _MAX_EPOCH)) * 1000)
    return ulid_text(millis, hashlib.sha256("\x1f".join(parts).encode()).digest()[:10])


def ulid_text(millis: int, tail: bytes) -> str:
    """The ULID of a 48-bit time part (`millis`, clamped) and 80 bits of `tail`, as 26 characters.
    What python-ulid computes, at a fraction of its cost: 26 digits = 130 bits (two leading zero
    bits), looked up 10 bits at a time (hot paths: every record, every line of a large import)."""
    value = (max(0, min(millis, 2**48 - 1)) << 80) | int.from_bytes(tail[:10], "big")
    return "".join([_PAIRS[(value >> shift) & 1023] for shift in range(120, -1, -10)])


def epoch(value: float | None) -> float | None:
    return value if value is not None and _MIN_EPOCH < value < _MAX_EPOCH else None


def key_time(key: str) -> float | None:
    """`<pid>-<start time>` → the start time, when the key has that shape."""
    _, _, tail = key.partition("-")
    try:
        return epoch(float(tail))
    except ValueError:
        return None


def key_pid(key: str) -> int | None:
    head, _, _ = key.partition("-")
    return int(head) if head.isdigit() and len(head) < 10 else None


def this_host() -> str:
    """The host name the daemon uses (socket.gethostname(): uname's nodename), without importing
    socket, which costs the search's start-up."""
    return os.uname().nodename


def session_id_for_key(key: str, host: str) -> str | None:
    """The id the daemon gives the session of this hook key on this host; None for a key without
    a start time (the daemon then picks one itself)."""
    created = key_time(key)
    return derived_id(created, host, key) if created is not None and key_pid(key) is not None else None
