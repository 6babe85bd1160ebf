"""Builders for the context engine tests: conversations with realistic attempts, a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime

from parsec.config import Settings
from parsec.models.context import ArtifactInfo, EnvironmentChange
from parsec.models.parsec_model import new_id
from parsec.models.text import TruncatedText
from parsec.models.workflow import CommandAttempt, Conversation, StepStatus, WorkflowPlan

FIXED_NOW = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)


def fixed_clock() -> datetime:
    return FIXED_NOW


def attempt(command: str, exit_status: int = 0, output: str = "", cwd: str = "") -> CommandAttempt:
    return CommandAttempt(
        suggested_command=command,
        command=command,
        executed=True,
        exit_status=exit_status,
        output=TruncatedText.from_output(output, 64 * 1024) if output else None,
        cwd=cwd,
    )


def conversation(
    descriptions: list[str], cwd: str = "/tmp", prompt: str = "Set up a Rust project with CI"
) -> Conversation:
    conv = Conversation(session_id=new_id(), name="Rust project setup", original_prompt=prompt, working_directory=cwd)
    conv.set_plan(WorkflowPlan.from_descriptions(descriptions))
    return conv


def finish_step(
    conv: Conversation,
    index: int,
    attempts: list[CommandAttempt],
    artifacts: list[str] = (),
    new_cwd: str | None = None,
) -> None:
    state = conv.steps[index]
    state.command_attempts.extend(attempts)
    state.artifacts_produced = [ArtifactInfo(path=p, step_index=index) for p in artifacts]
    if new_cwd:
        state.environment_changes = [EnvironmentChange(kind="cwd", new_value=new_cwd, step_index=index)]
    state.status = StepStatus.complete if attempts and attempts[-1].succeeded else StepStatus.failed


def settings(**sections) -> Settings:
    return Settings.model_validate(sections)
