"""`python -m parsec.daemon [--set SECTION.KEY=VALUE ...]`: the daemon in the foreground.

What `parsec daemon start` spawns (without the CLI's start-up cost)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from ..config import load_config
    from ..errors import ParsecError
    from .lifecycle import run_foreground

    # A worker thread masking a long record runs Python between RE2 calls: the event loop's thread
    # gets the GIL back within 1 ms (default 5 ms), so other shells' round trips stay short.
    sys.setswitchinterval(0.001)
    items = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--set"]
    try:
        settings = load_config(_overrides(items)).settings
        return run_foreground(settings)
    except ParsecError as err:
        sys.stderr.write(f"parsec daemon: {err}\n")
        return err.exit_code


def _overrides(items: list[str]) -> dict[str, object]:
    """`SECTION.KEY=VALUE` items as `parsec --set` reads them (TOML values, else strings)."""
    import tomllib

    out: dict[str, object] = {}
    for item in items:
        key, _, raw = item.partition("=")
        try:
            out[key.strip()] = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            out[key.strip()] = raw
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
