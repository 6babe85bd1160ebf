"""Per-step command generation: one structured call → candidate commands and a `done` flag."""

from __future__ import annotations

from typing import Any

from ..models.chat import ChatMessage
from .planner import with_instructions
from .schemas import StepReply

STEP_INSTRUCTIONS = (
    "Give the next shell command(s) for the current step only. Reply with candidates (the best "
    "first; alternatives after it), each a single command line for {shell} with a one-sentence "
    "explanation. Set done=true when the step will be complete once the first candidate succeeds, "
    "or, with no candidates, when the results above already achieve it (then say what in summary). "
    "Prefer safe, non-interactive, read-only commands when they suffice."
)


def suggest(provider: Any, messages: list[ChatMessage], *, shell: str = "bash", extra: str = "") -> StepReply:
    instructions = STEP_INSTRUCTIONS.format(shell=shell)
    if extra:
        instructions += "\n\n" + extra
    reply, _ = provider.structured(with_instructions(messages, instructions), StepReply, purpose="step")
    return reply
