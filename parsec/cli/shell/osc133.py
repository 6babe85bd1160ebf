"""Finding OSC 133 semantic-prompt marks and alternate-screen switches in a terminal byte stream.

The proxy passes every byte to the terminal before it looks at them; this scanner only reads a
copy, so it never delays or changes output. Marks split across reads are completed from a small
carry-over buffer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...models.terminal import strip_ansi  # noqa: F401  (re-exported: the one stripper lives in models)

# ESC ] 133 ; <kind>[;params] terminated by BEL or ST (ESC \)
_MARK = re.compile(rb"\x1b\]133;([^\x07\x1b]*)(?:\x07|\x1b\\)")
_ALT_SCREEN = re.compile(rb"\x1b\[\?(?:1049|1047|47)h")
_EVENT = re.compile(_MARK.pattern + b"|" + _ALT_SCREEN.pattern)
# A tail that may still grow into one of the sequences above.
_PARTIAL = re.compile(rb"\x1b(?:\](?:1(?:3(?:3(?:;[^\x07\x1b]*\x1b?)?)?)?)?|\[(?:\?[0-9]*)?)?")
_MAX_CARRY = 4096


@dataclass(frozen=True)
class Mark:
    """One OSC 133 mark: kind A (prompt), B (command line), C (executed), D (finished)."""

    kind: str
    params: tuple[str, ...] = ()

    @property
    def exit_status(self) -> int | None:
        if self.kind == "D" and self.params and self.params[0].lstrip("-").isdigit():
            return int(self.params[0])
        return None

    def option(self, name: str) -> str | None:
        """A `name=value` parameter (the hooks add `parsec=<session>:<seq>` to D)."""
        prefix = name + "="
        for param in self.params:
            if param.startswith(prefix):
                return param[len(prefix) :]
        return None


@dataclass(frozen=True)
class AltScreen:
    """The program switched to the alternate screen (vim, less, top …)."""


Event = Mark | AltScreen | bytes


class MarkScanner:
    """Feed it chunks; it yields plain output (bytes) and events, in stream order."""

    def __init__(self) -> None:
        self._carry = b""

    def feed(self, chunk: bytes) -> Iterator[Event]:
        data = self._carry + chunk
        self._carry = b""
        pos = 0
        for match in _EVENT.finditer(data):
            if match.start() > pos:
                yield data[pos : match.start()]
            pos = match.end()
            if match.group(1) is not None:
                fields = match.group(1).decode("utf-8", "replace").split(";")
                yield Mark(fields[0], tuple(fields[1:]))
            else:
                yield AltScreen()
        rest = data[pos:]
        cut = _partial_start(rest)
        if cut is not None:
            self._carry = rest[cut:]
            rest = rest[:cut]
        if rest:
            yield rest


def _partial_start(data: bytes) -> int | None:
    """Where an unfinished mark starts at the end of `data`. Its last ESC may be the first half
    of an ST terminator, so the ESC before it is tried first."""
    last = data.rfind(b"\x1b")
    if last < 0:
        return None
    before = data.rfind(b"\x1b", 0, last)
    for cut in (before, last):
        if cut >= 0 and len(data) - cut <= _MAX_CARRY and _PARTIAL.fullmatch(data, cut):
            return cut
    return None
