"""The static hook file: what `parsec init <shell>` prints, kept in the user's data directory so
that a new shell sources it with no Python on its start-up path (issue 12: `eval "$(parsec init
bash)"` cost every new shell 50 ms, most of it starting Python).

The file starts with a short prelude, run by the shell itself with builtins only: it loads
nothing in a non-interactive shell or once Parsec is uninstalled, and when the config file or
Parsec's own files are newer than the file (`-nt`, a stat each), it asks `parsec init` for a
fresh copy (which rewrites the file) and loads that instead. Standard library only.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ... import paths
from .hook_scripts import (
    SHELLS,
    config_path,
    hook_body,
    hook_file,
    hook_path,
    parsec_command,
    quote,
    state_changing_path,
)


def print_hook(shell: str) -> int:
    if shell not in SHELLS:
        sys.stderr.write(f"parsec: unknown shell '{shell}' (choose one of: {', '.join(SHELLS)})\n")
        return 2
    try:
        body = hook_body(shell)
    except OSError as err:
        sys.stderr.write(f"parsec: hook script for {shell} is missing ({err.strerror}); reinstall parsec\n")
        return 1
    sys.stdout.write(body)
    sys.stdout.flush()
    refresh(shell, body, hook_path(shell), config_path())  # what new shells source (hook_file.py)
    return 0


def refresh(shell: str, body: str, hook_source: Path, config: Path) -> Path | None:
    """Write the file for `body` (the settings and the hook) if it differs, else mark it current.
    Best effort: a read-only home must not break `parsec init`; returns None then."""
    target = hook_file(shell)
    text = _prelude(shell, target, hook_source, config) + body
    try:
        if not (target.exists() and target.read_text() == text):
            paths.ensure_private_dir(target.parent)
            temporary = target.with_name(f".{target.name}.{os.getpid()}")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(text)
            os.replace(temporary, target)  # a shell sourcing the old file keeps reading the old one
        # Not older than any input, even one dated in the future, or every shell would refresh it.
        stamp = max([time.time_ns(), *(_mtime(path) for path in (hook_source, config, *_writers()))])
        os.utime(target, ns=(stamp, stamp))
    except OSError:
        return None
    return target


def _writers() -> list[Path]:
    """The code that makes the file: when it changes (an upgrade), the file is made again."""
    here = Path(__file__).resolve()
    version = here.parents[2] / "protocol" / "version.py"  # written into the hook's messages
    return [here, here.with_name("hook_scripts.py"), version, state_changing_path()]


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _prelude(shell: str, target: Path, hook_source: Path, config: Path) -> str:
    """Shell code for the top of the file. The inputs it was made from, baked in: the hook
    script, the code that wrote it (this file and the settings' writer), the config file (and
    whether it existed), and the PARSEC_CONFIG in force."""

    def q(text: str) -> str:
        return quote(text, shell)

    me, src, cfg = q(str(target)), q(str(hook_source)), q(str(config))
    writers = [q(str(path)) for path in _writers()]
    env_cfg = q(os.environ.get("PARSEC_CONFIG", ""))
    bin_ = q(parsec_command() or "parsec")
    head = (
        f"# Parsec's {shell} hook, written by `parsec init {shell}` and rewritten by it when one of the\n"
        "# files named below changes: do not edit (edit the config file). docs/hooks.md.\n"
    )
    if shell == "fish":
        changed = [f"test {path} -nt {me}" for path in (src, *writers)]
        changed.append(f"not test -e {cfg}; or test {cfg} -nt {me}" if config.exists() else f"test -e {cfg}")
        changed.append(f'test "$PARSEC_CONFIG" != {env_cfg}')
        any_changed = "\n        or ".join(changed)
        return (
            head
            + f"""status is-interactive; and test "$PARSEC_DISABLE" != 1; or return 0
test -e {src}; or return 0 # Parsec was uninstalled
if not set -q __parsec_loaded; and begin
        {any_changed}
    end
    set -l fresh ({bin_} init fish 2>/dev/null | string collect)
    if test -n "$fresh"
        printf '%s\\n' $fresh | source
        return 0
    end
end
"""
        )
    changed = [f"{path} -nt {me}" for path in (src, *writers)]
    changed.append(f"! -e {cfg} || {cfg} -nt {me}" if config.exists() else f"-e {cfg}")
    changed.append(f"${{PARSEC_CONFIG-}} != {env_cfg}")
    interactive = "[[ -o interactive" if shell == "zsh" else "[[ $- == *i*"
    any_changed = " || \\\n    ".join(changed)
    return (
        head
        + f"""{interactive} && ${{PARSEC_DISABLE:-0}} != 1 ]] || return 0
[[ -e {src} ]] || return 0 # Parsec was uninstalled
if [[ -z ${{__parsec_loaded-}} ]] && [[ {any_changed} ]] \\
    && __parsec_fresh=$({bin_} init {shell} 2>/dev/null) && [[ -n $__parsec_fresh ]]; then
    eval "$__parsec_fresh"
    unset __parsec_fresh
    return 0
fi
unset __parsec_fresh
"""
    )
