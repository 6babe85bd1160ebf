r"""Explicit markers the user types to force a route (see the shell-hooks issue).

`?` in front → prompt; `\` in front or the `command` builtin → command. They always win.
"""

from __future__ import annotations

from .decision import Decision


def explicit_override(text: str) -> Decision | None:
    stripped = text.lstrip()
    if stripped.startswith("?"):
        return Decision("prompt", 1.0, "explicit override: leading '?' asks Parsec", 1.0)
    if stripped.startswith("\\") and len(stripped) > 1 and not stripped[1].isspace():
        return Decision("command", 1.0, "explicit override: leading '\\' runs the line as a command", 0.0)
    if stripped.startswith("command ") or stripped == "command":
        return Decision("command", 1.0, "explicit override: 'command' runs the line in the shell", 0.0)
    return None
