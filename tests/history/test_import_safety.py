"""`parsec import` next to live recording, and files that are not the named shell's history.

Commands come in through a real daemon (as the hooks send them), the history file is written
the way each shell writes it, and `parsec import` runs as a process against the same store."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daemon.harness import Sandbox, finished


@pytest.fixture
def box():
    sandbox = Sandbox()
    yield sandbox
    sandbox.close()


def record_live(box: Sandbox, commands: list[str], start: float) -> list[float]:
    """Send each command as the hook does, a fraction of a second into its own second."""
    times = []
    box.run()
    with box.client(timeout=60) as client:
        for seq, command in enumerate(commands, 1):
            when = start + seq * 7 + 0.6  # zsh writes floor(start), the hook the exact start
            message = finished("500-1.0", seq, command) | {"started_at": when, "finished_at": when + 0.2}
            assert client.call("command_finished", **message)["recorded"]
            times.append(when)
        assert client.call("flush")["in_store"] is True
    box.kill()
    return times


def history_rows(box: Sandbox) -> list[dict]:
    result = box.cli("history", "--json", "-n", "0")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


LIVE = ["git status", "make test", "git status", "vim notes.md"]


def write_history(shell: str, path: Path, entries: list[tuple[float, str]]) -> None:
    if shell == "zsh":
        path.write_text("".join(f": {int(when)}:0;{command}\n" for when, command in entries))
    elif shell == "bash":
        path.write_text("".join(f"#{int(when)}\n{command}\n" for when, command in entries))
    else:
        path.write_text("".join(f"- cmd: {command}\n  when: {int(when)}\n" for when, command in entries))


@pytest.mark.parametrize("shell", ["zsh", "bash", "fish"])
def test_import_skips_what_the_hooks_already_recorded(box, tmp_path, shell) -> None:
    start = time.time() - 3600
    times = record_live(box, LIVE, start)
    older = [(start - 86400 * 400, "ls -la"), (start - 86400 * 399, "git status")]  # before Parsec
    history = tmp_path / f"{shell}_history"
    write_history(shell, history, older + list(zip(times, LIVE)) + [(times[-1] + 5, "git status")])

    first = box.cli("import", shell, str(history))
    assert first.returncode == 0, first.stderr
    assert "7 entries, 3 added, 0 already present, 4 already recorded live" in first.stdout
    rows = history_rows(box)
    assert sorted(r["command"] for r in rows) == sorted(LIVE + ["ls -la", "git status", "git status"])
    live_rows = [r for r in rows if r["source"] != "import"]
    assert len(live_rows) == 4 and all(r["exit_status"] is not None and r["cwd"] == "/tmp" for r in live_rows)

    second = box.cli("import", shell, str(history))
    assert "7 entries, 0 added, 3 already present, 4 already recorded live" in second.stdout, second.stdout
    assert len(history_rows(box)) == 7


def test_a_command_typed_twice_in_one_second_is_matched_once_each(box, tmp_path) -> None:
    start = time.time() - 600
    box.run()
    with box.client(timeout=60) as client:
        for seq, offset in ((1, 0.1), (2, 0.5)):
            message = finished("501-1.0", seq, "make") | {"started_at": start + offset, "finished_at": start + offset}
            client.call("command_finished", **message)
        client.call("flush")
    box.kill()
    history = tmp_path / "zsh_history"
    second = int(start)
    history.write_text(f": {second}:0;make\n: {second}:0;make\n: {second}:0;make\n")
    result = box.cli("import", "zsh", str(history))
    assert "3 entries, 1 added, 0 already present, 2 already recorded live" in result.stdout, result.stdout
    assert [r["command"] for r in history_rows(box)] == ["make", "make", "make"]


@pytest.mark.parametrize(
    "shell, content, reason",
    [
        (
            "zsh",
            Path("/etc/passwd").read_bytes() if Path("/etc/passwd").exists() else b"root:x:0:0:root:/root:/bin/bash\n",
            "lines start with a command",
        ),
        (
            "bash",
            b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
            b"bin:x:2:2:bin:/bin:/usr/sbin/nologin\n",
            "lines start with a command",
        ),
        (
            "fish",
            b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
            "is a fish history entry",
        ),
        ("bash", b": 1700000000:0;ls\n: 1700000001:0;make\n", "looks like zsh history; use `parsec import zsh`"),
        ("zsh", b"- cmd: ls\n  when: 1700000000\n- cmd: make\n  when: 1700000001\n", "looks like fish history"),
        ("fish", b"#1700000000\nls\n#1700000001\nmake\n", "looks like bash history"),
        ("zsh", b"\x7fELF\x02\x01\x01\x00\x00\x00ls\n", "binary file"),
    ],
)
def test_a_file_that_is_not_that_shells_history_is_refused(box, tmp_path, shell, content, reason) -> None:
    path = tmp_path / "not_history"
    path.write_bytes(content)
    result = box.cli("import", shell, str(path))
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert f"is not {shell} history" in line and reason in line and "nothing imported" in line, line
    assert not box.db.exists() or box.execution_count() == 0


def test_plain_histories_of_each_shell_are_accepted(box, tmp_path) -> None:
    path = tmp_path / "plain"
    path.write_text("cd src\nls -la\ngit status\nFOO=1 make test\n./configure --prefix=/usr\nmyalias\n")
    for shell in ("bash", "zsh"):
        result = box.cli("import", shell, str(path))
        assert result.returncode == 0, result.stderr
        assert "6 entries" in result.stdout


def test_a_plain_zsh_history_of_zsh_builtins_is_zsh_history(box, tmp_path) -> None:
    """`setopt`, `bindkey`, `zstyle`, `autoload` are zsh builtins, no programs on PATH: the check
    that tells a history from /etc/passwd knows the named shell's builtins, not only bash's."""
    path = tmp_path / "zsh_history"
    path.write_text("setopt extended_glob\nbindkey -v\nzstyle ':completion:*' menu select\nautoload -U compinit\nls\n")
    result = box.cli("import", "zsh", str(path))
    assert result.returncode == 0, result.stderr
    assert "5 entries" in result.stdout


def test_import_says_what_a_configured_history_retention_would_remove(box, tmp_path) -> None:
    now = time.time()
    history = tmp_path / "zsh_history"
    write_history("zsh", history, [(now - 86400 * 900, "ls"), (now - 86400 * 45, "make"), (now - 60, "git status")])
    quiet = box.cli("import", "zsh", str(history))
    assert "3 added" in quiet.stdout and "retention" not in quiet.stdout  # history is kept forever by default
    dated = box.cli("--set", "context_management.history_retention_days=30", "import", "zsh", str(history))
    assert "history_retention_days = 30 will remove 2 of the imported commands" in dated.stdout, dated.stdout
    assert len(history_rows(box)) == 3  # said before anything is removed
    pruned = box.cli("prune")  # the default policy keeps the imported history
    assert pruned.returncode == 0 and len(history_rows(box)) == 3


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_history_damaged_by_a_crash_is_imported_minus_the_damaged_lines(box, tmp_path, shell) -> None:
    """A crash leaves a block of NUL bytes in a history file (bash writes it in place): the lines
    the block touches are skipped and counted, the rest imported, not the whole file refused."""
    entry = {
        "bash": lambda n: f"#{1700000000 + n}\necho entry {n}\n",
        "zsh": lambda n: f": {1700000000 + n}:0;echo entry {n}\n",
        "fish": lambda n: f"- cmd: echo entry {n}\n  when: {1700000000 + n}\n",
    }[shell]
    before = "".join(entry(n) for n in range(20)).encode()
    after = "".join(entry(n) for n in range(21, 40)).encode()
    damaged = entry(20).encode()[:5] + b"\0" * 4096  # the block swallowed the rest of entry 20
    path = tmp_path / "history"
    path.write_bytes(before + damaged + b"\n" + after)
    result = box.cli("import", shell, str(path))
    assert result.returncode == 0, result.stderr
    assert "39 entries, 39 added" in result.stdout and "1 malformed lines skipped" in result.stdout, result.stdout
    commands = {row[0] for row in box.sql("select command from executions")}
    assert commands == {f"echo entry {n}" for n in range(40) if n != 20}


def test_an_endless_file_is_refused_in_bounded_memory(box, tmp_path) -> None:
    """/dev/zero never ends a line: refused with one line once past the size no history reaches,
    without reading it all into memory first (it reached 9 GB in 63 s).

    Measured in a fresh process against its own baseline: ru_maxrss would not do, as Linux carries
    the parent's peak across fork and exec (a pytest worker that has loaded the classifier and
    corpora starts its child at 200+ MiB, which made an absolute bound fail under -n 2). VmHWM is
    the new process's own; the baseline is taken after a first, tiny refused import has loaded all
    the code the second one runs, so what remains is what reading /dev/zero holds."""
    tiny = tmp_path / "tiny"
    tiny.write_bytes(b"\0" * 64 + b"\n")  # refused as binary: the same code path, at once
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AND_REPORT_GROWTH, "bash", str(tiny), "/dev/zero"],
        env=box.env,
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard
    )
    assert result.returncode == 2, result.stderr[-2000:]
    [line] = result.stderr.strip().splitlines()[-1:]
    assert "/dev/zero is not bash history" in line and "MiB" in line and "nothing imported" in line, line
    growth_mib = int(result.stdout.split("GROWTH_KIB=")[-1]) / 1024
    # The size limit is 256 MiB and a line is held at most 1 MiB at a time: reading the file
    # whole before refusing it would grow by 256 MiB or more.
    assert growth_mib < 64, growth_mib


# Imports a tiny file (loading the code), then /dev/zero; prints how far the second raised this
# process's own peak resident memory (VmHWM, not inherited from the parent as ru_maxrss is).
IMPORT_AND_REPORT_GROWTH = """
import sys
from pathlib import Path
from parsec.cli.entry import main

def peak_kib():
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0])

def run(path):
    try:
        return main(["import", sys.argv[1], path])
    except SystemExit as exit:
        return exit.code

if run(sys.argv[2]) != 2:
    sys.exit("the warm-up file was not refused")
baseline = peak_kib()
code = run(sys.argv[3])
print("GROWTH_KIB=%d" % (peak_kib() - baseline))
sys.exit(code)
"""
