"""In fish, a tool loaded after Parsec that binds Ctrl-R (fzf, atuin) keeps it, as in bash and zsh
where the last binding wins (issue 28 item 7: Parsec's hook took the key back at every prompt).
Loaded before Parsec, the tool loses it, as in bash and zsh."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import need
from .harness import Shell, _load_line

FZF = Path("/usr/share/doc/fzf/examples/key-bindings.fish")
LATER_TOOLS = {
    "fzf": f"source {FZF}; fzf_key_bindings",
    "a plain user binding": "function my_search; commandline 'picked'; end; bind \\cr my_search; bind -M insert \\cr my_search",
}
WIDGET = {"fzf": "fzf-history-widget", "a plain user binding": "my_search"}


@pytest.fixture(autouse=True)
def fish_installed():
    need("fish")


@pytest.mark.parametrize("tool", list(LATER_TOOLS))
def test_a_tool_loaded_after_parsec_keeps_ctrl_r(sandbox, tool):
    if tool == "fzf" and not FZF.exists():
        pytest.skip("fzf's fish key bindings are not installed (apt-get install fzf)")
    sh = Shell("fish", sandbox, after=LATER_TOOLS[tool])
    for _ in range(3):  # several prompts: none takes the key back
        out = sh.run("bind \\cr; bind -M insert \\cr")
    assert WIDGET[tool] in out and "__parsec_search" not in out, out
    sh.exit()


def test_a_tool_loaded_before_parsec_loses_ctrl_r(sandbox):
    before = LATER_TOOLS["a plain user binding"]
    sh = Shell("fish", sandbox, before=before, load_hook=_load_line("fish"))
    out = sh.run("bind \\cr; bind -M insert \\cr")
    assert "__parsec_search" in out and "my_search" not in out, out
    sh.exit()
