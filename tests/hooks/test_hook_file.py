"""The static hook file a new shell sources (issue 12, start-up cost): no Python when nothing
changed, a fresh copy when the config or Parsec changed, nothing at all once Parsec is gone; and
the rc lines `parsec init SHELL --install` adds and `--uninstall` removes."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from installed import installed_parsec

from .conftest import need
from .harness import Shell

PARSEC = installed_parsec()
SHELLS = ["bash", "zsh", "fish"]


def _parsec(sandbox, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PARSEC), *args], env=sandbox.env, cwd=sandbox.work, capture_output=True, text=True, timeout=60, check=True
    )


def _hook_file(sandbox, kind: str) -> Path:
    return sandbox.root / "data" / "parsec" / f"hook.{kind}"


def _source_line(kind: str, path: Path) -> str:
    from parsec.cli.shell.rc_file import source_line

    return source_line(kind, path)


_LOADED = {  # prints LOADED-42 when the hook is loaded (the 42 is computed: the echoed line lacks it)
    "bash": "typeset -f __parsec_precmd >/dev/null && echo LOADED-$((40+2))",
    "zsh": "typeset -f __parsec_precmd >/dev/null && echo LOADED-$((40+2))",
    "fish": "functions -q __parsec_enter; and echo LOADED-(math 40+2)",
}


def _excluded(sh: Shell) -> str:
    line = "printf '<%s>' $__parsec_exclude" if sh.kind == "fish" else "printf '<%s>' \"${__parsec_exclude[@]}\""
    return sh.run(line)


@pytest.mark.parametrize("kind", SHELLS)
def test_the_file_is_sourced_as_is_until_the_config_changes(kind, sandbox):
    need(kind)
    sandbox.write_config('[privacy]\nexclude_commands = ["^vault "]\n')
    _parsec(sandbox, "init", kind)
    hook = _hook_file(sandbox, kind)
    written = hook.stat().st_mtime_ns
    load = _source_line(kind, hook)

    sh = Shell(kind, sandbox, load_hook=load)
    assert "<^vault >" in _excluded(sh)
    sh.exit()
    assert hook.stat().st_mtime_ns == written  # `parsec init` did not run: the file was not touched

    # The user edits the config: the next shell gets a fresh file with the new settings.
    config = sandbox.root / "config" / "parsec" / "config.toml"
    sandbox.write_config('[privacy]\nexclude_commands = ["^pass "]\n')
    os.utime(config, ns=(written + 10**9, written + 10**9))
    sh = Shell(kind, sandbox, load_hook=load)
    assert "<^pass >" in _excluded(sh)
    sh.exit()
    rewritten = hook.stat().st_mtime_ns
    assert rewritten > written and "^pass " in hook.read_text()

    sh = Shell(kind, sandbox, load_hook=load)
    assert "<^pass >" in _excluded(sh)
    sh.exit()
    assert hook.stat().st_mtime_ns == rewritten


@pytest.mark.parametrize("kind", SHELLS)
def test_nothing_is_loaded_or_said_once_parsec_is_gone(kind, sandbox, tmp_path, monkeypatch):
    need(kind)
    from parsec.cli.shell import hook_file, hook_scripts

    monkeypatch.setenv("XDG_DATA_HOME", sandbox.env["XDG_DATA_HOME"])
    installed = tmp_path / f"installed.{kind}"  # stands for the hook script inside the package
    installed.write_text(hook_scripts.hook_path(kind).read_text())
    hook = hook_file.refresh(kind, hook_scripts.hook_body(kind), installed, tmp_path / "config.toml")
    load = _source_line(kind, hook)
    check = _LOADED[kind]

    sh = Shell(kind, sandbox, load_hook=load)
    assert "LOADED-42" in sh.run(check)
    sh.exit()

    installed.unlink()  # Parsec uninstalled; the rc line and the hook file are still there
    assert _quiet_start(kind, sandbox, load) == ("", "0", "")

    hook.unlink()  # and the hook file removed too
    assert _quiet_start(kind, sandbox, load) == ("", "0", "")


def _quiet_start(kind: str, sandbox, load: str) -> tuple[str, str, str]:
    """What a new shell printed between the rc line before the load line and its first prompt,
    the `$?` its first prompt saw, and whether the hook is loaded."""
    sh = Shell(kind, sandbox, load_hook=load, before="echo BEFORE")
    printed = sh.child.before.replace("\r", "").split("BEFORE\n", 1)[1]
    printed = re.sub(r"\x1b[\[\]][0-9;?]*[a-zA-Z]?", "", printed).strip()
    status = sh.run("echo st=$status" if kind == "fish" else "echo st=$?")
    loaded = sh.run(_LOADED[kind])
    sh.exit()
    return printed, re.findall(r"st=(\d+)", status)[-1], "LOADED-42" if "LOADED-42" in loaded else ""


@pytest.mark.parametrize("kind", SHELLS)
def test_install_adds_the_lines_once_and_uninstall_removes_them(kind, sandbox):
    need(kind)
    from parsec.cli.shell.rc_file import BEGIN, END

    sandbox.env["PATH"] = "/usr/bin:/bin"  # the parsec command's directory is not on PATH
    rc = {
        "bash": sandbox.root / "home" / ".bashrc",
        "zsh": sandbox.root / "home" / ".zshrc",
        "fish": sandbox.root / "config" / "fish" / "config.fish",
    }[kind]
    rc.parent.mkdir(parents=True, exist_ok=True)
    rc.write_text("# the user's own line\n")
    sandbox.env["ZDOTDIR"] = str(sandbox.root / "home")
    _parsec(sandbox, "init", kind, "--install")
    _parsec(sandbox, "init", kind, "--install")
    text = rc.read_text()
    assert text.startswith("# the user's own line\n") and text.count(BEGIN) == 1 and text.count(END) == 1
    assert _hook_file(sandbox, kind).exists()

    block = text[text.index(BEGIN) :]
    sh = Shell(kind, sandbox, load_hook=block)
    out = sh.run("command -v parsec; " + _LOADED[kind])
    assert str(PARSEC) in out and "LOADED-42" in out  # the command is found in a new shell, the hook loaded
    sh.exit()

    rc.write_text(text)  # the harness wrote its own rc file for that shell
    _parsec(sandbox, "init", kind, "--uninstall")
    assert rc.read_text() == "# the user's own line\n"
    assert not _hook_file(sandbox, kind).exists()
