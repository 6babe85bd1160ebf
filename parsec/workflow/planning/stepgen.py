"""Per-step command generation: one structured call → candidate commands and a `done` flag."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ...models.chat import ChatMessage
from ...models.workflow import ModelExchange
from .planner import with_instructions
from .reply_checks import step_problem
from .schemas import StepReply

if TYPE_CHECKING:
    from ..run.runner_parts import RunnerProvider

STEP_INSTRUCTIONS = (
    "Give the next shell command(s) for the current step only. Reply with candidates (the best "
    "first; alternatives after it), each a single command line for {shell} with a one-sentence "
    "explanation. When success can be read from the result, add expect (the exit status and, if "
    "needed, text the output must contain) and say in summary what the step will have achieved "
    "(with any value it finds that later steps need): "
    "a command that meets expect completes the step. Otherwise you see its result here and are "
    "asked again. When the results above show the step is achieved, reply done=true with no "
    "candidates and say what was achieved in summary. Prefer safe, non-interactive, read-only "
    "commands when they suffice."
)


def instructions_for(shell: str, extra: str = "") -> str:
    instructions = STEP_INSTRUCTIONS.format(shell=shell)
    return instructions + ("\n\n" + extra if extra else "")


def request_adds(shell: str, extra: str = "", provider: RunnerProvider | None = None) -> list[str]:
    """What a step request carries besides the context: the instructions and the reply's JSON
    format as the provider adds it. The context engine, which owns the budget, leaves room for
    them (`step_messages(..., adds=...)`)."""
    from ...providers.provider import reply_format_text

    reply_format = provider.reply_format_text(StepReply) if provider is not None else reply_format_text(StepReply)
    return [instructions_for(shell, extra), reply_format]


def step_request(messages: list[ChatMessage], *, shell: str = "bash", extra: str = "") -> list[ChatMessage]:
    """The messages a step call sends (the context engine's, with the instructions): also what
    `parsec context show` prints for a step not asked yet."""
    return with_instructions(messages, instructions_for(shell, extra))


def suggest(
    provider: RunnerProvider, messages: list[ChatMessage], *, shell: str = "bash", extra: str = ""
) -> StepReply:
    reply, _ = ask_step(provider, step_request(messages, shell=shell, extra=extra))
    return reply


def ask_step(
    provider: RunnerProvider,
    request: list[ChatMessage],
    *,
    is_command: Callable[[str], bool] | None = None,
    notice: Callable[[str], None] | None = None,
) -> tuple[StepReply, ModelExchange]:
    """(the reply, the exchange as sent and answered, for the conversation's record). With
    `is_command`, a reply that makes no sense (no command and not done, a made-up command) is
    asked again once, and `notice` told why."""
    check = partial(step_problem, is_command=is_command) if is_command is not None else None
    reply, result = provider.structured(request, StepReply, purpose="step", check=check, notice=notice)
    sent = list(getattr(result, "sent", ()) or request)  # as the adapter sent it: masked, JSON instructions added
    return reply, ModelExchange(purpose="step", messages=sent, reply=getattr(result, "text", "") or "")
