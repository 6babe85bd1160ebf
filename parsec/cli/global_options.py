"""The options that come before a command (`parsec --debug --set llm.model=x ask …`): read here
for the typer app and for the fast entries alike, so `parsec --set … ask --yes=low …` means what
`parsec ask --yes=low …` means. Standard library only."""

from __future__ import annotations

from ..errors import UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`parsec history`'s start-up)
if TYPE_CHECKING:
    from typing import Any


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """`--set SECTION.KEY=VALUE` items as {dotted key: value}; values are TOML (numbers,
    booleans, lists) or else plain strings."""
    out: dict[str, Any] = {}
    if not items:
        return out
    import tomllib  # only when there is something to parse: ~3 ms of `parsec history`'s start-up

    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or "." not in key:
            raise UsageError(f"--set expects SECTION.KEY=VALUE, got {item!r}")
        try:
            out[key.strip()] = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = raw
    return out


def split_leading(args: list[str]) -> tuple[bool, list[str], list[str]]:
    """(--debug given, the --set items, the rest from the command on) for the options before the
    command; anything else there (--version, --help, a typo) is left for the typer app."""
    debug, sets, index = False, [], 0
    while index < len(args):
        arg = args[index]
        if arg == "--debug":
            debug = True
        elif arg == "--set" and index + 1 < len(args):
            sets.append(args[index + 1])
            index += 1
        elif arg.startswith("--set="):
            sets.append(arg[len("--set=") :])
        else:
            break
        index += 1
    return debug, sets, args[index:]
