"""The terminal the search draws on: /dev/tty in raw mode, keys decoded, the screen restored.

The shell captures the search's stdout (the chosen line), so drawing goes to /dev/tty itself.
Raw termios and ANSI escapes rather than a terminal library: prompt_toolkit alone costs more to
import than the whole first-frame budget (docs/history.md, "Why no terminal library").
"""

from __future__ import annotations

import os
import select
import termios
import tty

KEYS = {
    b"\r": "enter",
    b"\n": "enter",
    b"\t": "tab",
    b"\x7f": "backspace",
    b"\x08": "backspace",
    b"\x1b": "esc",
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
    b"\x1b[H": "home",
    b"\x1b[F": "end",
    b"\x1bOH": "home",
    b"\x1bOF": "end",
    b"\x1b[1~": "home",
    b"\x1b[4~": "end",
    b"\x1b[3~": "delete",
    b"\x1b[5~": "pageup",
    b"\x1b[6~": "pagedown",
}
ESC_WAIT_S = 0.03  # a lone ESC is the Escape key when nothing follows it this soon


def decode(data: bytes) -> list[str]:
    """Bytes read from the terminal → key names ("up", "ctrl-r", "enter") or typed text."""
    keys: list[str] = []
    text = data.decode("utf-8", "replace")
    raw = text.encode("utf-8", "surrogateescape")
    at = 0
    while at < len(raw):
        if raw[at : at + 1] == b"\x1b":
            end = at + 1
            if end < len(raw) and raw[end : end + 1] in (b"[", b"O"):
                end += 1
                while end < len(raw) and not (0x40 <= raw[end] <= 0x7E):
                    end += 1
                end += 1
            elif end < len(raw):  # Alt+key: read as the key itself
                end += 1
            sequence = raw[at:end]
            keys.append(
                KEYS.get(sequence, "esc" if len(sequence) == 1 else f"alt-{sequence[1:].decode(errors='replace')}")
            )
            at = end
            continue
        byte = raw[at]
        if raw[at : at + 1] in KEYS:
            keys.append(KEYS[raw[at : at + 1]])
            at += 1
        elif byte < 0x20:
            keys.append("ctrl-" + chr(byte + 0x60))
            at += 1
        else:  # a run of printable text (possibly multi-byte)
            end = at
            while end < len(raw) and raw[end] >= 0x20 and raw[end] != 0x7F and raw[end] != 0x1B:
                end += 1
            keys.extend(raw[at:end].decode("utf-8", "replace"))
            at = end
    return keys


class Terminal:
    def __init__(self, path: str = "/dev/tty") -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.saved = termios.tcgetattr(self.fd)

    def raw(self) -> None:
        tty.setraw(self.fd, termios.TCSANOW)  # no echo, no signals: Ctrl-C and Ctrl-S arrive as keys

    def restore(self) -> None:
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
        os.close(self.fd)

    def size(self) -> tuple[int, int]:
        try:
            columns, lines = os.get_terminal_size(self.fd)
        except OSError:
            columns, lines = 80, 24
        return max(columns, 20), max(lines, 5)

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def has_input(self) -> bool:
        return bool(select.select([self.fd], [], [], 0)[0])

    def read_key(self, timeout: float | None = None) -> str | None:
        """The next key, waiting at most `timeout` seconds (None: for ever). Reads one key's bytes
        and no more: what is typed after Enter or Tab stays for the shell."""
        if not select.select([self.fd], [], [], timeout)[0]:
            return None
        data = self._byte()
        if data is None:
            return "ctrl-c"  # the terminal went away: cancel
        if data == b"\x1b":
            data += self._escape_rest()
        elif data[0] >= 0xC0:  # the lead byte of a UTF-8 character: its continuation bytes
            more = 1 if data[0] < 0xE0 else 2 if data[0] < 0xF0 else 3
            for _ in range(more):
                following = self._byte(ESC_WAIT_S)
                if following is None:
                    break
                data += following
        keys = decode(data)
        return keys[0] if keys else None

    def _byte(self, timeout: float | None = None) -> bytes | None:
        if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
            return None
        data = os.read(self.fd, 1)
        return data or None

    def _escape_rest(self) -> bytes:
        """After ESC: `[` or `O` and a sequence up to its final byte, or one key (Alt+key), or
        nothing (the Escape key itself)."""
        second = self._byte(ESC_WAIT_S)
        if second is None:
            return b""
        if second not in (b"[", b"O"):
            return second
        rest = second
        while True:
            following = self._byte(ESC_WAIT_S)
            if following is None:
                return rest
            rest += following
            if 0x40 <= following[0] <= 0x7E:
                return rest
