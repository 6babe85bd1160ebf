"""The classifier's own lists of zsh's and fish's builtins, against the installed shells: without
the hook's `type -t` answer (`parsec classify --shell fish`, batch input) they decide whether a
first word is a builtin, so they must say what the shell itself says."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from parsec.routing import Classifier
from parsec.routing.shell_facts import FISH_BUILTINS, FISH_FUNCTIONS, ZSH_BUILTINS, ZSH_KEYWORDS

LISTING = {
    "zsh": (["zsh", "-fc", "print -l ${(k)builtins}"], ZSH_BUILTINS),
    "zsh-keywords": (["zsh", "-fc", "print -l ${(k)reswords}"], ZSH_KEYWORDS),
    "fish": (["fish", "--no-config", "-c", "builtin -n"], FISH_BUILTINS),
}


@pytest.mark.parametrize("what", sorted(LISTING))
def test_lists_match_the_installed_shell(what):
    argv, ours = LISTING[what]
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    theirs = set(subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split())
    assert ours <= theirs, f"not {what} here: {sorted(ours - theirs)}"
    # A newer shell may add builtins; ours were read from zsh 5.9 and fish 3.6.
    version = subprocess.run([argv[0], "--version"], capture_output=True, text=True).stdout
    if "5.9" in version or "3.6." in version:
        assert theirs == ours, f"missing from our list: {sorted(theirs - ours)}"


def test_parsec_classify_resolves_the_shells_builtins():
    """`status full` runs fish's `status`; in bash `status` is no command at all."""
    classifier = Classifier()
    assert classifier.classify("status full", shell="fish").decision == "command"
    assert classifier.classify("zstyle ':completion:*' menu select", shell="zsh").decision == "command"
    if shutil.which("status") is None:
        assert classifier.classify("status full", shell="bash").decision != "command"


# Each of fish's own function files, with what `type -t` says of it in a fish without config.
FISH_FUNCTION_KINDS = r"""for f in $__fish_data_dir/functions/*.fish
    set -l name (path change-extension '' (path basename $f))
    echo $name (type -t $name 2>/dev/null; or echo none)
end"""


def test_fish_functions_are_what_fish_ships():
    """`type -t ls` is "function" in fish (the hook sends that): the list says which functions
    come with fish, so a line is weighed the same with and without the hook's answer."""
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    out = subprocess.run(["fish", "--no-config", "-c", FISH_FUNCTION_KINDS], capture_output=True, text=True)
    kinds = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    shipped = {name for name, kind in kinds.items() if kind == "function" and not name.startswith("_")}
    assert shipped >= FISH_FUNCTIONS, f"not fish functions here: {sorted(FISH_FUNCTIONS - shipped)}"
    version = subprocess.run(["fish", "--version"], capture_output=True, text=True).stdout
    if "3.6." in version:  # `open` and `seq` are functions only where no such program exists
        assert shipped - {"open", "seq"} == FISH_FUNCTIONS, f"missing from our list: {sorted(shipped - FISH_FUNCTIONS)}"


@pytest.mark.parametrize("line", ["umask 022", "trap --print", "vared PATH"])
def test_fish_functions_resolve_without_the_hook(line):
    """`parsec classify --shell fish` agrees with the hook, which asks `type -t` (a function)."""
    assert Classifier().classify(line, shell="fish").decision == "command"


@pytest.mark.parametrize("line", ["man page for tar", "ls the biggest files"])
def test_a_function_fish_ships_weighs_as_a_builtin(line):
    """The fish hook sends "function" for `man`, `history`, `ls`: no sign the user chose the
    word, as their own function would be, so prose after it routes as in bash."""
    in_bash = Classifier().classify(line, "file", shell="bash")
    assert Classifier().classify(line, "function", shell="fish").decision == in_bash.decision != "command"
