"""Terminal output as plain text: the one stripper of escape and control sequences, used for the
hooks' captured output and for workflow command output alike, before anything is stored or sent
to a model."""

from __future__ import annotations

import re

_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
_OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_OTHER_ESC = re.compile(rb"\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_=>78]")
_CRLF = re.compile("\r+\n")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")


def strip_ansi(data: bytes) -> str:
    """Terminal output as plain text: escape sequences removed, CR-LF as LF, progress-bar
    redraws (text before a lone CR) dropped."""
    data = _OSC.sub(b"", data)
    data = _CSI.sub(b"", data)
    data = _OTHER_ESC.sub(b"", data)
    data = data.replace(b"\x1b", b"")
    data = _CONTROL.sub(b"", data)
    # CR-LF, and the CR-CR-LF a pty makes of a program's own CR-LF, are one line end.
    text = _CRLF.sub("\n", data.decode("utf-8", "replace"))
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return text
