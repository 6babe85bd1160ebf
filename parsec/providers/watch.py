"""Deadlines on a streaming reply: the first token within `first_token_s`, then no pause longer than
`idle_s` between tokens. One total timeout either cuts a slow CPU's long prompt short or waits
minutes on a stalled stream; these two do neither. Bytes are not tokens: a server's keep-alive
comments (sse-starlette sends one every 15 s) do not count.

A watcher thread shuts the connection down when a deadline passes, so the blocked read returns at
once; the reader then sees `expired` and reports a timeout instead of a broken stream.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx


class TokenWatch:
    def __init__(self, response: httpx.Response, *, first_token_s: float, idle_s: float) -> None:
        self._response = response
        self._idle_s = idle_s
        self._deadline = time.monotonic() + first_token_s
        self._started = False
        self._done = False
        self.expired = ""  # "first token" or "idle" once a deadline has passed
        self._condition = threading.Condition()
        self._thread = threading.Thread(target=self._watch, name="parsec-token-watch", daemon=True)
        self._thread.start()

    def token(self) -> None:
        """A token arrived: the idle deadline starts again."""
        with self._condition:
            self._started = True
            self._deadline = time.monotonic() + self._idle_s
            self._condition.notify()  # the watcher may be waiting on the longer first-token deadline

    def close(self) -> None:
        with self._condition:
            self._done = True
            self._condition.notify()

    def __enter__(self) -> TokenWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _watch(self) -> None:
        with self._condition:
            while not self._done:
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    self.expired = "idle" if self._started else "first token"
                    self._cut()
                    return
                self._condition.wait(remaining)

    def _cut(self) -> None:
        stream = (getattr(self._response, "extensions", None) or {}).get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        try:
            if isinstance(sock, socket.socket):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the reader blocked in recv()
            else:
                self._response.close()
        except OSError:
            pass
