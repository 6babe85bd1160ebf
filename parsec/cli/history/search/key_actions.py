"""What each key does in the search (docs/history.md lists them)."""

from __future__ import annotations

ACTIONS = {
    "enter": "run",
    "tab": "edit",
    "esc": "cancel",
    "ctrl-g": "cancel",
    "ctrl-c": "cancel",
    "ctrl-d": "forget",
    "ctrl-r": "filter",  # this directory, tree, repository, session, host, failed, everywhere
    "ctrl-s": "mode",  # fuzzy, prefix, full text
    "up": "up",
    "ctrl-p": "up",
    "down": "down",
    "ctrl-n": "down",
    "pageup": "pageup",
    "pagedown": "pagedown",
}
MOVES = {"up": -1, "down": 1, "pageup": -2, "pagedown": 2}  # ±2: a page


def edit_query(query: str, cursor: int, key: str) -> tuple[str, int] | None:
    """The query and cursor after an editing key; None for a key that does nothing here."""
    if len(key) == 1 and key.isprintable():
        return query[:cursor] + key + query[cursor:], cursor + 1
    if key == "backspace":
        return (query[: cursor - 1] + query[cursor:], cursor - 1) if cursor else (query, cursor)
    if key == "delete":
        return query[:cursor] + query[cursor + 1 :], cursor
    if key == "left":
        return query, max(0, cursor - 1)
    if key == "right":
        return query, min(len(query), cursor + 1)
    if key in ("home", "ctrl-a"):
        return query, 0
    if key in ("end", "ctrl-e"):
        return query, len(query)
    if key == "ctrl-u":
        return query[cursor:], 0
    if key == "ctrl-k":
        return query[:cursor], cursor
    if key == "ctrl-w":
        start = len(query[:cursor].rstrip())
        start = query.rfind(" ", 0, start) + 1
        return query[:start] + query[cursor:], start
    return None
