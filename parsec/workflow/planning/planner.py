"""Planning: one structured model call turns the request into 1–12 imperative steps."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...models.chat import ChatMessage
from ...models.limits import MAX_PLAN_STEPS
from ...models.workflow import ModelExchange, WorkflowPlan
from ...providers.json_reply import partial_object
from ...providers.provider_errors import StructuredOutputError
from .reply_checks import commands_in_plan, needs_no_command, plan_problem, unusable_reply_notice
from .schemas import PlanReply

if TYPE_CHECKING:
    from ..run.runner_parts import RunnerProvider, WorkflowUI

PLAN_INSTRUCTIONS = (
    "Plan how to carry out the user's request in their shell. Reply with a short name for the "
    "workflow and 1 to {max_steps} steps. Each step is one imperative sentence saying what to "
    "achieve (no commands). Commands already run in the working directory: no step goes there. "
    "What one command line can do (a pipeline counts) is a single step; do not pad the plan."
)


def with_instructions(messages: list[ChatMessage], instructions: str) -> list[ChatMessage]:
    """Append the task to the last user message (or add one), leaving the context as built."""
    out = list(messages)
    if out and out[-1].role == "user":
        out[-1] = ChatMessage(role="user", content=f"{out[-1].content}\n\n{instructions}")
    else:
        out.append(ChatMessage(role="user", content=instructions))
    return out


def plan_instructions(max_steps: int, remark: str | None = None, previous: WorkflowPlan | None = None) -> str:
    """The planning task as appended to the context (a re-plan quotes the rejected plan)."""
    instructions = PLAN_INSTRUCTIONS.format(max_steps=max_steps)
    if previous is not None and remark:
        listed = "\n".join(f"{i + 1}. {s.description}" for i, s in enumerate(previous.steps))
        instructions += f"\n\nThe user rejected this plan:\n{listed}\nTheir remark: {remark}"
    return instructions


def make_plan(
    provider: RunnerProvider,
    messages: list[ChatMessage],
    *,
    request: str,
    max_steps: int = MAX_PLAN_STEPS,
    remark: str | None = None,
    previous: WorkflowPlan | None = None,
    exchanges: list | None = None,
    shown_on: WorkflowUI | None = None,
    is_command_line: Callable[[str], bool] | None = None,
    working_directory: str = "",
) -> tuple[str, WorkflowPlan]:
    """(name, plan). A re-plan carries the previous plan and the user's remark. The call, as sent
    and answered, is appended to `exchanges`. On `shown_on` (a WorkflowUI): each step as soon as the
    model has written it, while the rest streams in; and why a plan that makes no sense is asked
    again (once). A first plan the model cannot write even then is `request` as the one step: a
    small local model (steps like 'ls') may still carry it out, its step replies checked as ever;
    a re-plan answers the user's remark, which the request alone would not. So is a first plan
    with a step that is a command line (`is_command_line` decides): its pieces would run apart.
    Steps that only go to `working_directory`, where commands already run, are dropped."""
    asked = with_instructions(messages, plan_instructions(max_steps, remark, previous))
    on_text = StepsAsTheyArrive(shown_on.plan_step) if shown_on is not None else None
    notice = unusable_reply_notice(shown_on.say) if shown_on is not None else None
    try:
        reply, result = provider.structured(
            asked, PlanReply, purpose="plan", check=plan_problem, notice=notice, on_text=on_text
        )
    except StructuredOutputError as err:
        if previous is not None:
            raise
        if shown_on is not None:
            shown_on.say(f"{err}; the request is its one step", style="yellow")
        return "", WorkflowPlan.from_descriptions([request])
    revision = previous.revision + 1 if previous is not None else 1
    if exchanges is not None:
        sent = list(getattr(result, "sent", ()) or asked)  # as the adapter sent it
        exchanges.append(ModelExchange(purpose="plan", messages=sent, reply=getattr(result, "text", "") or ""))
    first_plan_check = is_command_line if previous is None else None  # a re-plan answers a remark
    steps = steps_to_run(reply.steps[:max_steps], request, working_directory, first_plan_check, shown_on)
    return reply.name, WorkflowPlan.from_descriptions(steps, revision=revision)


def steps_to_run(
    steps: list[str],
    request: str,
    working_directory: str,
    is_command_line: Callable[[str], bool] | None,
    shown_on: WorkflowUI | None,
) -> list[str]:
    """The plan's steps without those that need no command (going to the working directory,
    opening the terminal); the request as the one step when what is left holds a command line
    (`is_command_line`: None for a re-plan, which answers the user's remark and keeps its steps)."""
    going = [step for step in steps if needs_no_command(step, working_directory)]
    if going and shown_on is not None:
        named = ", ".join(repr(step) for step in going)
        shown_on.say(
            f"Dropped {named}: no command needed (commands already run in {working_directory})", style="yellow"
        )
    kept = [step for step in steps if step not in going]
    if not kept:  # nothing but going there: the request itself (a re-plan keeps what it said)
        return steps if is_command_line is None else [request]
    steps = kept
    commands = commands_in_plan(steps, is_command_line) if is_command_line is not None else []
    if commands:
        if shown_on is not None:
            shown_on.say(
                f"The model's plan is command lines, not steps (`{commands[0]}`): the request is its one step",
                style="yellow",
            )
        return [request]
    return steps


class StepsAsTheyArrive:
    """Fed the plan's text as it streams; hands each step over once it is complete (followed by
    another, or the list closed), once. A repair request starts the count again."""

    _CLOSED = re.compile(r'"steps"\s*:\s*\[.*\]', re.DOTALL)

    def __init__(self, on_step: Callable[[int, str], None]) -> None:
        self.on_step = on_step
        self.shown = 0
        self.text = ""

    def __call__(self, text: str) -> None:
        if not text.startswith(self.text):  # a repair reply, starting over
            self.shown = 0
        self.text = text
        steps = partial_object(text).get("steps")
        if not isinstance(steps, list):
            return
        complete = steps if self._CLOSED.search(text) else steps[:-1]
        for number in range(self.shown, min(len(complete), MAX_PLAN_STEPS)):
            if isinstance(complete[number], str) and complete[number].strip():
                self.on_step(number + 1, complete[number].strip())
            self.shown = number + 1


def edit_plan(descriptions: list[str], command: str) -> list[str]:
    """Apply one plan edit: `d N` drop, `m N M` move, `r N text` reword, `a [N] text` add after N.

    Raises ValueError with a message for the user when the edit does not make sense.
    """
    parts = command.strip().split(maxsplit=1)
    if not parts:
        raise ValueError("empty edit")
    verb, rest = parts[0].lower(), (parts[1] if len(parts) > 1 else "")
    steps = list(descriptions)

    def index(text: str) -> int:
        if not text.isdigit() or not 1 <= int(text) <= len(steps):
            raise ValueError(f"no step {text!r}: steps are 1–{len(steps)}")
        return int(text) - 1

    if verb in ("d", "drop"):
        if len(steps) == 1:
            raise ValueError("a plan needs at least one step")
        del steps[index(rest.strip())]
    elif verb in ("m", "move"):
        pieces = rest.split()
        if len(pieces) != 2:
            raise ValueError("move needs two step numbers: m FROM TO")
        source, target = index(pieces[0]), index(pieces[1])
        steps.insert(target, steps.pop(source))
    elif verb in ("r", "reword"):
        number, _, text = rest.partition(" ")
        if not text.strip():
            raise ValueError("reword needs the new text: r N new description")
        steps[index(number)] = text.strip()
    elif verb in ("a", "add"):
        number, _, text = rest.partition(" ")
        if number.isdigit():
            position, description = index(number) + 1, text.strip()
        else:
            position, description = len(steps), rest.strip()
        if not description:
            raise ValueError("add needs a description: a [N] description")
        if len(steps) >= MAX_PLAN_STEPS:
            raise ValueError(f"a plan has at most {MAX_PLAN_STEPS} steps")
        steps.insert(position, description)
    else:
        raise ValueError(f"unknown edit {verb!r}: use d N, m N M, r N text, a [N] text")
    return steps
