"""The scripts in shell-hooks/ are templates: `parsec init` writes the protocol version into each
message, and the daemon refuses one without it (`"v":@PROTOCOL_VERSION@` is not even JSON), so a
template sourced as it is would record nothing without a word. It says so in one line and
installs nothing; the hook loaded afterwards the right way works in the same shell."""

from __future__ import annotations

import pytest

from .conftest import need
from .harness import REPO, Shell, _load_line

MESSAGE = "parsec: load the hook with "
INSTALLED = {  # prints INSTALLED when the hook's functions are defined (typed split, so its echo is not)
    "bash": "declare -F __parsec_precmd >/dev/null && echo IN''STALLED",
    "zsh": "(( $+functions[__parsec_precmd] )) && echo IN''STALLED",
    "fish": "functions -q __parsec_enter; and echo IN''STALLED",
}
HOW = {
    "bash": '`eval "$(parsec init bash)"`',
    "zsh": '`eval "$(parsec init zsh)"`',
    "fish": "`parsec init fish | source`",
}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_template_sourced_raw_says_how_to_load_the_hook_and_installs_nothing(sandbox, fake_daemon, shell):
    need(shell)
    template = REPO / "shell-hooks" / f"parsec.{shell}"
    sh = Shell(shell, sandbox, load_hook=f"source {template}")
    startup = sh.child.before
    assert startup.count(MESSAGE) == 1, startup
    line = startup[startup.index(MESSAGE) :].splitlines()[0]
    assert line == f"{MESSAGE}{HOW[shell]}, not {template} directly: nothing is recorded"
    assert "INSTALLED" not in sh.run(INSTALLED[shell])
    sh.run("echo not recorded")
    # The right way, in the same shell: the hook installs.
    assert "INSTALLED" in sh.run(f"{_load_line(shell)}; {INSTALLED[shell]}")
    sh.exit()
    assert not [m for m in fake_daemon.messages if m.get("command") == "echo not recorded"]
