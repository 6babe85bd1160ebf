"""TruncatedText: long command output kept as head + tail around a marker that says what was cut."""

from __future__ import annotations

from pydantic import Field

from .parsec_model import ParsecModel

DEFAULT_LIMIT = 1024  # [context_pruning] max_command_output_length


def clean_text(value: str | bytes) -> str:
    """Text safe for every store: undecodable bytes become U+FFFD, NUL becomes U+2400 (␀).

    PostgreSQL cannot store NUL in text columns, and a record must never be lost for one byte.
    """
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("utf-8", errors="replace")
    if "\x00" in value:
        value = value.replace("\x00", "\u2400")
    return value


def _cut_utf8_head(data: bytes, limit: int) -> bytes:
    """The longest prefix of `data` of at most `limit` bytes that does not split a character."""
    if len(data) <= limit:
        return data
    end = limit
    # Step back over continuation bytes (10xxxxxx) so we stop on a character boundary.
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def _cut_utf8_tail(data: bytes, limit: int) -> bytes:
    """The longest suffix of `data` of at most `limit` bytes that does not split a character."""
    if len(data) <= limit:
        return data
    start = len(data) - limit
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:]


class TruncatedText(ParsecModel):
    """Head and tail of a text; `original_bytes`/`original_lines` describe the whole."""

    head: str = ""
    tail: str = ""
    original_bytes: int = Field(default=0, ge=0)
    original_lines: int = Field(default=0, ge=0)
    omitted_bytes: int = Field(default=0, ge=0)
    omitted_lines: int = Field(default=0, ge=0)

    @property
    def truncated(self) -> bool:
        return self.omitted_bytes > 0

    @classmethod
    def from_output(cls, value: str | bytes, limit: int = DEFAULT_LIMIT) -> TruncatedText:
        """Keep at most `limit` bytes of UTF-8: the first half and the last half.

        Accepts bytes that are not valid UTF-8 (they become U+FFFD) and NUL bytes.
        """
        if limit < 0:
            raise ValueError("limit must be >= 0")
        text = clean_text(value)
        data = text.encode("utf-8")
        lines = _count_lines(text)
        if len(data) <= limit:
            return cls(head=text, original_bytes=len(data), original_lines=lines)
        head = _cut_utf8_head(data, limit - limit // 2)
        tail = _cut_utf8_tail(data, limit // 2)
        omitted = data[len(head) : len(data) - len(tail)]
        return cls(
            head=head.decode("utf-8"),
            tail=tail.decode("utf-8"),
            original_bytes=len(data),
            original_lines=lines,
            omitted_bytes=len(omitted),
            omitted_lines=omitted.count(b"\n"),
        )

    def marker(self) -> str:
        return f"\n[... {self.omitted_bytes} bytes, {self.omitted_lines} lines cut ...]\n"

    def render(self) -> str:
        """The text as it should be shown or sent: head, marker, tail."""
        if not self.truncated:
            return self.head + self.tail
        return self.head + self.marker() + self.tail

    def __str__(self) -> str:
        return self.render()


def _count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)
