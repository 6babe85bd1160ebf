"""`parsec init <shell> --install | --uninstall`: the lines in the shell's rc file that load the
static hook file (hook_file.py), added and removed between two marker comments.

The lines are harmless when Parsec is gone: the file is sourced only if it is readable, and the
file itself loads nothing once Parsec is uninstalled. A line puts the `parsec` command's directory
at the end of PATH unless it is there already. It is always written, whatever the installing
shell's PATH (a bash whose ~/.profile had added ~/.local/bin left it out, and zsh and fish login
shells, which never read that file, had no `parsec`), and a login shell gets it too: bash from
its login file (the first of ~/.bash_profile, ~/.bash_login, ~/.profile, which need not read
~/.bashrc), zsh from ~/.zshenv (every zsh), fish from config.fish (every fish).

Installing again (install.sh to upgrade) replaces a block where it stands: a tool whose lines
come after Parsec's (atuin, fzf) still loads after it and keeps Ctrl-R.
"""

from __future__ import annotations

import os
from pathlib import Path

from ... import paths
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


def login_paths(shell: str) -> list[Path]:
    """The files a login shell may read that the rc file may not reach, in the order it looks
    (none for fish: config.fish is read by every fish)."""
    if shell == "zsh":
        return [rc_path("zsh").with_name(".zshenv")]
    if shell == "bash":
        home = Path.home()
        return [home / name for name in (".bash_profile", ".bash_login", ".profile")]
    return []


def login_path(shell: str) -> Path | None:
    """The login file the PATH line goes in: the first that exists (bash reads only that one),
    else the last (~/.profile); None for fish."""
    paths = login_paths(shell)
    return next((path for path in paths if path.exists()), paths[-1] if paths else None)


def path_line(shell: str, bin_dir: str) -> str:
    directory = quote(bin_dir, shell)
    if shell == "fish":
        return f"contains -- {directory} $PATH; or set -gx PATH $PATH {directory}"
    return f'case ":$PATH:" in *:{directory}:*) ;; *) PATH="$PATH:"{directory} ;; esac'


def block(shell: str, hook: Path | None, bin_dir: str | None) -> str:
    """The marked lines: PATH (when the command's directory is known), then the hook's load line."""
    lines = [f"{BEGIN} (`parsec init {shell} --uninstall` removes these lines)"]
    if bin_dir:
        lines.append(path_line(shell, bin_dir))
    if hook is not None:
        lines.append(source_line(shell, hook))
    lines.append(END)
    return "\n".join(lines) + "\n"


def install(shell: str, hook: Path, command: str | None) -> str:
    """Add the block, or replace it where it stands; returns what was done, for the user."""
    rc = rc_path(shell)
    bin_dir = os.path.dirname(command) if command else None
    _put_block(rc, block(shell, hook, bin_dir))
    done = f"{rc}: added the lines that load {hook} (new {shell} shells are hooked)"
    login = login_path(shell)
    if bin_dir and login is not None:
        _put_block(login, block(shell, None, bin_dir))
        done += f"\n{login}: added the line that puts {bin_dir} on PATH (login shells)"
    return done


def uninstall(shell: str, hook: Path) -> str:
    rc = rc_path(shell)
    text = _read(rc)
    done = []
    if BEGIN in text:
        rc.write_text(_without_block(text))
        done.append(f"{rc}: removed Parsec's lines")
    # Every login file, not only the one an install would pick now: a ~/.bash_profile made since
    # the install (which wrote to ~/.profile) hides the block from login_path.
    for login in login_paths(shell):
        if BEGIN not in _read(login):
            continue
        rest = _without_block(_read(login))
        if rest.strip():
            login.write_text(rest)
        else:  # it held only Parsec's lines (made by the install when the shell had no login file)
            login.unlink()
        done.append(f"{login}: removed Parsec's lines")
    if hook.exists():
        hook.unlink()
        done.append(f"removed {hook}")
    return "\n".join(done) or f"nothing to remove for {shell}"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def _put_block(path: Path, new: str) -> None:
    """`new` in place of the file's block (the first; any other is dropped), else at its end."""
    text = _read(path)
    start = _block_start(text)
    if start < len(text):
        path.write_text(text[:start] + new + _without_block(text[start:]))
        return
    if text and not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + new)


def _block_start(text: str) -> int:
    """Where the first line starting with BEGIN starts."""
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.startswith(BEGIN):
            return offset
        offset += len(line)
    return len(text)


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
