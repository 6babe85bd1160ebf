"""The history commands end to end: the real `parsec` entry point in a subprocess, a real SQLite
store under a temporary XDG directory."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from parsec.models.session import DirectCommandExecution, Session
from parsec.models.text import TruncatedText
from parsec.store import open_store

GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def run(env: dict, *args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        cwd=cwd,
        timeout=60,
    )


def db_url(env: dict) -> str:
    return f"sqlite:///{env['XDG_DATA_HOME']}/parsec/parsec.db"


@pytest.fixture
def recorded(env, tmp_path):
    """A store holding two sessions of recent commands in two directories."""
    now = datetime.now(UTC)
    (tmp_path / "proj/src").mkdir(parents=True)
    store = open_store(db_url(env))
    a = Session(shell="bash", host="laptop", user="me", created_at=now - timedelta(hours=5), last_active=now)
    b = Session(shell="zsh", host="server", user="me", created_at=now - timedelta(hours=3), last_active=now)
    store.save_session(a)
    store.save_session(b)
    items = []
    for i in range(40):
        items.append(
            DirectCommandExecution(
                session_id=a.id if i % 2 else b.id,
                command=["make test", "git push origin main", "ls", "cargo build"][i % 4] + f" #{i}",
                executed_at=now - timedelta(minutes=200 - i * 5),
                exit_status=1 if i % 4 == 1 else 0,
                duration_ms=1500,
                pipeline_statuses=[i % 4 == 1, 0],
                working_directory=str(tmp_path / ("proj/src" if i % 3 else "proj")),
                cwd_after=str(tmp_path),
                host="laptop" if i % 2 else "server",
            )
        )
    store.append_executions(items)
    store.close()
    return {"a": a, "b": b, "items": items, "now": now}


def ids(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [row["id"] for row in json.loads(result.stdout)]


def newest_first(items, keep) -> list[str]:
    return [e.id for e in sorted(items, key=lambda e: e.executed_at, reverse=True) if keep(e)]


def test_history_json_carries_the_whole_record(env, recorded, tmp_path) -> None:
    newest = max(recorded["items"], key=lambda e: e.executed_at)
    row = json.loads(run(env, "history", "--json", "-n", "1").stdout)[0]
    assert row["id"] == newest.id
    assert row["pipeline_statuses"] == newest.pipeline_statuses
    assert row["cwd_after"] == str(tmp_path)
    assert row["exit_status"] == newest.exit_status and row["duration_ms"] == 1500


def test_history_filters(env, recorded, tmp_path) -> None:
    items = recorded["items"]
    assert ids(run(env, "history", "--json", "--limit", "0")) == newest_first(items, lambda e: True)
    proj = str(tmp_path / "proj")
    assert ids(run(env, "history", "--json", "--cwd", proj, "--exit", "fail")) == newest_first(
        items, lambda e: e.working_directory == proj and e.exit_status != 0
    )
    assert ids(run(env, "history", "--json", "--here", "--subtree", "-n", "0", cwd=tmp_path / "proj")) == newest_first(
        items, lambda e: True
    )
    assert (
        ids(run(env, "history", "--json", "--exit", "ok", "--host", "server", "-n", "5"))
        == newest_first(items, lambda e: e.exit_status == 0 and e.host == "server")[:5]
    )
    assert ids(run(env, "history", "--json", "--search", "git push", "--since", "1h")) == newest_first(
        items, lambda e: "git push" in e.command and e.executed_at >= recorded["now"] - timedelta(hours=1)
    )
    assert ids(run(env, "history", "--json", "--session", recorded["a"].id.lower(), "--exit", "1")) == newest_first(
        items, lambda e: e.session_id == recorded["a"].id and e.exit_status == 1
    )


def test_history_table_and_format(env, recorded) -> None:
    table = run(env, "history", "-n", "3")
    assert table.returncode == 0
    lines = table.stdout.splitlines()
    assert lines[0].split("\t") == ["time", "exit", "took", "cwd", "command"] and len(lines) == 4
    assert lines[1].endswith("cargo build #39") and "\t1.5s\t" in lines[1]
    formatted = run(env, "history", "-n", "2", "--format", "{exit}|{command}|{host}")
    assert formatted.stdout.splitlines() == ["0|cargo build #39|laptop", "0|ls #38|server"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["history", "--since", "last tuesday"], "--since 'last tuesday': use a duration like 2h"),
        (["history", "--exit", "maybe"], "--exit 'maybe': use ok, fail or a number"),
        (["history", "--format", "{nope}"], "--format: 'nope'; fields are id, session, time"),
        (["history", "--subtree"], "--subtree needs --cwd"),
        (["sessions", "show", "ZZZZ"], "no session 'ZZZZ'"),
        (["import", "tcsh"], "cannot import 'tcsh' history: choose bash, zsh or fish"),
        (["import", "bash", "/nonexistent/file"], "cannot read /nonexistent/file"),
        (["forget", "(unclosed"], "is not a valid regular expression"),
    ],
)
def test_user_errors_are_one_line(env, recorded, args, message) -> None:
    result = run(env, *args)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_sessions_and_show(env, recorded) -> None:
    listed = run(env, "sessions", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows[recorded["a"].id]["commands"] == 20 and rows[recorded["a"].id]["failed"] == 10
    assert rows[recorded["b"].id]["shell"] == "zsh"
    table = run(env, "sessions")
    assert table.stdout.splitlines()[0].split("\t")[:3] == ["id", "shell", "host"]
    shown = run(env, "sessions", "show", recorded["a"].id.lower(), "--json")
    assert shown.returncode == 0, shown.stderr
    payload = json.loads(shown.stdout)
    assert payload["session"]["id"] == recorded["a"].id
    assert [c["id"] for c in payload["commands"]] == list(
        reversed(newest_first(recorded["items"], lambda e: e.session_id == recorded["a"].id))
    )


def test_stats(env, recorded) -> None:
    result = run(env, "stats", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["total"] == 40 and figures["failed"] == 10
    by_program = {p["program"]: p for p in figures["programs"]}
    assert by_program["git"]["failure_rate"] == 1.0 and by_program["make"]["failure_rate"] == 0.0
    text = run(env, "stats")
    assert "most used commands" in text.stdout and "LLM token usage: none recorded" in text.stdout


def test_forget_asks_then_removes_everywhere(env, recorded) -> None:
    refused = run(env, "forget", "git push")  # no terminal: refuses, removes nothing
    assert refused.returncode != 0 and "pass --yes" in refused.stderr
    assert len(ids(run(env, "history", "--json", "--search", "git push"))) == 10
    done = run(env, "forget", "git push", "--yes")
    assert done.returncode == 0 and "forgot 10 commands" in done.stdout
    assert ids(run(env, "history", "--json", "--search", "git push")) == []
    assert len(ids(run(env, "history", "--json", "-n", "0"))) == 30
    assert "no recorded command or conversation matches" in run(env, "forget", "git push", "--yes").stdout


def test_prune_dry_run_then_prune_by_tier(env, recorded) -> None:
    old = datetime.now(UTC) - timedelta(days=90)
    store = open_store(db_url(env))
    ancient = Session(shell="bash", created_at=old, last_active=old)
    store.save_session(ancient)
    store.append_executions(
        [
            DirectCommandExecution(
                session_id=ancient.id, command=f"old {i}", executed_at=old, stdout=TruncatedText.from_output("output\n")
            )
            for i in range(25)
        ]
    )
    store.close()
    dry = run(env, "prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "history (command, time, exit, cwd, duration): would remove 0 commands and 0 sessions" in dry.stdout
    assert "captured output: would remove the output of 25 commands (older than 30 days" in dry.stdout
    done = run(env, "prune")
    assert done.returncode == 0, done.stderr
    assert "removed the output of 25 commands" in done.stdout
    assert len(ids(run(env, "history", "--json", "-n", "0"))) == 65  # every command is still there
    dated = run(env, "--set", "context_management.history_retention_days=60", "prune", "--dry-run")
    assert "would remove 25 commands and 1 sessions (history_retention_days = 60)" in dated.stdout
    assert len(ids(run(env, "history", "--json", "-n", "0"))) == 65
    done = run(env, "--set", "context_management.history_retention_days=60", "prune")
    assert "removed 25 commands and 1 sessions" in done.stdout
    assert len(ids(run(env, "history", "--json", "-n", "0"))) == 40


def test_import_is_idempotent_masks_and_reports(env, tmp_path) -> None:
    history = tmp_path / "zsh_history"
    history.write_bytes(
        b": 1700000000:2;git status\n"
        + f": 1700000005:0;export GITHUB_TOKEN={GH}\n".encode()
        + b": 1700000010:1;for i in 1 2; do\\\n  echo $i\\\ndone\n"
        + b": not a valid line\n"
        + b":  1700000020:0; leading space is private\n"
        + b": 1700000030:0;git status\n"
    )
    first = run(env, "import", "zsh", str(history))
    assert first.returncode == 0, first.stderr
    assert (
        "5 entries, 4 added, 0 already present, 0 already recorded live, 1 excluded by privacy settings, 1 malformed"
        in first.stdout
    )
    assert "skipped line 6: ': not a valid line'" in first.stderr
    second = run(env, "import", "zsh", str(history))
    assert "5 entries, 0 added, 4 already present" in second.stdout
    rows = json.loads(run(env, "history", "--json").stdout)
    assert [r["command"] for r in rows] == [
        "git status",
        "for i in 1 2; do\n  echo $i\ndone",
        "export GITHUB_TOKEN=[REDACTED:github_token]",
        "git status",
    ]
    assert {r["source"] for r in rows} == {"import"} and rows[1]["duration_ms"] == 1000
    assert GH.encode() not in Path(db_url(env).removeprefix("sqlite:///")).read_bytes()
    sessions = json.loads(run(env, "sessions", "--json").stdout)
    assert len(sessions) == 1 and sessions[0]["shell"] == "zsh" and sessions[0]["commands"] == 4


def test_import_bash_and_fish_default_files(env, tmp_path) -> None:
    (tmp_path / ".bash_history").write_text("#1700000000\nls\n#1700000001\nmake\n")
    fish = tmp_path / ".local/share/fish"
    fish.mkdir(parents=True)
    (fish / "fish_history").write_text("- cmd: echo hi\n  when: 1700000002\n")
    env.pop("HISTFILE", None)
    env.pop("XDG_DATA_HOME_FISH", None)
    assert "2 added" in run(env, "import", "bash").stdout
    env_fish = {**env, "XDG_DATA_HOME": str(tmp_path / ".local/share")}
    # fish's file lives under XDG_DATA_HOME; keep the store where the other commands look for it
    result = run({**env_fish, "PARSEC_STORE_URL": db_url(env)}, "import", "fish")
    assert "1 added" in result.stdout, result.stderr
    assert [r["command"] for r in json.loads(run(env, "history", "--json").stdout)] == ["echo hi", "make", "ls"]


def test_export_json_lines(env, recorded) -> None:
    cutoff = recorded["now"] - timedelta(minutes=62)
    result = run(env, "export", "--since", cutoff.isoformat())
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    expected = sorted(e.id for e in recorded["items"] if e.executed_at >= cutoff)
    assert sorted(r["id"] for r in records if r["type"] == "execution") == expected
    out = Path(env["HOME"]) / "all.jsonl"
    written = run(env, "export", "-o", str(out))
    assert written.returncode == 0 and "wrote 40 records" in written.stderr
    assert len(out.read_text().splitlines()) == 40


def run_via_typer(env: dict, *args: str) -> subprocess.CompletedProcess:
    code = "import sys; from parsec.cli.app import run; sys.exit(run(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize(
    "args",
    [
        ("history", "--json", "--exit", "fail", "-n", "7"),
        ("history", "--format", "{id} {exit} {command}", "--search", "cargo", "--since", "2030-01-01"),
        ("history", "--exit", "maybe"),
        ("sessions", "--json"),
        ("sessions", "show", "current", "--json"),
        ("--set", "store.busy_timeout_ms=250", "history", "-n", "3", "--json"),
    ],
)
def test_fast_entry_and_typer_app_give_the_same_answer(env, recorded, args) -> None:
    fast, slow = run(env, *args), run_via_typer(env, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)


@pytest.mark.parametrize(
    "args, option",
    [
        (("history", "--help"), "--subtree"),
        (("sessions", "-h"), "--limit"),
        (("sessions", "show", "--help"), "ID"),
        (("ask", "--help"), "--provider"),
        (("resume", "--help"), "--yes"),
    ],
)
def test_help_comes_from_the_one_parser_on_both_paths(env, recorded, args, option) -> None:
    fast, slow = run(env, *args), run_via_typer(env, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    assert fast.returncode == 0 and fast.stderr == ""
    assert fast.stdout.startswith(f"usage: parsec {' '.join(a for a in args if not a.startswith('-'))} ")
    assert option in fast.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("history", "--limt", "3"), "unrecognized arguments: --limt 3 (see parsec history --help)"),
        (("history", "-n", "x"), "argument --limit/-n: expected a whole number, got 'x'"),
        (("history", "--cwd", "a", "b"), "unrecognized arguments: b"),
        (("sessions", "show"), "the following arguments are required: ID"),
        (("sessions", "--json", "extra"), "unrecognized arguments: extra (see parsec sessions --help)"),
        (("ask", "--yes=high", "x"), "--yes=high: use --yes=low or --yes=medium (see parsec ask --help)"),
        (("ask", "--json=all", "x"), "--json=all: use --json=full"),
        (("resume", "a", "b"), "unrecognized arguments: b (see parsec resume --help)"),
    ],
)
def test_usage_errors_are_one_line_and_the_same_on_both_paths(env, recorded, args, message) -> None:
    fast, slow = run(env, *args), run_via_typer(env, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    assert fast.returncode == 2 and fast.stderr.count("\n") == 1 and message in fast.stderr, fast.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["history", "--limit", "99999999999999999999"],
            "parsec: --limit 99999999999999999999 is out of range: use a number from 0 to 1000000000 (0: all)",
        ),
        (
            ["history", "-n", "1000000001"],
            "parsec: --limit 1000000001 is out of range: use a number from 0 to 1000000000",
        ),
        (
            ["history", "--exit", "100000000000000000000"],
            "parsec: --exit '100000000000000000000' is out of range: use ok, fail or an exit status from -2147483648 to 2147483647",
        ),
        (["history", "--exit", "-2147483649"], "--exit '-2147483649' is out of range"),
        (
            ["history", "--since", "99999999d"],
            "parsec: --since '99999999d' is out of range: use a time from 1900 to 9999, as a duration like 2h, 3d, 1w",
        ),
        (["history", "--since", "999999999999999999999999w"], "--since '999999999999999999999999w' is out of range"),
        (
            ["history", "--since", "0001-01-01"],
            "parsec: --since '0001-01-01' is out of range: use a time from 1900 to 9999",
        ),
        (["history", "--until", "9999-12-31T23:00-05:00"], "--until '9999-12-31T23:00-05:00' is out of range"),
        (
            ["history", "--since", "1h", "--until", "2h"],
            "parsec: --since '1h' is not before --until '2h': nothing can match; give the earlier time to --since",
        ),
        (["history", "--since", "2024-05-01", "--until", "2024-05-01"], "--since '2024-05-01' is not before --until"),
        (
            ["sessions", "--limit", "99999999999999999999"],
            "parsec: --limit 99999999999999999999 is out of range: use a number from 1 to 1000000000",
        ),
    ],
)
def test_out_of_range_options_are_usage_errors_on_both_paths(env, recorded, args, message) -> None:
    fast, slow = run(env, *args), run_via_typer(env, *args)
    for result in (fast, slow):
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("parsec: ") and message in result.stderr, (
            result.stderr
        )
        assert "Traceback" not in result.stderr and "internal error" not in result.stderr
        assert result.stdout == ""
    assert fast.stderr == slow.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["sessions", "show", "current", "--limit", "99999999999999999999"],
            "--limit 99999999999999999999 is out of range",
        ),
        (["stats", "--top", "99999999999999999999"], "--top 99999999999999999999 is out of range: use a number from 1"),
        (["stats", "--since", "99999999d"], "--since '99999999d' is out of range"),
        (["export", "--since", "0001-01-01"], "--since '0001-01-01' is out of range"),
    ],
)
def test_the_other_history_commands_check_their_ranges_too(env, recorded, args, message) -> None:
    result = run(env, *args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_edge_values_are_still_accepted(env, recorded) -> None:
    for args in (
        ["--limit", "1000000000"],
        ["--exit", "2147483647"],
        ["--exit", "-2147483648"],
        ["--since", "1900-01-02"],
        ["--since", "2h", "--until", "1h"],
        ["--until", "9999-12-30"],
    ):
        for runner in (run, run_via_typer):
            result = runner(env, "history", "--json", *args)
            assert result.returncode == 0, (args, result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("history", "--json", "--cwd"),
        ("history", "--json", "--cwd", "--exit", "fail"),
        ("history", "--json", "--exit", "fail", "--cwd", "-n", "3"),
    ],
)
def test_bare_cwd_means_the_current_directory(env, recorded, tmp_path, args) -> None:
    proj = tmp_path / "proj"
    expected = run(env, *_with_value(args, str(proj)), cwd=tmp_path)  # the same, with the directory named
    assert expected.returncode == 0 and json.loads(expected.stdout), expected.stderr
    fast = run(env, *args, cwd=proj)
    slow = subprocess.run(
        [sys.executable, "-c", "import sys; from parsec.cli.app import run; sys.exit(run(sys.argv[1:]))", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=proj,
        timeout=60,
    )
    assert (fast.returncode, fast.stdout) == (slow.returncode, slow.stdout) == (0, expected.stdout), (
        fast.stderr,
        slow.stderr,
    )


def _with_value(args: tuple[str, ...], path: str) -> list[str]:
    out: list[str] = []
    for arg in args:
        out.append(arg)
        if arg == "--cwd":
            out.append(path)
    return out


def test_bare_cwd_with_subtree_and_in_the_help(env, recorded, tmp_path) -> None:
    expected = ids(run(env, "history", "--json", "-n", "0", "--cwd", str(tmp_path / "proj"), "--subtree"))
    assert ids(run(env, "history", "--json", "-n", "0", "--cwd", "--subtree", cwd=tmp_path / "proj")) == expected
    assert len(expected) == 40
    assert "[PATH]" in run(env, "history", "--help").stdout
