"""The shell hook scripts, read from the installed package (standard library only)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from ... import paths

SHELLS = ("bash", "zsh", "fish")


def hook_path(shell: str) -> Path:
    here = Path(__file__).resolve().parents[2]
    return here / "hooks" / f"parsec.{shell}"


def state_changing_path() -> Path:
    """The classifier's list of commands that change state (routing/danger.py), read here as
    data: `parsec init` must not import the classifier."""
    return Path(__file__).resolve().parents[2] / "routing" / "state_changing.txt"


def parsec_command() -> str | None:
    """The `parsec` command that is running now, as the user called it (a link in ~/.local/bin
    stays that link), or the one beside this Python; None when neither is known."""
    argv0 = sys.argv[0]
    if os.path.basename(argv0) == "parsec" and os.access(argv0, os.X_OK):
        return os.path.abspath(argv0)
    sibling = Path(sys.executable).with_name("parsec")
    if os.access(sibling, os.X_OK):
        return str(sibling)
    import shutil  # rarely needed: not on the `parsec init` path of a virtualenv

    return shutil.which("parsec")


def hook_file(shell: str) -> Path:
    """The static hook file new shells source (hook_file.py writes it)."""
    return paths.data_dir() / f"hook.{shell}"


def hook_body(shell: str) -> str:
    """The settings from the user's config, then the hook script."""
    return _config_defaults(shell) + hook_script(shell)


VERSION_SLOT = "@PROTOCOL_VERSION@"


def hook_script(shell: str) -> str:
    """The hook script with the protocol version written into its messages: the shell pastes it
    as text, no work per command (the scripts in shell-hooks/ are templates with VERSION_SLOT)."""
    from ...protocol.version import PROTOCOL_VERSION  # standard library only, like this module

    return hook_path(shell).read_text().replace(VERSION_SLOT, str(PROTOCOL_VERSION))


HOOK_SWITCHES = ("route_prompts", "offer_prompt_on_127", "autostart_daemon")


def _config_defaults(shell: str) -> str:
    """Lines put before the hook from the user's config file: what `[hooks]` turns off, and the
    `[privacy] exclude_commands` the shell can test itself, so such lines never leave it.

    The hook reads PARSEC_HOOKS_* variables (it cannot afford to parse TOML per command); a
    variable already set in the environment still wins, as environment beats config everywhere.
    A file that cannot be read counts as empty: `parsec init` must always give a working hook,
    and `parsec doctor` reports a broken config."""
    config = _user_config()
    hooks, privacy = _table(config, "hooks"), _table(config, "privacy")
    lines = []
    for key in HOOK_SWITCHES:
        if hooks.get(key) is False:
            name = f"PARSEC_HOOKS_{key.upper()}"
            lines.append(f"set -q {name}; or set -g {name} 0\n" if shell == "fish" else f': "${{{name}:=0}}"\n')
    lines += _search_keys(shell, _table(config, "search"))
    patterns = privacy.get("exclude_commands")
    lines.append(
        _exclude_line(shell, [p for p in patterns if isinstance(p, str) and p] if isinstance(patterns, list) else [])
    )
    lines.append(_state_changing_line(shell))
    # The file `parsec init --uninstall` removes: an open shell that finds it gone turns its hook off.
    marker = quote(str(hook_file(shell)), shell)
    lines.append(f"set -g __parsec_hook_file {marker}\n" if shell == "fish" else f"__parsec_hook_file={marker}\n")
    command = parsec_command()  # for the autostart, in a new terminal where `parsec` is off PATH
    if command:
        lines.append(
            f"set -g __parsec_bin {quote(command, shell)}\n"
            if shell == "fish"
            else f"__parsec_bin={quote(command, shell)}\n"
        )
    return "".join(lines)


def _state_changing_line(shell: str) -> str:
    """`__parsec_state_changing` for the hook: with words after one of these commands, the line
    goes to the daemon even when it looks plainly like a command (`set alias "m" for command
    "mplayer -loop 0"` has an option, and would overwrite $1)."""
    try:
        names = state_changing_path().read_text().split()
    except OSError:  # a broken install: the hook then asks only as it did before
        names = []
    if shell == "fish":
        return f"set -g __parsec_state_changing {' '.join(quote(name, shell) for name in names)}\n"
    return f"__parsec_state_changing={quote(' ' + ' '.join(names) + ' ', shell)}\n"


_KEY_NOTATION = re.compile(r"[A-Za-z0-9\\^\[\]-]{1,16}")  # \es, \C-s, ^S, \cs: no quoting needed


def _search_keys(shell: str, search: dict) -> list[str]:
    """PARSEC_SEARCH_* for the hook's key bindings from `[search]` (defaults need no line)."""
    values = {}
    if search.get("bind_ctrl_r") is False:
        values["PARSEC_SEARCH_BIND_CTRL_R"] = "0"
    if search.get("bind_up_arrow") is True:
        values["PARSEC_SEARCH_BIND_UP_ARROW"] = "1"
    key = search.get("key")
    if isinstance(key, str) and _KEY_NOTATION.fullmatch(key):
        values["PARSEC_SEARCH_KEY"] = key
    if shell == "fish":  # unquoted: fish reads the key's escapes (\es) when it parses the line
        return [f"set -q {name}; or set -g {name} {value}\n" for name, value in values.items()]
    return [f"[[ -n ${{{name}+x}} ]] || {name}='{value}'\n" for name, value in values.items()]


def _table(config: dict, name: str) -> dict:
    table = config.get(name)
    return table if isinstance(table, dict) else {}


def config_path() -> Path:
    import os

    from ... import paths

    return Path(os.environ.get("PARSEC_CONFIG") or paths.user_config_file())


def _user_config() -> dict:
    import tomllib

    try:
        with open(config_path(), "rb") as handle:
            return tomllib.load(handle)
    except (OSError, ValueError):
        return {}


# Python regex syntax that POSIX extended regexes (bash's and zsh's =~) lack or read otherwise:
# class escapes (\d \s \w \b ...), groups with options (?...), lazy quantifiers. A pattern using
# any of it is left to the daemon, which drops matching records itself.
_NOT_ERE = ("(?", "*?", "+?", "??", "}?")


def _exclude_line(shell: str, patterns: list[str]) -> str:
    """`__parsec_exclude` for the hook: every pattern for fish (PCRE2, as Python's), the ones that
    mean the same as an extended regex for bash and zsh. Always set, so a re-init clears it."""
    if shell != "fish":
        patterns = [p for p in patterns if _portable_ere(p)]
    quoted = " ".join(quote(p, shell) for p in patterns)
    return f"set -g __parsec_exclude {quoted}\n" if shell == "fish" else f"__parsec_exclude=({quoted})\n"


def _portable_ere(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    if any(token in pattern for token in _NOT_ERE):
        return False
    # A backslash may only escape punctuation (\. \* \( ...), which means the same in both.
    return all(not ch.isalnum() for ch in re.findall(r"\\(.)", pattern))


def quote(text: str, shell: str) -> str:
    if shell == "fish":  # inside fish's single quotes only \\ and \' are special
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "'\\''") + "'"
