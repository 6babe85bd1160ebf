"""Issue 13, through `parsec ask` against the stub server: a value seen as a secret once is masked
wherever it reappears -- the environment changes sent on every later request, the output of
`echo $VAR` / `printenv`, the user's own prompt -- and never stored."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import finished_step, plan, queue, run_unattended, step

TOKEN = "plainTok3nValue42"
PASSWORD = "Hunter2secret"


def test_a_secret_seen_once_never_reaches_the_model_or_the_store(stub, env, work: Path) -> None:
    env = dict(env, DB_PASSWORD=PASSWORD)
    queue(
        stub,
        plan("Set the token", "Show it"),
        step(f"export SERVICE_API_TOKEN={TOKEN}"),
        finished_step(),
        step("echo $SERVICE_API_TOKEN; printenv DB_PASSWORD"),
        finished_step(),
    )
    result = run_unattended(
        ["ask", "--yes", "--json", f"the db root password is {PASSWORD}, set the token up"], env, work
    )
    assert result.returncode == 0, result.stderr
    requests = stub.model_requests()
    assert len(requests) >= 4
    sent = json.dumps([request.body for request in requests])
    assert TOKEN not in sent and PASSWORD not in sent
    assert "SERVICE_API_TOKEN" in sent  # the change itself is still reported, its value is not
    stored = b"".join(p.read_bytes() for p in (Path(env["XDG_DATA_HOME"]) / "parsec").glob("parsec.db*"))
    assert TOKEN.encode() not in stored and PASSWORD.encode() not in stored
    assert TOKEN not in result.stdout and PASSWORD not in result.stdout
