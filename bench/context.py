"""Context engine benchmarks.

    python bench/context.py [--runs 30] [--items 10000] [--budget 4000]

1. Assembly: a step context from --items candidate items (shell history, step results with
   outputs, achievements, environment changes, preferences) into a --budget token budget.
   Prints p50/p90 over --runs steps with different step descriptions, "warm" (the pool and its
   token counts persist across steps, as in a conversation) and "cold" (every item counted anew),
   plus the one-off cost of building the candidate pool. Target: p50 <= 20 ms.
2. Tokens sent over a synthetic 20-request workflow (10 planned steps, two commands each, two of
   them failing once and retried) with realistic command outputs, against a naive approach that
   re-sends the full history (every command and its whole output) with each request. Checks
   that every core item is present in every request. Target: >= 80% fewer tokens.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parsec.config import Settings  # noqa: E402
from parsec.context.assembly import StepInputs, assemble_step  # noqa: E402
from parsec.context.engine import ContextEngine  # noqa: E402
from parsec.context.items import Candidate, CandidatePool  # noqa: E402
from parsec.context.tokens import get_token_counter  # noqa: E402
from parsec.models.chat import ChatMessage  # noqa: E402
from parsec.models.context import ContextType, ImportanceLevel  # noqa: E402
from parsec.models.text import TruncatedText  # noqa: E402
from parsec.models.workflow import CommandAttempt, Conversation, StepStatus, WorkflowPlan  # noqa: E402
from parsec.providers.provider import ModelLimits  # noqa: E402

TOOLS = [
    "git status",
    "git diff --stat",
    "cargo build",
    "cargo test",
    "ls -la",
    "cd src",
    "rg -n TODO",
    "docker compose up -d",
    "kubectl get pods",
    "npm run lint",
    "pytest -q",
    "make",
    "vim README.md",
    "alembic upgrade head",
    "terraform plan",
    "jq .items data.json",
    "ssh deploy@web1",
    "htop",
]
WORDS = (
    "build test deploy compile error warning passed failed migration schema database docker image "
    "cluster pod service config lint format commit branch merge release version crate module"
).split()
STEPS = [
    "Create new Cargo project",
    "Add the web framework dependency",
    "Write the health-check handler",
    "Add a Dockerfile",
    "Build the container image",
    "Run the unit tests",
    "Set up the database migration",
    "Add CI configuration",
    "Run the linter",
    "Create the initial commit",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def log_output(rng: random.Random, kind: str, lines: int) -> str:
    """Command output that looks like the real thing: compiler, test runner, installer, docker."""
    out = []
    for i in range(lines):
        word = rng.choice(WORDS)
        if kind == "cargo":
            out.append(f"   Compiling {word}-{rng.choice(WORDS)} v0.{rng.randint(1, 30)}.{rng.randint(0, 9)}")
        elif kind == "pytest":
            out.append(f"tests/test_{word}.py::test_{rng.choice(WORDS)}_{i} PASSED{' ' * 20}[{100 * i // lines:3d}%]")
        elif kind == "npm":
            out.append(
                f"npm WARN deprecated {word}@{rng.randint(1, 9)}.{rng.randint(0, 20)}.0: use {rng.choice(WORDS)} instead"
            )
        else:
            out.append(
                f"#{i} [{rng.randint(1, 9)}/9] RUN apt-get install -y {word} {rng.choice(WORDS)} sha256:{rng.getrandbits(64):016x}"
            )
    return "\n".join(out) + "\n"


# --- 1. assembly of 10,000 items -----------------------------------------------------------------
def make_candidates(count: int, rng: random.Random) -> list[Candidate]:
    candidates: list[Candidate] = []
    for i in range(count):
        roll = i % 20
        if roll < 15:  # shell history: short, often repeated
            command = rng.choice(TOOLS) + ("" if rng.random() < 0.6 else f" {rng.choice(WORDS)}")
            candidates.append(
                Candidate(
                    key=f"exec:{i}",
                    kind=ContextType.history,
                    section="recent_commands",
                    full={"command": command, "exit_status": 0},
                    text=command,
                    order=(-i,),
                    pattern=f"cmd:{command}",
                    importance=ImportanceLevel.low,
                    age=i,
                )
            )
        elif roll < 18:  # results of earlier steps, with outputs
            command = rng.choice(TOOLS)
            output = TruncatedText.from_output(
                log_output(rng, rng.choice(["cargo", "pytest", "npm", "docker"]), 40), 1024
            ).render()
            desc = rng.choice(STEPS)
            candidates.append(
                Candidate(
                    key=f"attempt:{i}",
                    kind=ContextType.command,
                    section="execution_history",
                    full={"step_index": i % 12, "commands_executed": [command], "success": True, "output": output},
                    summary={
                        "step_index": i % 12,
                        "commands_executed": [command],
                        "success": True,
                        "summary": f"{desc}: done",
                    },
                    text=f"{desc} {command} {output[:600]}",
                    order=(i % 12, i),
                    importance=ImportanceLevel.medium,
                    age=i // 50,
                )
            )
        elif roll == 18:  # achievements of past conversations
            name = " ".join(rng.sample(WORDS, 3))
            achievements = [f"{rng.choice(WORDS)} the {rng.choice(WORDS)}" for _ in range(3)]
            candidates.append(
                Candidate(
                    key=f"conversation:{i}",
                    kind=ContextType.achievement,
                    section="recent_conversations",
                    full={"name": name, "key_achievements": achievements},
                    summary={"name": name},
                    text=" ".join([name, *achievements]),
                    order=(i,),
                    importance=ImportanceLevel.medium,
                    age=i // 20,
                )
            )
        else:  # environment changes
            candidates.append(
                Candidate(
                    key=f"envchange:{i}",
                    kind=ContextType.environment,
                    section="environment_changes",
                    full={
                        "kind": "env_var",
                        "name": f"{rng.choice(WORDS).upper()}_HOME",
                        "new": f"/opt/{rng.choice(WORDS)}",
                    },
                    text="environment",
                    order=(i,),
                    importance=ImportanceLevel.high,
                    age=i // 100,
                )
            )
    return candidates


def core_candidates(step: str) -> list[Candidate]:
    core = [
        Candidate(
            key="step:5",
            kind=ContextType.step_result,
            section="current_step",
            full={"index": 5, "description": step, "attempt": 1},
            text=step,
            importance=ImportanceLevel.critical,
            core=True,
            core_reason="current step",
        ),
        Candidate(
            key="environment",
            kind=ContextType.environment,
            section="current_environment",
            full={
                "working_directory": "/home/u/app",
                "detected_files": ["Cargo.toml", "src/", "Dockerfile"],
                "git_status": "branch main: 2 modified",
                "project_type": "rust",
            },
            text="environment",
            importance=ImportanceLevel.high,
            core=True,
            core_reason="current environment",
        ),
    ]
    for n in range(3):
        core.append(
            Candidate(
                key=f"recent:{n}",
                kind=ContextType.command,
                section="execution_history",
                full={"step_index": 2 + n, "commands_executed": [TOOLS[n]], "success": True, "output": "ok\n" * 20},
                summary={"step_index": 2 + n, "commands_executed": [TOOLS[n]], "success": True, "summary": "done"},
                text=TOOLS[n],
                order=(2 + n, 0),
                importance=ImportanceLevel.high,
                core=True,
                core_reason="one of the last 3 successful executions",
            )
        )
    return core


def bench_assembly(items: int, budget: int, runs: int) -> dict[str, float]:
    counter = get_token_counter()
    rng = random.Random(7)
    started = time.perf_counter()
    pool = CandidatePool()
    history = [pool.add(c) for c in make_candidates(items, rng)]
    build_ms = (time.perf_counter() - started) * 1000
    warm, cold, warm_cpu = [], [], []
    for run in range(runs):
        step = STEPS[run % len(STEPS)]
        inputs = StepInputs(
            system_prompt="You are Parsec, a workflow assistant inside the user's terminal.\n# Environment\nShell: bash",
            conversation={
                "id": "01J123456789ABCDEFGHJKMNPQ",
                "name": "Web service",
                "original_prompt": "Build a Rust web service",
            },
            workflow={"steps": [{"description": s} for s in STEPS]},
            session_base={"working_directory": "/home/u/app", "detected_tools": ["git", "cargo", "docker"]},
            query=f"{step} Build a Rust web service",
            now=__import__("datetime").datetime(2026, 1, 1),
        )
        core = [pool.add(c) for c in core_candidates(step)]
        candidates = core + history
        for c in candidates:  # cold: forget every token count
            c._tokens.clear()
            c._sizes.clear()
        t0 = time.perf_counter()
        messages, context, report = assemble_step(inputs, pool, candidates, budget, counter, 0.9)
        cold.append((time.perf_counter() - t0) * 1000)
        t0, c0 = time.perf_counter(), time.process_time()
        messages, context, report = assemble_step(inputs, pool, candidates, budget, counter, 0.9)
        warm.append((time.perf_counter() - t0) * 1000)
        warm_cpu.append((time.process_time() - c0) * 1000)
        assert report.total_tokens <= budget, "budget exceeded"
        assert context.current_step["description"] == step
        assert {c.key for c in core} <= report.kept_keys(), "a core item was dropped"
    return {
        "build_ms": build_ms,
        "warm_p50": statistics.median(warm),
        "warm_p90": percentile(warm, 0.9),
        "cpu_p50": statistics.median(warm_cpu),
        "load": os.getloadavg()[0],
        "cold_p50": statistics.median(cold),
        "cold_p90": percentile(cold, 0.9),
        "kept": len(report.kept_keys()),
        "tokens": report.total_tokens,
    }


# --- 2. tokens over a 20-request workflow ----------------------------------------------------------
def synthetic_result(rng: random.Random, request: int) -> tuple[str, int, str]:
    kind = ["cargo", "pytest", "npm", "docker"][request % 4]
    lines = rng.randint(60, 600)
    command = {
        "cargo": "cargo build --release",
        "pytest": "pytest -q tests",
        "npm": "npm install",
        "docker": "docker build -t web .",
    }[kind] + f"  # request {request}"
    failing = request in (5, 13)
    output = log_output(rng, kind, lines)
    if failing:
        output += "error[E0432]: unresolved import `web::handler`\n  --> src/main.rs:3:5\n"
    return command, (101 if failing else 0), output


def naive_tokens(counter, system: str, conversation: Conversation, step: int, history: list[tuple[str, str]]) -> int:
    messages = [
        ChatMessage(role="system", content=system),
        ChatMessage(
            role="user",
            content=f"{conversation.original_prompt}\nPlan: {[s.step.description for s in conversation.steps]}\nCurrent step: {conversation.steps[step].step.description}",
        ),
    ]
    for command, output in history:
        messages.append(ChatMessage(role="assistant", content=command))
        messages.append(ChatMessage(role="user", content=output))
    return counter.count_messages(messages)


def bench_workflow(window: int, reserve: int) -> dict[str, float]:
    counter = get_token_counter()
    rng = random.Random(11)
    workdir = tempfile.mkdtemp(prefix="parsec-bench-")
    Path(workdir, "Cargo.toml").write_text("[package]\nname='web'\n")
    conversation = Conversation(
        session_id="01J123456789ABCDEFGHJKMNPQ",
        name="Web service",
        original_prompt="Build a Rust web service with a Dockerfile and CI",
        working_directory=workdir,
    )
    conversation.set_plan(WorkflowPlan.from_descriptions(STEPS))
    engine = ContextEngine(Settings(), None, ModelLimits(context_window=window, max_output_tokens=reserve))
    conversation.system_prompt = engine.system_prompt(workdir, "bash")
    ours = naive = 0
    history: list[tuple[str, str]] = []
    done: list[str] = []
    step, commands_in_step, requests = 0, 0, 0
    while requests < 20:
        messages, context, report = engine.step_messages(conversation, step, {"working_directory": workdir})
        text = messages[1].content
        # Every core item is present: the step, the environment, the last 3 successes, the active error.
        assert conversation.steps[step].step.description in text
        assert f'"working_directory":"{workdir}"' in text
        assert all(command in text for command in done[-3:]), "a recent success is missing"
        state = conversation.steps[step]
        executed = [a for a in state.command_attempts if a.executed]
        if executed and not executed[-1].succeeded:
            assert context.error_context and context.error_context["failed_command"] == executed[-1].command
        assert report.total_tokens <= engine.budget
        ours += report.total_tokens
        naive += naive_tokens(counter, conversation.system_prompt, conversation, step, history)
        requests += 1

        command, status, output = synthetic_result(rng, requests)
        state.command_attempts.append(
            CommandAttempt(
                suggested_command=command,
                command=command,
                executed=True,
                exit_status=status,
                output=TruncatedText.from_output(output, 64 * 1024),
                cwd=workdir,
            )
        )
        history.append((command, output))
        if status == 0:
            done.append(command)
            commands_in_step += 1
            if commands_in_step == 2:
                state.status = StepStatus.complete
                step, commands_in_step = min(step + 1, len(STEPS) - 1), 0
    return {"ours": ours, "naive": naive, "saving": 1 - ours / naive, "requests": requests}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--budget", type=int, default=4000)
    args = parser.parse_args()

    counter = get_token_counter()
    print(f"token counter: {counter.name}")
    a = bench_assembly(args.items, args.budget, args.runs)
    print(f"assembly, {args.items} candidates into {args.budget} tokens ({args.runs} steps):")
    print(
        f"  warm  p50 {a['warm_p50']:.2f} ms  p90 {a['warm_p90']:.2f} ms   (target p50 <= 20 ms); "
        f"CPU time p50 {a['cpu_p50']:.2f} ms; load average {a['load']:.1f} on {os.cpu_count()} cores"
    )
    print(f"  cold  p50 {a['cold_p50']:.2f} ms  p90 {a['cold_p90']:.2f} ms   (every item's tokens counted anew)")
    print(
        f"  pool build (one-off, incremental in use): {a['build_ms']:.1f} ms; kept {a['kept']} items, {a['tokens']} tokens"
    )
    for window, reserve in ((128_000, 4_096), (5_000, 1_000)):
        w = bench_workflow(window, reserve)
        print(
            f"workflow, {w['requests']} requests, window {window} (reserve {reserve}): "
            f"{w['ours']} tokens vs naive {w['naive']} -> {100 * w['saving']:.1f}% fewer (target >= 80%), core present in every request"
        )


if __name__ == "__main__":
    main()
