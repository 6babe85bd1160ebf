"""`parsec ask --json`: one JSON document per run in which a conversation exists.

The shape is versioned (`schema`) and described by docs/workflow-result.schema.json (checked by
tests/workflow/test_json_output.py). `--json=full` adds the whole stored conversation under
`conversation`.
"""

from __future__ import annotations

from typing import Any

from ...models.workflow import CommandAttempt, Conversation, WorkflowStepState
from .final_state import env_changes, resume_point
from .outcome import Outcome, describe

SCHEMA = "parsec.workflow.result/1"
EXCERPT_CHARS = 400  # the end of a command's output: where the result usually is


def result_document(
    conversation: Conversation, outcome: Outcome, *, final_cwd: str | None = None, full: bool = False
) -> dict[str, Any]:
    cwd = final_cwd or resume_point(conversation, {})[0]
    document: dict[str, Any] = {
        "schema": SCHEMA,
        "id": conversation.id,
        "name": conversation.name,
        "prompt": conversation.original_prompt,
        **describe(outcome),
        "resume": f"parsec resume {conversation.id}" if outcome.status.value == "paused" else None,
        "working_directory": conversation.working_directory,
        "final_cwd": cwd,
        "env_changes": env_changes(conversation),
        "achievements": list(conversation.context_summary.key_achievements),
        "steps": [_step(state, conversation.context_summary.key_achievements) for state in conversation.steps],
    }
    if full:
        document["conversation"] = conversation.model_dump(mode="json")
    return document


def _step(state: WorkflowStepState, achievements: list[str]) -> dict[str, Any]:
    prefix = f"Step {state.step.index + 1}: "
    summary = next((a[len(prefix) :] for a in achievements if a.startswith(prefix)), None)
    return {
        "index": state.step.index + 1,
        "description": state.step.description,
        "outcome": state.status.value,
        "summary": summary,  # what the model said it achieved ("done without a command: REASON")
        "commands": [_command(attempt) for attempt in state.command_attempts],
    }


def _command(attempt: CommandAttempt) -> dict[str, Any]:
    output = attempt.output.render() if attempt.output is not None else ""
    return {
        "command": attempt.command,
        "approval": attempt.approval.value if attempt.approval else None,
        "risk": attempt.risk_level,
        "ran": attempt.executed,
        "exit_status": attempt.exit_status,
        "interrupted": attempt.interrupted,
        "output_excerpt": output[-EXCERPT_CHARS:],
    }
