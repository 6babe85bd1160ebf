"""Commands a workflow ran reach `parsec history` and Ctrl-R, tagged with their conversation
(issue 25 item 6): `parsec ask` against the stub provider, then `parsec history` as a user runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .conftest import PARSEC, finished_step, plan, queue, run_unattended, step


def history(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([*PARSEC, "history", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result


def test_commands_a_workflow_ran_are_history_tagged_with_their_conversation(stub, env, work: Path) -> None:
    queue(stub, plan("Say hello"), step("echo hello-from-ai"), finished_step("said hello"))
    ran = run_unattended(["ask", "--yes", "--json", "say hello"], env, work)
    assert ran.returncode == 0, ran.stderr
    conversation_id = json.loads(ran.stdout)["id"]

    rows = json.loads(history(env, work, "--source", "ai", "--json").stdout)
    assert [(r["command"], r["source"], r["conversation_id"], r["exit_status"]) for r in rows] == [
        ("echo hello-from-ai", "workflow", conversation_id, 0)
    ]
    assert rows[0]["cwd"] == str(work) and "hello-from-ai" in rows[0]["stdout"]["head"]
    assert json.loads(history(env, work, "--source", "user", "--json").stdout) == []

    plain = history(env, work).stdout.splitlines()
    assert plain[1].endswith(f"echo hello-from-ai  # parsec ask {conversation_id}")
    formatted = history(env, work, "--format", "{source} {conversation} {command}").stdout
    assert formatted == f"workflow {conversation_id} echo hello-from-ai\n"


def test_ctrl_r_finds_the_workflows_command_once_and_names_its_conversation(stub, env, work: Path) -> None:
    # Ctrl-R's own reads (store/search.py, cli/history/search/ranking.py) on the file the run wrote.
    import sqlite3

    from parsec.cli.history.search.ranking import Candidate, Context, Pool, rank
    from parsec.store.history import HistoryQuery
    from parsec.store.search import TextMatch, search_slice

    queue(stub, plan("Say hello"), step("echo hello-from-ai"), finished_step("said hello"))
    ran = run_unattended(["ask", "--yes", "--json", "say hello"], env, work)
    conversation_id = json.loads(ran.stdout)["id"]
    connection = sqlite3.connect(f"{env['XDG_DATA_HOME']}/parsec/parsec.db")
    try:
        rows = search_slice(connection, HistoryQuery(), TextMatch(("hello",)), 0, 10**9, 50)
    finally:
        connection.close()
    context = Context(now_us=rows[0][4], cwd=str(work), repo=None)
    pool = Pool()
    pool.add_rows(rows, context)
    # what the search also reads from the conversation itself (for conversations older than 0003)
    conversation_row = (conversation_id, "", rows[0][4], str(work), "Say hello", "finished")
    pool.extra.append(Candidate("echo hello-from-ai", rows[0][4], conversation_row, kind="workflow-run", runs=1))
    found = [c for c in rank(pool, context) if c.command == "echo hello-from-ai"]
    assert [(c.kind, c.row[10]) for c in found] == [("workflow", conversation_id)], "once, with its conversation"
