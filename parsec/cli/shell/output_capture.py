"""Bounded capture of one command's output: the first and last bytes, and how many there were."""

from __future__ import annotations

from .osc133 import strip_ansi


class OutputCapture:
    """Keeps the first and last `keep` raw bytes of a stream of any size."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.alt_screen = False

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.keep:
                del self.tail[: len(self.tail) - self.keep]

    def text(self) -> str:
        """Plain text; when the middle was dropped, head and tail are joined by a newline.
        The daemon cuts it to head + tail of `max_command_output_length` (TruncatedText)."""
        if self.total <= self.keep:
            return strip_ansi(bytes(self.head))
        joiner = "" if self.total == len(self.head) + len(self.tail) else "\n"
        return strip_ansi(bytes(self.head)) + joiner + strip_ansi(bytes(self.tail))
