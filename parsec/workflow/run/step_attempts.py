"""What earlier attempts tell the next request: the commands the user declined for this step, and
whether a command the model gives again is the one that has just succeeded."""

from __future__ import annotations

from ...models.workflow import Approval, Conversation, WorkflowStepState


def repeats_last_success(conversation: Conversation, command: str, cwd: str | None) -> bool:
    """Whether `command` (as masked) is the conversation's last executed command, which succeeded,
    run from the directory the shell is in now. Small models give it again, in the same step
    (its `expect` guessed an output it does not print) or as the next step's command."""
    executed = [a for state in conversation.steps for a in state.command_attempts if a.executed]
    if not executed or cwd is None:
        return False
    last = executed[-1]
    return last.succeeded and last.command == command and last.cwd == cwd


def declined_note(state: WorkflowStepState) -> str:
    """The context engine shows executed attempts; the model must also know what the user refused."""
    declined = [a.command for a in state.command_attempts if a.approval == Approval.declined and not a.executed]
    if not declined:
        return ""
    listed = "; ".join(f"`{c}`" for c in declined[-5:])
    return f"The user declined these commands for this step, do not suggest them again: {listed}."
