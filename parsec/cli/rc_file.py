"""`parsec init <shell> --install | --uninstall`: the lines in the shell's rc file that load the
static hook file (hook_file.py), added and removed between two marker comments.

The lines are harmless when Parsec is gone: the file is sourced only if it is readable, and the
file itself loads nothing once Parsec is uninstalled. When the `parsec` command's directory is
not on PATH (e.g. ~/.local/bin before the next login on Debian), a line puts it at the end.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from .hook_scripts import quote

BEGIN = "# >>> parsec >>>"
END = "# <<< parsec <<<"


def rc_path(shell: str) -> Path:
    if shell == "fish":
        return paths.config_dir().parent / "fish" / "config.fish"
    if shell == "zsh":
        return Path(os.environ.get("ZDOTDIR") or Path.home()) / ".zshrc"
    return Path.home() / ".bashrc"


def source_line(shell: str, hook: Path) -> str:
    """The one line that loads the hook: silent, and `$?` 0, when the file is not there."""
    file = quote(str(hook), shell)
    if shell == "fish":
        return f"if test -r {file}; source {file}; end"
    return f"if [ -r {file} ]; then . {file}; fi"


def block(shell: str, hook: Path, bin_dir: str | None) -> str:
    lines = [f"{BEGIN} (`parsec init {shell} --uninstall` removes these lines)"]
    if bin_dir and bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        directory = quote(bin_dir, shell)
        if shell == "fish":
            lines.append(f"contains -- {directory} $PATH; or set -gx PATH $PATH {directory}")
        else:
            lines.append(f'case ":$PATH:" in *:{directory}:*) ;; *) PATH="$PATH:"{directory} ;; esac')
    lines += [source_line(shell, hook), END]
    return "\n".join(lines) + "\n"


def install(shell: str, hook: Path, command: str | None) -> str:
    """Add (or replace) the block; returns what was done, for the user."""
    rc = rc_path(shell)
    text = _without_block(_read(rc))
    bin_dir = os.path.dirname(command) if command else None
    if text and not text.endswith("\n"):
        text += "\n"
    rc.parent.mkdir(parents=True, exist_ok=True)
    rc.write_text(text + block(shell, hook, bin_dir))
    return f"{rc}: added the lines that load {hook} (new {shell} shells are hooked)"


def uninstall(shell: str, hook: Path) -> str:
    rc = rc_path(shell)
    text = _read(rc)
    done = []
    if BEGIN in text:
        rc.write_text(_without_block(text))
        done.append(f"{rc}: removed Parsec's lines")
    if hook.exists():
        hook.unlink()
        done.append(f"removed {hook}")
    return "\n".join(done) or f"nothing to remove for {shell}"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def _without_block(text: str) -> str:
    out, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith(BEGIN):
            inside = True
        elif inside and line.startswith(END):
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)
