"""What the model must answer, as pydantic models handed to `Provider.structured`."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

from ...models.limits import MAX_PLAN_STEPS

# "1. Open a terminal.", "Step 2: ...", "- ...": the list's own numbering, which the plan adds again.
_NUMBERED = re.compile(r"^\s*(?:(?:step\s*)?\d+\s*[.):]|[-*•])\s+", re.IGNORECASE)


class PlanReply(BaseModel):
    """The planning call's answer: a short name and 1–12 imperative steps, no commands."""

    name: str = Field("", description="a short human name for the workflow, at most 6 words")
    steps: list[str] = Field(
        min_length=1, max_length=MAX_PLAN_STEPS, description="imperative step descriptions, in order"
    )

    @field_validator("steps")
    @classmethod
    def _no_blank_steps(cls, steps: list[str]) -> list[str]:
        cleaned = [_NUMBERED.sub("", s).strip() for s in steps if s and _NUMBERED.sub("", s).strip()]
        if not cleaned:
            raise ValueError("at least one non-empty step")
        return cleaned


CONTRACT_VERSION = 2  # docs/workflow.md § The model contract: bump with any change of these shapes


class Expectation(BaseModel):
    """What a command's result looks like when it achieves the step: a command that meets it
    completes the step without another model call."""

    exit_status: int = Field(0, description="the exit status that means success")
    output_contains: str = Field("", description="text the output must contain, or empty for any output")


class CommandCandidate(BaseModel):
    command: str = Field(min_length=1, description="one shell command line")
    explanation: str = Field("", description="one sentence: what it does and why")
    expect: Expectation | None = Field(
        None,
        description="when success can be read from the exit status and output: that result; a command "
        "meeting it completes the step. Omit when the result needs judging",
    )


class StepReply(BaseModel):
    """The per-step call's answer: candidate commands, or `done` when the step is achieved."""

    done: bool = Field(False, description="true, with no candidates, when the results so far achieve the step")
    candidates: list[CommandCandidate] = Field(default_factory=list, max_length=5)
    summary: str = Field(
        "",
        description="one line saying what the step achieved (when done), or will have "
        "achieved when the first candidate meets its expect",
    )


def meets(expect: Expectation | None, exit_status: int, output: str) -> bool:
    """Whether a finished command's result is the one its expectation describes. The text is the
    model's guess at the output, rarely literal (names on one line that print one per line, other
    case, a comma or a full stop): it is met as written, or by the same words in the same order,
    whole words either way ("3" is not met by "13" or "3.5", "0 failed" not by "10 failed, 0
    passed")."""
    if expect is None or exit_status != expect.exit_status:
        return False
    text = expect.output_contains.strip()
    if not text or re.search(rf"(?<![\w.]){re.escape(text)}(?![\w]|\.\w)", output):
        return True  # as written, whole words: "tmp/x" is met by "/tmp/x", "3" not by "3.5"
    wanted = _words(text)
    printed = _words(output)
    return any(printed[i : i + len(wanted)] == wanted for i in range(len(printed) - len(wanted) + 1))


_WORD = re.compile(r"[^\s,;:'\"()\[\]{}<>`]+")


def _words(text: str) -> list[str]:
    """Lower-case words, punctuation around them dropped ("a.txt," and "./a.txt" are "a.txt";
    "3.5" stays)."""
    words = (word.removeprefix("./").strip(".!?") for word in _WORD.findall(text.lower()))
    return [word for word in words if word]
