"""`parsec conversations show`: a conversation rendered for reading (rich on a terminal)."""

from __future__ import annotations

import sys

from ...models.workflow import Conversation


def conversation_lines(conversation: Conversation) -> list[str]:
    lines = [
        f"{conversation.name}  ({conversation.id})",
        f"status: {conversation.status.value}   provider: {conversation.provider}:{conversation.model}",
        f"prompt: {conversation.original_prompt}",
        f"directory: {conversation.working_directory}",
    ]
    if conversation.error:
        lines.append(f"error: {conversation.error}")
    if conversation.workflow is not None:
        lines.append(f"plan (revision {conversation.workflow.revision}):")
    for state in conversation.steps:
        lines.append(f"  {state.step.index + 1}. [{_step_status(state)}] {state.step.description}")
        for attempt in state.command_attempts:
            approval = attempt.approval.value if attempt.approval else "pending"
            ran = _ran(attempt)
            edited = (
                f" (suggested: {attempt.suggested_command})" if attempt.command != attempt.suggested_command else ""
            )
            flag = " interrupted" if attempt.interrupted and attempt.exit_status is not None else ""
            lines.append(f"     $ {attempt.command}{edited}")
            lines.append(f"       {approval}, risk {attempt.risk_level}, {ran}{flag}")
            if attempt.output is not None and attempt.output.original_bytes:
                for line in attempt.output.render().rstrip("\n").splitlines()[-10:]:
                    lines.append(f"       | {line}")
        for artifact in state.artifacts_produced[:10]:
            lines.append(f"     {artifact.change}: {artifact.path}")
        for change in state.environment_changes[:10]:
            lines.append(f"     env {change.kind} {change.name}: {change.old_value} → {change.new_value}")
    if conversation.context_summary.key_achievements:
        lines.append("achievements:")
        lines.extend(f"  - {a}" for a in conversation.context_summary.key_achievements)
    return lines


def _ran(attempt) -> str:
    if attempt.exit_status is not None:
        return f"exit {attempt.exit_status} in {attempt.duration_ms} ms"
    if (attempt.interrupted and attempt.executed) or attempt.started_at is not None:
        return "interrupted, may have partly run"  # started, no exit status: Parsec stopped meanwhile
    return "not run"


def _step_status(state) -> str:
    """A step whose command finished but whose result the model has not confirmed yet says so:
    "command finished" and "model confirmed" are two facts."""
    last = state.command_attempts[-1] if state.command_attempts else None
    if state.status.value == "running" and last is not None and last.exit_status is not None:
        return "command finished, not yet confirmed by the model"
    return state.status.value


def render_conversation(conversation: Conversation) -> None:
    lines = conversation_lines(conversation)
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(highlight=False)
        console.print(lines[0], style="bold", markup=False)
        for line in lines[1:]:
            console.print(line, markup=False)
        return
    print("\n".join(lines))
