"""Property tests: whatever the history and the budget, the core is kept and the budget holds."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from parsec.context.engine import ContextEngine
from parsec.context.pruning import ContextOverflow
from parsec.context.tokens import get_token_counter
from parsec.providers.provider import ModelLimits

from .ctx_helpers import attempt, conversation, fixed_clock, settings

WORDS = [
    "build",
    "cargo",
    "error",
    "warning",
    "test",
    "passed",
    "failed",
    "src/lib.rs",
    "compiling",
    "docker",
    "image",
    "layer",
    "git",
    "commit",
    "push",
    "npm",
    "install",
    "lint",
    "ok",
    "done",
]

attempt_spec = st.tuples(st.booleans(), st.integers(0, 6000), st.integers(0, 10**6))
step_spec = st.lists(attempt_spec, min_size=0, max_size=3)


def _output(size: int, seed: int) -> str:
    words = [WORDS[(seed + i * 7) % len(WORDS)] for i in range(size // 6 + 1)]
    return " ".join(words)[:size]


def build(history: list[list[tuple[bool, int, int]]], retry: list[tuple[bool, int, int]], cwd: str):
    descriptions = [f"step {i} {WORDS[i % len(WORDS)]} the project" for i in range(len(history) + 1)]
    conv = conversation(descriptions, cwd=cwd)
    counter = 0
    for index, attempts in enumerate(history + [retry]):
        state = conv.steps[index]
        for ok, size, seed in attempts:
            counter += 1
            state.command_attempts.append(
                attempt(
                    f"cmd{counter} --{WORDS[seed % len(WORDS)]}", 0 if ok else 1 + seed % 100, _output(size, seed), cwd
                )
            )
    return conv, len(history)


def expected_core(conv, step_index: int, preserve: int):
    """Independently of the engine: last 3 successes, last `preserve` failures, the active error."""
    executed = [(i, a) for i, s in enumerate(conv.steps[: step_index + 1]) for a in s.command_attempts if a.executed]
    current = [a for a in conv.steps[step_index].command_attempts if a.executed]
    active = current[-1] if current and not current[-1].succeeded else None
    history = [(i, a) for i, a in executed if a is not active]
    successes = [(i, a) for i, a in history if a.succeeded][-3:]
    failures = [(i, a) for i, a in history if not a.succeeded][-preserve:] if preserve else []
    return successes + failures, active


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    history=st.lists(step_spec, min_size=0, max_size=10),
    retry=st.lists(attempt_spec, min_size=0, max_size=3),
    window=st.integers(1800, 9000),
    preserve=st.integers(0, 5),
)
def test_core_is_kept_and_budget_never_exceeded(workdir, history, retry, window, preserve):
    conv, step_index = build(history, retry, str(workdir))
    engine = ContextEngine(
        settings(context_pruning={"preserve_error_context_steps": preserve}),
        None,
        ModelLimits(context_window=window, max_output_tokens=600),
        clock=fixed_clock,
    )
    messages, step_context, report = engine.step_messages(conv, step_index, {"working_directory": str(workdir)})

    counted = get_token_counter().count_messages(messages)
    assert counted == report.total_tokens
    assert counted <= engine.budget

    assert step_context.current_step["index"] == step_index
    assert step_context.current_environment["working_directory"] == str(workdir)
    core, active = expected_core(conv, step_index, preserve)
    records = {(r.step_index, tuple(r.commands_executed), r.success) for r in step_context.execution_history}
    for index, kept in core:
        assert (index, (kept.command,), kept.succeeded) in records, f"core attempt {kept.command} missing"
    if active is not None:
        assert step_context.error_context is not None
        assert step_context.error_context["failed_command"] == active.command
    else:
        assert step_context.error_context is None
    # Whatever was dropped is said to be dropped, and nothing core ever is.
    assert all(not d.core for d in report.decisions if d.action in ("dropped", "compressed"))


def test_a_window_too_small_for_the_core_is_one_clear_error(workdir):
    conv, step_index = build([[(True, 4000, 1)], [(True, 4000, 2)]], [(False, 4000, 3)], str(workdir))
    engine = ContextEngine(settings(), None, ModelLimits(context_window=500, max_output_tokens=100), clock=fixed_clock)
    with pytest.raises(ContextOverflow) as err:
        engine.step_messages(conv, step_index, {"working_directory": str(workdir)})
    assert "\n" not in str(err.value) and "larger context window" in str(err.value)
