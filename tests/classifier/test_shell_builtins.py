"""The classifier's own lists of zsh's and fish's builtins, against the installed shells: without
the hook's `type -t` answer (`parsec classify --shell fish`, batch input) they decide whether a
first word is a builtin, so they must say what the shell itself says."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from parsec.routing import Classifier
from parsec.routing.shell_facts import FISH_BUILTINS, ZSH_BUILTINS, ZSH_KEYWORDS

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
