"""Command output waiting for its command_finished, for every live session, within one memory bound.

A hook may send a command's output (up to max_message_bytes) before the command finishes. Held
per session only, 4096 sessions × 64 commands × 1 MiB could grow to hundreds of gigabytes; so
the total is bounded (`[daemon] max_pending_output_bytes`) and, past it, the oldest pending output
of any session is dropped first: that command is still recorded, without its output. What was
dropped is counted for `status` and logged.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Generic, TypeVar

log = logging.getLogger("parsec.daemon")

MAX_PENDING_PER_SESSION = 64  # outputs of unfinished commands remembered per session


Output = TypeVar("Output")  # what a shell sent (protocol.messages.CommandOutput)


class OutputBuffer(Generic[Output]):
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, int], tuple[Output, int]] = OrderedDict()  # arrival order
        self._per_session: dict[str, OrderedDict[int, None]] = {}
        self.bytes = 0
        self.dropped = 0
        self.dropped_bytes = 0

    def put(self, key: str, seq: int, output: Output, size: int) -> None:
        self.take(key, seq)  # a resend replaces the earlier copy
        if size > self.max_bytes:
            self._count_drop(size)
            return
        self._items[(key, seq)] = (output, size)
        self._per_session.setdefault(key, OrderedDict())[seq] = None
        self.bytes += size
        seqs = self._per_session[key]
        while len(seqs) > MAX_PENDING_PER_SESSION:
            self._drop((key, next(iter(seqs))))
        while self.bytes > self.max_bytes:
            self._drop(next(iter(self._items)))

    def take(self, key: str, seq: int) -> Output | None:
        found = self._items.pop((key, seq), None)
        if found is None:
            return None
        output, size = found
        self.bytes -= size
        seqs = self._per_session[key]
        del seqs[seq]
        if not seqs:
            del self._per_session[key]
        return output

    def forget_session(self, key: str) -> None:
        for seq in list(self._per_session.get(key, ())):
            self.take(key, seq)

    def _drop(self, item: tuple[str, int]) -> None:
        size = self._items[item][1]
        self.take(*item)
        self._count_drop(size)

    def _count_drop(self, size: int) -> None:
        self.dropped += 1
        self.dropped_bytes += size
        if self.dropped == 1 or self.dropped % 100 == 0:
            log.warning(
                "pending command output over %d bytes in all: dropped the oldest (%d outputs, %d bytes "
                "dropped so far; their commands are recorded without output)",
                self.max_bytes,
                self.dropped,
                self.dropped_bytes,
            )

    def describe(self) -> dict[str, int]:
        return {
            "pending_output_bytes": self.bytes,
            "outputs_dropped": self.dropped,
            "output_bytes_dropped": self.dropped_bytes,
        }
