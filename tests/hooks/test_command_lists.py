"""Issue 28: a list whose first command changes state (`export FOO=bar; echo $FOO`) goes to the
daemon, which used to read the later commands' words as the first one's arguments and ask. With
the real daemon each shell now runs such a list as typed, without the one-key question."""

from __future__ import annotations

import pytest

from .conftest import need
from .harness import Shell


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_list_after_a_state_changing_command_runs_without_asking(sandbox, daemon, shell):
    need(shell)
    sh = Shell(shell, sandbox)
    out = sh.run("export PARSEC_T=ok; echo got-$PARSEC_T")
    out += sh.run("set | grep -q '^PARSEC_T' && echo has-$PARSEC_T")
    if shell != "fish":  # fish has no unset (set -e)
        out += sh.run("unset PARSEC_T; echo gone-$PARSEC_T.")
    sh.exit()
    assert "[a] ask Parsec" not in out
    assert "got-ok" in out and ("gone-." in out or shell == "fish")
    assert "has-ok" in out
