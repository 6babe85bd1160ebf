"""How soon the daemon drops a client that fell silent mid-message (`daemon.client_timeout_s`).

A daemon in a private sandbox, its client timeout set to `--timeout`, gets `--rounds` connections
one after another, each sending half a `ping` and then nothing; the figure is the time from that
half message to the daemon closing the connection. The baseline, in this process, is a plain
socket waiting out the same timeout on an idle socket pair: the floor any timer has on this
machine. tests/daemon/test_protocol.py checks that the drop happens and comes from the timeout;
this prints how late after the timeout it comes.

    python bench/daemon_idle_drop.py [--timeout 0.5] [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def dropped_after(runtime: Path) -> float:
    """Seconds from half a message to the daemon's close."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)  # bounds a daemon that never drops it
        sock.connect(str(runtime / "daemon.sock"))
        started = time.monotonic()
        sock.sendall(b'{"v":1,"type":"pi')
        if sock.recv(100) != b"":
            raise SystemExit("the daemon answered half a message")
        return time.monotonic() - started


def timer_floor(timeout: float) -> float:
    """Seconds a socket in this process takes to give up after `timeout` of silence."""
    left, right = socket.socketpair()
    with left, right:
        left.settimeout(timeout)
        started = time.monotonic()
        try:
            left.recv(100)
        except TimeoutError:
            pass
        return time.monotonic() - started


def main() -> None:
    from tests.daemon.harness import Sandbox

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=0.5, help="daemon.client_timeout_s")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    box = Sandbox(daemon_client_timeout_s=args.timeout)
    try:
        box.run()
        drops = [dropped_after(box.runtime) for _ in range(args.rounds)]
    finally:
        box.close()
    floors = [timer_floor(args.timeout) for _ in range(args.rounds)]
    drop, floor = statistics.median(drops), statistics.median(floors)
    print(f"silent client dropped, timeout {args.timeout} s, {args.rounds} rounds (load {os.getloadavg()[0]:.1f})")
    print(f"  daemon   median {drop * 1000:.0f} ms  max {max(drops) * 1000:.0f} ms")
    print(f"  baseline median {floor * 1000:.0f} ms  (a socket timeout in this process)")
    print(f"  ratio {drop / floor:.2f}; {(drop - args.timeout) * 1000:.0f} ms past the configured timeout")


if __name__ == "__main__":
    main()
