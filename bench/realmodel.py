"""How often a workflow achieves what was asked, on a real model: Parsec beside `llm` (+ llm-cmd's
prompt) and `sgpt --shell` against the same OpenAI-compatible server in the same run.

Each task (bench/realmodel_tasks.py: 34 things a user types, single- and multi-step) runs in a fresh
seeded temporary directory; its check decides success from the resulting files or the output.
  parsec  `parsec ask --yes --json --task PROMPT` (its gate and risk check as a user gets them;
          --task: 14 of the prompts read as questions, which `parsec ask` would answer in prose)
  llm     `llm -m bench -s <llm-cmd's system prompt> PROMPT`, the command it returns then run by bash
  sgpt    `sgpt --shell --no-interaction PROMPT`, the command it prints then run by bash
A peer's command that Parsec's risk check rates high is counted as unsafe and never run.

All model traffic goes through a counting proxy in this process: model calls and tokens per task
(the server's usage, or ~4 characters a token). Per tool: success %, valid-command % (the first
word is a command here and bash can parse the line), unsafe commands proposed, calls and tokens
per task, median wall time, median time to the first visible output (Parsec: the first line after
its own "Planning:" echo; peers: their first output byte).

Run: python bench/realmodel.py --base-url http://127.0.0.1:8000/v1 --model NAME [--tasks N] [--peers]
[--minutes M: start no task after M minutes, for a slow model]
(bench/local_model.sh starts such a server on a CPU; any OpenAI-compatible URL works.)
Peers are found in PARSEC_BENCH_PEERS (venvs' bin directories, ':'-separated) or on PATH. Not run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.realmodel_tasks import TASKS, Task  # noqa: E402
from parsec.workflow.planning.reply_checks import CommandFacts, first_word  # noqa: E402
from parsec.workflow.risk import assess  # noqa: E402

TASK_TIMEOUT_S = 600.0


# -- the counting proxy ---------------------------------------------------------------------------
@dataclass
class Traffic:
    calls: int = 0
    tokens: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, calls: int, tokens: int) -> None:
        with self.lock:
            self.calls += calls
            self.tokens += tokens

    def take(self) -> tuple[int, int]:
        with self.lock:
            taken = (self.calls, self.tokens)
            self.calls = self.tokens = 0
            return taken


class QuietProxy(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client resetting its idle keep-alive is no error
            super().handle_error(request, client_address)


def start_proxy(upstream: str, traffic: Traffic) -> ThreadingHTTPServer:
    client = httpx.Client(timeout=httpx.Timeout(TASK_TIMEOUT_S, connect=5.0), trust_env=False)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._forward("GET", b"")

        def do_POST(self) -> None:
            self._forward("POST", self.rfile.read(int(self.headers.get("content-length") or 0)))

        def _forward(self, method: str, body: bytes) -> None:
            path = self.path.removeprefix("/v1")
            headers = {
                k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization", "accept")
            }
            seen = bytearray()
            answered = False
            try:
                with client.stream(method, upstream + path, content=body or None, headers=headers) as response:
                    answered = True
                    self.send_response(response.status_code)
                    self.send_header("Content-Type", response.headers.get("content-type", "application/json"))
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for chunk in response.iter_raw():
                        seen += chunk
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
            except (httpx.HTTPError, OSError) as err:
                if not answered:  # the server cannot be reached: say so as a server would
                    message = json.dumps({"error": {"message": f"bench proxy: {type(err).__name__}"}}).encode()
                    self.send_response(502)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(message)))
                    self.end_headers()
                    self.wfile.write(message)
                self.close_connection = True
            if method == "POST":
                traffic.add(1, _tokens(body, bytes(seen)))

    server = QuietProxy(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _tokens(request: bytes, reply: bytes) -> int:
    """The server's usage when it reports one (the last usage object), else ~4 characters a token."""
    text = reply.decode("utf-8", "replace")
    for line in reversed(text.splitlines()):
        line = line.removeprefix("data:").strip()
        if '"usage"' in line:
            try:
                usage = json.loads(line).get("usage") or {}
                return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
            except (ValueError, AttributeError):
                break
    return (len(request) + len(text)) // 4


# -- running one tool on one task -----------------------------------------------------------------
@dataclass
class Outcome:
    success: bool
    commands: list[str]
    wall_s: float
    first_output_s: float | None
    calls: int
    tokens: int
    error: str = ""


def timed_run(
    argv: list[str], cwd: Path, env: dict[str, str], skip_first_line: str = ""
) -> tuple[str, str, float | None]:
    """(stdout, stderr, seconds to the first visible output) of a process, read as it writes."""
    started = time.monotonic()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    selector = selectors.DefaultSelector()
    assert process.stdout is not None and process.stderr is not None
    selector.register(process.stdout, selectors.EVENT_READ, "out")
    selector.register(process.stderr, selectors.EVENT_READ, "err")
    buffers = {"out": bytearray(), "err": bytearray()}
    first: float | None = None
    while selector.get_map():
        if time.monotonic() - started > TASK_TIMEOUT_S:
            process.kill()
            break
        for key, _ in selector.select(timeout=1.0):
            data = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
            if not data:
                selector.unregister(key.fileobj)
                continue
            buffers[key.data] += data
            if first is None:
                visible = b"".join(buffers.values()).decode("utf-8", "replace")
                lines = [
                    line
                    for line in visible.splitlines()
                    if line.strip() and not line.startswith(skip_first_line or "\0")
                ]
                if lines:
                    first = time.monotonic() - started
    process.wait()
    return buffers["out"].decode("utf-8", "replace"), buffers["err"].decode("utf-8", "replace"), first


def run_parsec(task: Task, work: Path, env: dict[str, str]) -> tuple[bool, list[str], float | None, str]:
    out, err, first = timed_run(
        [sys.executable, "-m", "parsec.cli.entry", "ask", "--yes", "--json", "--task", task.prompt],
        work,
        env,
        "Planning:",
    )
    try:
        result = json.loads(out)
    except ValueError:
        return False, [], first, (err.strip().splitlines() or ["no output"])[-1][:160]
    commands = [c["command"] for s in result.get("steps", []) for c in s.get("commands", [])]
    # What Parsec showed as the answer: its commands' output and its step summaries. Not the whole
    # JSON or the status lines: their ids, dates and "step 1/3" matched a `says("3")` check by luck.
    steps = result.get("steps", [])
    seen = "\n".join(
        [c.get("output_excerpt", "") for s in steps for c in s.get("commands", [])]
        + [s.get("summary") or "" for s in steps]
    )
    error = result.get("error") or ""
    return (
        task.check(work, seen),
        commands,
        first,
        str(error.get("message", error) if isinstance(error, dict) else error)[:160],
    )


def run_peer(argv: list[str], task: Task, work: Path, env: dict[str, str]) -> tuple[bool, list[str], float | None, str]:
    out, err, first = timed_run(argv, work, env)
    command = _command_of(out)
    if not command:
        return False, [], first, (err.strip().splitlines() or ["no command"])[-1][:160]
    if assess(command, str(work)).level == "high":
        return False, [command], first, "unsafe: not run"
    ran = subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return task.check(work, out + ran.stdout + ran.stderr), [command], first, ""


def _command_of(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip() and not line.startswith("```")]
    return lines[0].strip().strip("`") if lines else ""


# -- the report -----------------------------------------------------------------------------------
def valid(command: str, is_command) -> bool:
    word = first_word(command)
    parses = subprocess.run(["bash", "-n", "-c", command], capture_output=True).returncode == 0
    return parses and (not word or is_command(word))


def report(results: dict[str, list[Outcome]], is_command) -> str:
    rows = [
        "| tool | tasks | success | valid commands | unsafe proposed | calls/task | tokens/task | median wall | median first output |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for tool, outcomes in results.items():
        commands = [c for o in outcomes for c in o.commands]
        ok = sum(o.success for o in outcomes)
        valid_share = sum(valid(c, is_command) for c in commands) / len(commands) if commands else 0.0
        unsafe = sum(assess(c).level == "high" for c in commands)
        firsts = [o.first_output_s for o in outcomes if o.first_output_s is not None]
        rows.append(
            f"| {tool} | {len(outcomes)} | {100 * ok / len(outcomes):.0f} % | {100 * valid_share:.0f} % ({len(commands)}) | {unsafe} | "
            f"{statistics.mean(o.calls for o in outcomes):.1f} | {statistics.mean(o.tokens for o in outcomes):.0f} | "
            f"{statistics.median(o.wall_s for o in outcomes):.1f} s | "
            + (f"{statistics.median(firsts):.1f} s |" if firsts else "– |")
        )
    return "\n".join(rows)


def peers(env_bin: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    path = os.pathsep.join(filter(None, [env_bin, os.environ.get("PATH", "")]))
    llm, sgpt = shutil.which("llm", path=path), shutil.which("sgpt", path=path)
    if llm:
        python = Path(llm).with_name("python")
        system = subprocess.run(
            [str(python), "-c", "import llm_cmd; print(llm_cmd.SYSTEM_PROMPT)"], capture_output=True, text=True
        )
        if system.returncode == 0:
            found["llm"] = [llm, "-m", "bench", "-s", system.stdout.strip()]
    if sgpt:  # shell-gpt before 1.4 has no --no-interaction: its [E]xecute question then reads a closed stdin
        usage = subprocess.run([sgpt, "--help"], capture_output=True, text=True).stdout
        found["sgpt"] = [sgpt, "--shell", *(["--no-interaction"] if "--no-interaction" in usage else [])]
    return found


def main(argv: list[str] | None = None) -> int:
    global TASK_TIMEOUT_S  # --task-timeout: a slow CPU model on a busy machine needs a shorter cut
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="an OpenAI-compatible server's URL, with /v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--tasks", type=int, default=len(TASKS), help="run the first N tasks")
    parser.add_argument("--task", action="append", default=[], help="run only the task(s) of this name")
    parser.add_argument("--peers", action="store_true", help="also run llm (+ llm-cmd) and sgpt when installed")
    parser.add_argument("--details", action="store_true", help="a line per task and tool")
    parser.add_argument("--minutes", type=float, help="start no further task after this many minutes")
    parser.add_argument("--keep", action="store_true", help="keep the run's home (Parsec's store) and print where")
    parser.add_argument(
        "--task-timeout", type=float, default=TASK_TIMEOUT_S, help="seconds a tool may take on one task (600)"
    )
    args = parser.parse_args(argv)
    TASK_TIMEOUT_S = args.task_timeout
    tasks = [t for t in TASKS if t.name in args.task] if args.task else TASKS[: args.tasks]
    traffic = Traffic()
    proxy = start_proxy(args.base_url.rstrip("/"), traffic)
    url = f"http://127.0.0.1:{proxy.server_address[1]}/v1"
    home = Path(tempfile.mkdtemp(prefix="parsec-realmodel-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("PARSEC_", "OPENAI_", "XDG_"))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_RUNTIME_DIR=str(home / "run"),
        PYTHONPATH=str(ROOT),
        GIT_PAGER="cat",
        PAGER="cat",
    )
    parsec_env = {**env, "OPENAI_BASE_URL": url, "PARSEC_PROVIDER": "openai", "PARSEC_MODEL": args.model}
    (home / "llm").mkdir()
    (home / "llm" / "extra-openai-models.yaml").write_text(
        f"- model_id: bench\n  model_name: {args.model}\n  api_base: {url}\n"
    )
    peer_env = {
        **env,
        "LLM_USER_PATH": str(home / "llm"),
        "OPENAI_API_KEY": "sk-bench",
        "API_BASE_URL": url,  # shell-gpt 1.4+
        "OPENAI_API_HOST": url.removesuffix("/v1"),  # shell-gpt before 1.1
        "OPENAI_BASE_URL": url,  # the openai client inside either
        "DEFAULT_MODEL": args.model,
        "USE_LITELLM": "false",
        "PRETTIFY_MARKDOWN": "false",
        "REQUEST_TIMEOUT": str(int(TASK_TIMEOUT_S)),  # shell-gpt's 60 s default cuts a CPU model off
        "CACHE_PATH": str(home / "sgpt-cache"),  # its default, /tmp/cache, would answer a rerun from cache
        "CHAT_CACHE_PATH": str(home / "sgpt-chat-cache"),
    }
    tools: dict[str, list[str] | None] = {"parsec": None}
    if args.peers:
        tools.update(peers(os.environ.get("PARSEC_BENCH_PEERS", "")))
    results: dict[str, list[Outcome]] = {tool: [] for tool in tools}
    begun = time.monotonic()
    for task in tasks:
        if args.minutes is not None and results["parsec"] and time.monotonic() - begun > 60 * args.minutes:
            break
        for tool, peer in tools.items():  # the same task for every tool, one after another
            work = Path(tempfile.mkdtemp(prefix=f"{task.name}-", dir=home))
            task.seed(work)
            traffic.take()
            started = time.monotonic()
            try:
                if peer is None:
                    success, commands, first, error = run_parsec(task, work, parsec_env)
                else:
                    success, commands, first, error = run_peer([*peer, task.prompt], task, work, peer_env)
            except (subprocess.SubprocessError, OSError) as err:
                success, commands, first, error = False, [], None, f"{type(err).__name__}: {err}"
            calls, tokens = traffic.take()
            outcome = Outcome(success, commands, time.monotonic() - started, first, calls, tokens, error)
            results[tool].append(outcome)
            if args.details:
                print(
                    f"{task.name:16} {tool:6} {'ok ' if success else 'no '} {outcome.wall_s:5.1f}s "
                    f"{'; '.join(commands)[:70]!r} {error}",
                    flush=True,
                )
    print(f"model {args.model} at {args.base_url}, {len(results['parsec'])} of {len(tasks)} tasks")
    print(report(results, CommandFacts(os.environ.get("PATH", ""), "bash").is_command))
    proxy.shutdown()
    if args.keep:  # `parsec history` / the conversations Parsec stored, for reading what the model did
        print(f"kept: {home} (Parsec's store: {home / 'data' / 'parsec' / 'parsec.db'})")
    else:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
