"""Recall and look-alike damage per path, end to end: what the store and a model server receive.

    python bench/shell_masking.py [--sample 120] [--before REV]

Lines from both masking corpora and the look-alikes (tests/privacy/corpora.py) go through each
real path, and what arrives is checked:
- bash, zsh, fish: typed at an interactive prompt (pty) with the hook loaded, recorded by a real
  daemon into a real SQLite store; the store's command is checked. Each line is typed as
  `true N<i> <line>`: `true` runs nothing, and the tag finds the record.
- `parsec shell`: each line written to a file and `cat` inside `parsec shell` (bash); the stored
  output is checked.
- `parsec import`: a bash history file of the same lines, imported; the store is checked.
- model requests: each line as a message to a provider (openai wire format) over real HTTP to
  the local stub server; the request body the server received is checked.
The protocol is what the hooks and `parsec shell` speak to the daemon (their rows).
Only single-line entries a shell can take safely are used (no `;`, `&`, redirection, command
substitution or pipe into an installed program). The second corpus's frozen split is sampled
and reported as totals only. `--before REV` runs the same against REV's parsec/ (git archive)
in the same run. Recall = secrets gone; damage = look-alikes changed; `unrecorded` = lines the
path did not store at all (not counted either way).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAFE_PIPES = {"base64", "tr", "cat", "head", "grep", "wc", "sort", "cut"}
STANDALONE = ("positional", "clipboard", "printf", "json_value", "netrc")


def _safe(line: str) -> bool:
    if not line or len(line) > 1500 or any(c in line for c in "\n;&<>`") or "$(" in line:
        return False
    for stage in line.split("|")[1:]:
        words = stage.split()
        if not words or (shutil.which(words[0]) and words[0] not in SAFE_PIPES):
            return False
    return True


def entries(sample: int) -> list[dict]:
    """{"group", "text", "secret" (None for a look-alike)} for each line, tagged by position."""
    from tests.privacy.corpora import first_corpus, frozen_entries, lookalikes, second_tuning

    rnd = random.Random(27)
    chosen: list[dict] = []
    first = [e for e in first_corpus() if _safe(e["text"])]
    chosen += [
        {"group": "first", "text": e["text"], "secret": e["secret"]} for e in rnd.sample(first, min(sample, len(first)))
    ]
    for split, source in (("tuning", second_tuning()), ("frozen", frozen_entries())):
        pool = [e for e in source if e["shape"] == "random" and e["context"] in STANDALONE and _safe(e["text"])]
        picked = rnd.sample(pool, min(sample, len(pool)))
        chosen += [{"group": f"second {split}", "text": e["text"], "secret": e["secret"]} for e in picked]
    chosen += [{"group": "look-alikes", "text": t, "secret": None} for t in lookalikes() if _safe(t)]
    for index, entry in enumerate(chosen):
        entry["tag"] = f"N{index}x"
    return chosen


def _stored_commands(sandbox) -> dict[str, str]:
    """tag -> stored command text (and output), from the sandbox's SQLite store."""
    from parsec.store import open_store
    from parsec.store.protocols import ExecutionQuery

    store = open_store(sandbox.store_url)
    try:
        rows = store.query_executions(ExecutionQuery(limit=1_000_000))
    finally:
        store.close()
    found = {}
    for row in rows:
        words = row.command.split(" ", 2)
        output = row.stdout.render() if getattr(row, "stdout", None) else ""
        if len(words) >= 2 and words[0] == "true":
            found[words[1]] = row.command.split(" ", 2)[2] if len(words) == 3 else ""
        elif words[0] == "cat" and len(words) == 2 and words[1].endswith(".txt"):
            found["cat:" + words[1][:-4]] = output.rstrip("\n")
    return found


def _shell_path(kind: str, chosen: list[dict], root: Path) -> dict[str, str]:
    from tests.hooks.harness import Daemon, Sandbox, Shell

    sandbox = Sandbox.create(root / kind.replace(" ", "_"))
    daemon = Daemon(sandbox).start()
    try:
        if kind == "parsec shell":
            for entry in chosen:
                (sandbox.work / f"{entry['tag']}.txt").write_text(entry["text"] + "\n")
            shell = Shell("bash", sandbox, argv=[shutil.which("parsec") or "parsec", "shell"])
            for entry in chosen:
                _type(shell, f"cat {entry['tag']}.txt")
        else:
            shell = Shell(kind, sandbox)
            for entry in chosen:
                _type(shell, f"true {entry['tag']} {entry['text']}")
        shell.exit()
        daemon.call("flush")
        found = _stored_commands(sandbox)
    finally:
        daemon.stop()
    if kind == "parsec shell":
        return {key[4:]: value for key, value in found.items() if key.startswith("cat:")}
    return found


def _type(shell, line: str) -> None:
    """Type `line`; a line the shell does not take whole (it waits for more) is cancelled."""
    import pexpect

    try:
        shell.run(line)
    except pexpect.TIMEOUT:
        shell.child.sendcontrol("c")
        shell.child.expect("T> ")
        time.sleep(0.5)  # fish redraws its prompt after ^C: let it settle, then resynchronise
        shell.run("true resync")


def _import_path(chosen: list[dict], root: Path) -> dict[str, str]:
    from tests.hooks.harness import Sandbox

    sandbox = Sandbox.create(root / "import")
    history = root / "bash_history"
    start = int(time.time()) - len(chosen)
    history.write_text("".join(f"#{start + i}\ntrue {e['tag']} {e['text']}\n" for i, e in enumerate(chosen)))
    subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "import", "bash", str(history)],
        env=sandbox.env,
        cwd=sandbox.root,  # not this checkout: `python -m` puts the working directory first on sys.path
        check=True,
        capture_output=True,
    )
    return _stored_commands(sandbox)


def _model_path(chosen: list[dict]) -> dict[str, str]:
    from parsec.config import Settings
    from parsec.models.chat import ChatMessage
    from parsec.providers.select import resolve_provider
    from tests.stubs.llm_server import LLMStub

    key = "sk-bench-Zq8VfR2mXk41pLsT9wYc"
    with LLMStub(api_key=key) as stub:
        env = {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": stub.openai_base_url}
        provider = resolve_provider(Settings(), provider="openai", env=env)
        try:
            for entry in chosen:
                provider.chat([ChatMessage(role="user", content=f"true {entry['tag']} {entry['text']}")])
        finally:
            provider.close()
        found = {}
        for request in stub.model_requests():
            for message in (request.body or {}).get("messages", []):
                content = message.get("content")
                if isinstance(content, str) and content.startswith("true N"):
                    words = content.split(" ", 2)
                    found[words[1]] = words[2] if len(words) == 3 else ""
    return found


def measure(sample: int, shells: list[str]) -> dict:
    chosen = entries(sample)
    results: dict[str, dict[str, list[int]]] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        paths = {kind: (lambda kind=kind: _shell_path(kind, chosen, root)) for kind in shells}
        paths["parsec shell output"] = lambda: _shell_path("parsec shell", chosen, root)
        paths["parsec import"] = lambda: _import_path(chosen, root)
        paths["model requests"] = lambda: _model_path(chosen)
        for name, run in paths.items():
            started = time.monotonic()
            found = run()
            table: dict[str, list[int]] = {}
            for entry in chosen:
                cell = table.setdefault(entry["group"], [0, 0, 0])  # good, measured, unrecorded
                arrived = found.get(entry["tag"])
                if arrived is None:
                    cell[2] += 1
                    continue
                cell[1] += 1
                if entry["secret"] is None:
                    cell[0] += arrived == entry["text"]
                else:
                    cell[0] += entry["secret"] not in arrived
            results[name] = table
            print(f"  measured {name} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return results


def _cell(cell: list[int], lookalike: bool) -> str:
    good, measured, unrecorded = cell
    if not measured:
        return "-"
    if lookalike:
        changed = measured - good
        text = f"damage {changed}/{measured} = {changed / measured:.1%}"
    else:
        text = f"{good}/{measured} = {good / measured:.1%}"
    return text + (f" ({unrecorded} unrecorded)" if unrecorded else "")


def _before(rev: str, options) -> dict:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "parsec", "shell-hooks"], check=True, capture_output=True
    )
    with tempfile.TemporaryDirectory() as tree:
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        env = dict(os.environ, PYTHONPATH=tree)
        command = [sys.executable, __file__, "--json", "--code", tree, "--sample", str(options.sample)]
        result = subprocess.run(
            [*command, "--shells", options.shells], env=env, check=True, capture_output=True, text=True
        )
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=120, help="lines drawn from each corpus (and split)")
    parser.add_argument("--shells", default="bash,zsh,fish")
    parser.add_argument("--before", help="a git revision to measure too, in the same run")
    parser.add_argument("--code", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    sys.path.insert(0, str(REPO))
    if options.code:
        sys.path.insert(0, options.code)
        os.environ["PYTHONPATH"] = options.code
    else:
        os.environ["PYTHONPATH"] = str(REPO)
    before = _before(options.before, options) if options.before else None
    after = measure(options.sample, options.shells.split(","))
    if options.json:
        print(json.dumps(after))
        return
    for path, table in after.items():
        print(path)
        for group, cell in table.items():
            lookalike = group == "look-alikes"
            was = f"{_cell(before[path][group], lookalike)} -> " if before and group in before.get(path, {}) else ""
            print(f"  {group:14s} {was}{_cell(cell, lookalike)}")


if __name__ == "__main__":
    main()
