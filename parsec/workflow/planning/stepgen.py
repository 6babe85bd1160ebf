"""Per-step command generation: one structured call → candidate commands and a `done` flag."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ...models.chat import ChatMessage
from ...models.workflow import ModelExchange
from ...providers.provider_errors import StructuredOutputError
from .planner import with_instructions
from .reply_checks import first_word, step_problem
from .schemas import CommandCandidate, Expectation, StepReply

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


# When a model cannot write the step reply's JSON even after a repair request (a small local one
# answering with nothing, or a plan): what the peers ask for, one command as plain text.
PLAIN_COMMAND_INSTRUCTIONS = (
    "Reply with only the one {shell} command line that carries out the current step: no JSON, no "
    "explanation, no code fences."
)
PLAIN_COMMAND_EXPLANATION = "the model's command, given as plain text"


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


def ask_step_or_plain_command(
    provider: RunnerProvider,
    request: list[ChatMessage],
    messages: list[ChatMessage],
    *,
    shell: str,
    extra: str,
    is_command: Callable[[str], bool],
    notice: Callable[[str], None],
) -> tuple[StepReply, list[ModelExchange]]:
    """The step reply (`ask_step`); when the model cannot write one even after the repair request,
    its command as plain text (`ask_plain_command`, on the step's `messages` and the same `extra`
    note), `notice` told why. Every exchange is returned for the record; the first error is raised
    when neither works."""
    try:
        reply, exchange = ask_step(provider, request, is_command=is_command, notice=notice)
        return reply, [exchange]
    except StructuredOutputError as err:
        failed = ModelExchange(purpose="step", messages=list(request), reply=err.reply)
        notice(f"{str(err).rpartition(': ')[2]}, again; asking for the command alone")
        plain, exchange = ask_plain_command(provider, messages, shell=shell, extra=extra, is_command=is_command)
        if plain is None:
            raise
        return plain, [failed, exchange]


MAX_PLAIN_LINES = 3  # a short block is joined with &&; a longer one is a script, not a command line


def ask_plain_command(
    provider: RunnerProvider,
    messages: list[ChatMessage],
    *,
    shell: str,
    extra: str = "",
    is_command: Callable[[str], bool],
) -> tuple[StepReply | None, ModelExchange]:
    """One plain-text call for the step's command, as `llm` and `sgpt` ask. The reply's command
    lines (`plain_command_lines`), joined with && when there are a few, are the one candidate,
    with success being an exit status of 0, as for those tools; None when a line is no command
    here or there are too many."""
    instructions = PLAIN_COMMAND_INSTRUCTIONS.format(shell=shell) + (f"\n\n{extra}" if extra else "")
    request = with_instructions(messages, instructions)
    result = provider.chat(request, purpose="step")
    exchange = ModelExchange(purpose="step", messages=list(result.sent or request), reply=result.text)
    lines = plain_command_lines(result.text)
    words = [first_word(line) for line in lines]
    if not lines or len(lines) > MAX_PLAIN_LINES or not all(word and is_command(word) for word in words):
        return None, exchange  # a sentence ("Sorry, I cannot…"), a made-up name, a script
    candidate = CommandCandidate(
        command=" && ".join(lines), explanation=PLAIN_COMMAND_EXPLANATION, expect=Expectation()
    )
    return StepReply(candidates=[candidate]), exchange


_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.DOTALL)


def plain_command_lines(text: str) -> list[str]:
    """The command lines of a plain reply: those inside its first code fence when it has one
    (whatever the fence's language tag), else all of it; `$ ` prompts and blank lines dropped."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text.strip().strip("`")
    lines = [line.strip().removeprefix("$ ").strip() for line in body.splitlines()]
    return [line for line in lines if line]
