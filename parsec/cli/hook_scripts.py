"""The shell hook scripts, read from the installed package (standard library only)."""

from __future__ import annotations

import sys
from pathlib import Path

SHELLS = ("bash", "zsh", "fish")


def hook_path(shell: str) -> Path:
    here = Path(__file__).resolve().parent.parent
    return here / "hooks" / f"parsec.{shell}"


def print_hook(shell: str) -> int:
    if shell not in SHELLS:
        sys.stderr.write(f"parsec: unknown shell '{shell}' (choose one of: {', '.join(SHELLS)})\n")
        return 2
    try:
        text = hook_path(shell).read_text()
    except OSError as err:
        sys.stderr.write(f"parsec: hook script for {shell} is missing ({err.strerror}); reinstall parsec\n")
        return 1
    sys.stdout.write(_config_defaults(shell) + text)
    return 0


HOOK_SWITCHES = ("route_prompts", "offer_prompt_on_127", "autostart_daemon")


def _config_defaults(shell: str) -> str:
    """Lines that turn off, before the hook loads, what `[hooks]` in the user's config turns off.

    The hook reads PARSEC_HOOKS_* variables (it cannot afford to parse TOML per command); a
    variable already set in the environment still wins, as environment beats config everywhere.
    Any trouble reading the file prints nothing: `parsec init` must always give a working hook,
    and `parsec doctor` reports a broken config."""
    import os
    import tomllib

    from .. import paths

    explicit = os.environ.get("PARSEC_CONFIG")
    try:
        with open(explicit or paths.user_config_file(), "rb") as handle:
            section = tomllib.load(handle).get("hooks", {})
    except (OSError, ValueError):
        return ""
    if not isinstance(section, dict):
        return ""
    lines = []
    for key in HOOK_SWITCHES:
        if section.get(key) is False:
            name = f"PARSEC_HOOKS_{key.upper()}"
            lines.append(f"set -q {name}; or set -g {name} 0\n" if shell == "fish" else f': "${{{name}:=0}}"\n')
    return "".join(lines)
