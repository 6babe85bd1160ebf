"""Per-step command generation: one structured call → candidate commands and a `done` flag."""

from __future__ import annotations

from typing import Any

from ..models.chat import ChatMessage
from .planner import with_instructions
from .schemas import StepReply

STEP_INSTRUCTIONS = (
    "Give the next shell command(s) for the current step only. Reply with candidates (the best "
    "first; alternatives after it), each a single command line for {shell} with a one-sentence "
    "explanation. After a command runs you see its result here and are asked again. When the "
    "results above show the step is achieved, reply done=true with no candidates and say what "
    "was achieved in summary. Prefer safe, non-interactive, read-only commands when they suffice."
)


def suggest(provider: Any, messages: list[ChatMessage], *, shell: str = "bash", extra: str = "") -> StepReply:
    instructions = STEP_INSTRUCTIONS.format(shell=shell)
    if extra:
        instructions += "\n\n" + extra
    reply, _ = provider.structured(with_instructions(messages, instructions), StepReply, purpose="step")
    return reply
