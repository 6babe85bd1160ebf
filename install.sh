#!/bin/sh
# Installs Parsec from this directory for the current user: no root, and the system's Python is
# left alone (Debian's refuses `pip install` outside a virtualenv: externally-managed-environment).
#   - a private virtualenv:   ${XDG_DATA_HOME:-~/.local/share}/parsec/venv
#   - the command:            ~/.local/bin/parsec (a link into it)
#   - the hook for your login shell ($SHELL, or the one named: sh install.sh zsh):
#     `parsec init SHELL --install`, a marked block in the shell's rc file that also puts
#     ~/.local/bin on PATH (and one in the login file, for login shells: rc_file.py).
# Run it again to upgrade (e.g. after `git pull`): the blocks are replaced where they stand.
# README.md says how to turn Parsec off or remove it.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
case ${XDG_DATA_HOME:-} in /*) data=$XDG_DATA_HOME ;; *) data=$HOME/.local/share ;; esac
venv=$data/parsec/venv
bindir=$HOME/.local/bin
python=${PYTHON:-python3}
shell=${1:-$(basename "${SHELL:-bash}")}

say() { printf 'install.sh: %s\n' "$*"; }

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    say "Parsec needs Python 3.11 or newer as '$python' (set PYTHON=/path/to/python3.11 to pick one)" >&2
    exit 1
fi

# The virtualenv, with its own pip when the system can make one (Debian: package python3-venv);
# else a bare one that the system's pip installs into (`pip --python`, pip >= 22.3).
if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        "$python" -m venv --without-pip "$venv"
    fi
fi
if "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    set -- "$venv/bin/python" -m pip
elif "$python" -m pip --help 2>/dev/null | grep -q -- '--python'; then
    set -- "$python" -m pip --python "$venv/bin/python"
else
    say "no pip for the virtualenv: install python3-venv (Debian/Ubuntu: sudo apt install python3-venv) and run me again" >&2
    exit 1
fi
say "installing Parsec into $venv"
"$@" install --quiet --disable-pip-version-check --upgrade "$here"

mkdir -p "$bindir"
ln -sf "$venv/bin/parsec" "$bindir/parsec"
say "linked $bindir/parsec"

case $shell in
bash | zsh | fish) "$bindir/parsec" init "$shell" --install ;;
*) say "no hook for '$shell': run \`parsec init bash|zsh|fish --install\` for the shell you use" ;;
esac
# This script cannot change the PATH of the shell that runs it: say what makes `parsec` usable there.
case ":$PATH:" in
*":$bindir:"*) ;;
*) say "parsec is in $bindir, not yet on this shell's PATH: run \`exec \$SHELL\` (or open a new terminal)" ;;
esac
