"""What earlier attempts tell the next request: the commands the user declined for this step,
whether a command the model gives again is the one that has just succeeded, and why a step
reply's first command is held back before it is offered."""

from __future__ import annotations

import shlex

from ...models.workflow import Approval, WorkflowStepState
from ..planning.reply_checks import stays_put
from ..risk.reads_no_input import reads_no_input


def repeats_last_success(state: WorkflowStepState, command: str, cwd: str | None) -> bool:
    """Whether `command` (as masked) is the step's last executed command, which succeeded, run
    from the directory the shell is in now: asked again after it (its `expect` guessed an output
    it does not print), a small model gives it once more. Only this step's: a step may well
    begin by looking again (`ls`) at what the one before it left."""
    executed = [a for a in state.command_attempts if a.executed]
    if not executed or cwd is None:
        return False
    last = executed[-1]
    return last.succeeded and same_line(last.command, command) and last.cwd == cwd


def same_line(one: str, other: str) -> bool:
    """Whether two command lines are the same words (`make ` and `make` are)."""
    try:
        return shlex.split(one) == shlex.split(other)
    except ValueError:
        return one.strip() == other.strip()


def declined_note(state: WorkflowStepState) -> str:
    """The context engine shows executed attempts; the model must also know what the user refused."""
    declined = [a.command for a in state.command_attempts if a.approval == Approval.declined and not a.executed]
    if not declined:
        return ""
    listed = "; ".join(f"`{c}`" for c in declined[-5:])
    return f"The user declined these commands for this step, do not suggest them again: {listed}."


def held_back(state: WorkflowStepState, command: str, masked: str, cwd: str, *, unattended: bool) -> str:
    """Why a reply's first command is not offered ("" when it is), said to the model: a `cd` to
    where the shell already is (it would only look like progress, and what a small model lists
    after it is its next step, not an alternative); under --yes, a filter given nothing to read
    (a piece of a pipeline cut into steps: it prints nothing, exits 0 and would look like a step
    done) and the command that has just failed here, unchanged (nobody is there to judge a plain
    retry; it fails the same way)."""
    if stays_put(command, cwd):
        return f"`{command}` changes nothing: commands already run in {cwd}. Give the command that does the step."
    if unattended and (program := reads_no_input(command)):
        return (
            f"`{command}` gives {program} nothing to read (its input is empty here): give the whole "
            "pipeline as one command line, or name the file to read."
        )
    executed = [a for a in state.command_attempts if a.executed]
    last = executed[-1] if executed else None
    if not unattended or last is None or last.succeeded or last.interrupted or last.exit_status is None:
        return ""
    if not same_line(last.command, masked) or last.cwd != cwd:
        return ""
    return (
        f"`{command}` has just failed here (exit status {last.exit_status}) and would fail the same "
        "way: give a different command."
    )
