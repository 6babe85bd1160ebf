"""Line framing: one JSON object per line, with the size limit enforced while reading.

`asyncio.StreamReader(limit=...)` stops buffering once a line would exceed the limit, so a
client cannot make the daemon allocate more than about twice `max_message_bytes` per connection.
"""

from __future__ import annotations

import asyncio
import socket

from ..errors import DaemonUnavailable, ProtocolError


class MessageTooLarge(ProtocolError):
    pass


class ConnectionClosed(Exception):
    """The peer closed the connection between messages (the normal end of a conversation)."""


async def read_line(reader: asyncio.StreamReader) -> bytes:
    """The next line without its newline. The reader's own `limit` is the size limit."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise MessageTooLarge("message larger than the limit") from None
    except asyncio.IncompleteReadError as err:
        if err.partial:
            # A last line without its newline: accept it, the peer has said all it will say.
            return err.partial
        raise ConnectionClosed() from None
    return line[:-1]


class LineSocket:
    """Blocking line I/O over a socket, for the client side (CLI, tests, benchmark)."""

    def __init__(self, sock: socket.socket, limit: int) -> None:
        self.sock = sock
        self.limit = limit
        self._buffer = bytearray()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_line(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > self.limit:
                raise MessageTooLarge("reply larger than the limit")
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DaemonUnavailable("the daemon closed the connection")
            self._buffer += chunk

    def close(self) -> None:
        self.sock.close()
