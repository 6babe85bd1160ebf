"""Candidates from a conversation, the shell history and past conversations.

Payloads are built from masked text only, so nothing below this point can leak a secret.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..models.context import ContextType, ImportanceLevel
from ..models.session import DirectCommandExecution
from ..models.workflow import CommandAttempt, Conversation
from .excerpt import FACT_LINES, excerpt, facts
from .items import Candidate
from .learning import LearnedPreference, PastConversation
from .redact import clip, masked, masked_value

LAST_SUCCESSES_KEPT = 3  # the seed's "last 3 successful executions"
SUMMARY_OUTPUT_BYTES = 256  # the active error's output in its short form
RELEVANCE_TEXT_CHARS = 600  # how much of an output relevance looks at
EXCERPT_SOURCE_BYTES = 16 * 1024  # how much of a completed command's output its excerpt is chosen from


def conversation_facts(conversation: Conversation) -> tuple[dict, dict]:
    """The seed's `conversation` and `workflow` objects."""
    facts = {
        "id": conversation.id,
        "name": masked(conversation.name),
        "original_prompt": masked(conversation.original_prompt),
    }
    # Descriptions only: a status would change the start of every request as steps go by (the
    # execution history and the current step say where the workflow stands; the current step names skipped ones).
    steps = [{"description": masked(state.step.description)} for state in conversation.steps]
    workflow: dict = {"steps": steps}
    return facts, workflow


def current_step(conversation: Conversation, step_index: int) -> Candidate:
    state = conversation.steps[step_index]
    payload: dict[str, Any] = {
        "index": step_index,
        "description": masked(state.step.description),
        "attempt": len([a for a in state.command_attempts if a.executed]) + 1,
    }
    skipped = [i for i, earlier in enumerate(conversation.steps[:step_index]) if earlier.status.value == "skipped"]
    if skipped:
        payload["skipped_steps"] = skipped
    return Candidate(
        key=f"step:{step_index}",
        kind=ContextType.step_result,
        section="current_step",
        full=payload,
        text=payload["description"],
        importance=ImportanceLevel.critical,
        core=True,
        core_reason="current step",
    )


def environment(env: dict) -> Candidate:
    short = {k: v for k, v in env.items() if k != "detected_files"}
    return Candidate(
        key="environment",
        kind=ContextType.environment,
        section="current_environment",
        full=env,
        summary=short,
        text=" ".join(str(v) for v in env.values()),
        importance=ImportanceLevel.high,
        core=True,
        core_reason="current environment",
    )


def _executed(conversation: Conversation, step_index: int) -> list[tuple[int, int, CommandAttempt]]:
    """(step, position, attempt) of every executed attempt up to and including `step_index`."""
    found = []
    for index, state in enumerate(conversation.steps[: step_index + 1]):
        for position, attempt in enumerate(state.command_attempts):
            if attempt.executed:
                found.append((index, position, attempt))
    return found


def active_error(conversation: Conversation, step_index: int, max_output: int) -> tuple[Candidate | None, str | None]:
    """The current step's failed last attempt, if it is being retried; and that attempt's id."""
    state = conversation.steps[step_index]
    executed = [a for a in state.command_attempts if a.executed]
    if not executed or executed[-1].succeeded:
        return None, None
    last = executed[-1]
    output = last.output.render() if last.output else ""
    full: dict[str, Any] = {
        "failed_command": masked(last.command),
        "exit_status": last.exit_status,
        "interrupted": last.interrupted,
        "output": clip(output, max_output),
        "attempt": len(executed),
        "retries": state.retries,
    }
    if state.error_context:
        full["error"] = masked(state.error_context)
    short = {**full, "output": clip(output, SUMMARY_OUTPUT_BYTES)}
    candidate = Candidate(
        key=f"error:{last.id}",
        kind=ContextType.error,
        section="error_context",
        full=full,
        summary=short,
        text=f"{full['failed_command']} {full['output'][:RELEVANCE_TEXT_CHARS]}",
        importance=ImportanceLevel.critical,
        core=True,
        core_reason="active error",
    )
    return candidate, last.id


def attempts(
    conversation: Conversation,
    step_index: int,
    max_output: int,
    preserve_errors: int,
    skip_id: str | None,
    cache: dict | None = None,
) -> list[Candidate]:
    """One candidate per executed attempt before now, with core and importance decided.

    `cache` (kept by the engine across steps) saves re-masking the outputs of finished attempts.
    """
    executed = [(s, p, a) for s, p, a in _executed(conversation, step_index) if a.id != skip_id]
    # A completed step carries what it achieved: the model's summary, its commands and the lines
    # of their output that matter (excerpt.py). Its full form is the same in every later request
    # (a stable prefix for prompt caching); its short form is the summary and the best lines.
    successes = [a.id for _, _, a in executed if a.succeeded][-LAST_SUCCESSES_KEPT:]
    failures = [a.id for _, _, a in executed if not a.succeeded]
    preserved_failures = failures[-preserve_errors:] if preserve_errors else []
    out = []
    for step, position, attempt in executed:
        state = conversation.steps[step]
        is_last_success = attempt.succeeded and attempt is _last_success(state.command_attempts)
        detail = "full" if step == step_index else "result"
        query = _result_query(conversation, step) if detail == "result" else ""
        key = (
            attempt.id,
            attempt.exit_status,
            is_last_success,
            state.step.description,
            state.summary,
            query,
            max_output,
            len(state.artifacts_produced),
            len(state.environment_changes),
            detail,
        )
        candidate = cache.get(key) if cache is not None else None
        if candidate is None:
            candidate = _attempt_candidate(
                conversation, step, position, attempt, max_output, is_last_success, detail, query
            )
            if cache is not None:
                cache[key] = candidate
        candidate.age = step_index - step
        candidate.core, candidate.core_reason = False, ""
        if attempt.id in successes:
            candidate.core, candidate.core_reason = True, "one of the last 3 successful executions"
            candidate.importance = ImportanceLevel.high
        elif attempt.id in preserved_failures:
            candidate.core, candidate.core_reason = True, "error history (preserve_error_context_steps)"
            candidate.importance = ImportanceLevel.high
        else:
            candidate.importance = ImportanceLevel.medium
        out.append(candidate)
    return out


def _result_query(conversation: Conversation, step: int) -> str:
    """What a completed step's output lines are weighed against: what the step was for and
    achieved, the request, and the steps still to come (the current one among them)."""
    state = conversation.steps[step]
    later = " ".join(s.step.description for s in conversation.steps[step + 1 :])
    return " ".join([state.step.description, state.summary, conversation.original_prompt, later])


def _last_success(attempts_: list[CommandAttempt]) -> CommandAttempt | None:
    done = [a for a in attempts_ if a.succeeded]
    return done[-1] if done else None


def _attempt_candidate(
    conversation: Conversation,
    step: int,
    position: int,
    attempt: CommandAttempt,
    max_output: int,
    is_last_success: bool,
    detail: str = "full",
    query: str = "",
) -> Candidate:
    """`detail`: full (the current step: the whole clipped output) or result (a completed step:
    its summary and the output lines that matter for `query`; short form: summary and facts)."""
    state = conversation.steps[step]
    description = masked(state.step.description)
    command = masked(attempt.command)
    output = clip(attempt.output.render(), max_output) if attempt.output else ""
    full: dict = {"step_index": step, "commands_executed": [command], "success": attempt.succeeded}
    if attempt.exit_status is not None:
        full["exit_status"] = attempt.exit_status
    artifacts = [masked(a.path) for a in state.artifacts_produced] if is_last_success else []
    if artifacts:
        full["artifacts_created"] = artifacts
    cwd_change = next(
        (c.new_value for c in reversed(state.environment_changes) if c.kind == "cwd" and c.new_value),
        None,
    )
    if cwd_change and is_last_success:
        full["working_directory_changed"] = masked(cwd_change)
    outcome = "done" if attempt.succeeded else f"failed (exit {attempt.exit_status})"
    said = masked(state.summary) if is_last_success and state.summary else ""
    achievement = said or f"{description}: {outcome}"
    if artifacts:
        achievement += "; created " + ", ".join(artifacts[:3]) + (" ..." if len(artifacts) > 3 else "")
    summary: dict = {"step_index": step, "commands_executed": [command], "success": attempt.succeeded}
    summary["summary"] = achievement
    lines: list[str] = []
    if detail == "result":
        source = clip(attempt.output.render(), EXCERPT_SOURCE_BYTES) if attempt.output else ""
        lines = excerpt(source, query)
        full["summary"] = said or f"{description}: {outcome}"
        if lines:
            full["output_excerpt"] = "\n".join(lines)
            summary["facts"] = lines if len(lines) <= FACT_LINES else facts(source, query)
    elif output:
        full["output"] = output
    return Candidate(
        key=f"attempt:{attempt.id}",
        kind=ContextType.command if attempt.succeeded else ContextType.error,
        section="execution_history",
        full=full,
        summary=summary,
        text=f"{description} {said} {command} {' '.join(lines) if lines else output[:RELEVANCE_TEXT_CHARS]}",
        order=(step, position),
        created_at=attempt.finished_at,
    )


def environment_changes(conversation: Conversation, step_index: int) -> list[Candidate]:
    out = []
    for step, state in enumerate(conversation.steps[:step_index]):
        for position, change in enumerate(state.environment_changes):
            payload = masked_value(
                {
                    "step_index": step,
                    "kind": change.kind,
                    "name": change.name,
                    "old": change.old_value,
                    "new": change.new_value,
                }
            )
            payload = {k: v for k, v in payload.items() if v not in (None, "")}
            out.append(
                Candidate(
                    key=f"envchange:{step}:{position}",
                    kind=ContextType.environment,
                    section="environment_changes",
                    full=payload,
                    text=" ".join(str(v) for v in payload.values()),
                    order=(step, position),
                    importance=ImportanceLevel.high,
                    age=step_index - step,
                )
            )
    return out


def shell_history(executions: Iterable[DirectCommandExecution]) -> list[Candidate]:
    """Newest first in, one candidate each; repeats share a pattern so pruning can fold them."""
    out = []
    for age, execution in enumerate(executions):
        command = masked(execution.command)
        payload: dict = {"command": command}
        if execution.exit_status is not None:
            payload["exit_status"] = execution.exit_status
        out.append(
            Candidate(
                key=f"exec:{execution.id}",
                kind=ContextType.history,
                section="recent_commands",
                full=payload,
                text=command,
                order=(-age,),
                pattern=f"cmd:{command}",
                created_at=execution.executed_at,
                importance=ImportanceLevel.low,
                age=age,
            )
        )
    return out


def past_conversations(past: list[PastConversation]) -> list[Candidate]:
    out = []
    for age, item in enumerate(past):
        full = masked_value(
            {
                "name": item.name,
                "key_achievements": item.key_achievements,
                "artifacts": item.artifacts[:10],
                "completed_at": item.completed_at,
            }
        )
        summary = {"name": full["name"], "key_achievements": full["key_achievements"][:3]}
        out.append(
            Candidate(
                key=f"conversation:{item.id}",
                kind=ContextType.achievement,
                section="recent_conversations",
                full=full,
                summary=summary,
                text=" ".join([full["name"], *full["key_achievements"], *full["artifacts"]]),
                order=(age,),
                importance=ImportanceLevel.medium,
                age=age,
            )
        )
    return out


def preferences(explicit: dict[str, str], learned: list[LearnedPreference]) -> list[Candidate]:
    out = []
    for name, value in sorted(explicit.items()):
        out.append(
            Candidate(
                key=f"preference:{name}",
                kind=ContextType.preference,
                section="preferences",
                full={masked(name): masked(value)},
                text=f"{name} {value}",
                order=(0, name),
                importance=ImportanceLevel.high,
            )
        )
    for pref in learned:
        if pref.name in explicit:
            continue  # what the user said beats what we guessed
        out.append(
            Candidate(
                key=f"learned:{pref.name}",
                kind=ContextType.preference,
                section="preferences",
                full={pref.name: pref.describe()},
                text=f"{pref.name.replace('_', ' ')} {pref.value}",
                order=(1, pref.name),
                importance=ImportanceLevel.medium,
            )
        )
    return out
