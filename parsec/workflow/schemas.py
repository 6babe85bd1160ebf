"""What the model must answer, as pydantic models handed to `Provider.structured`."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class PlanReply(BaseModel):
    """The planning call's answer: a short name and 1–12 imperative steps, no commands."""

    name: str = Field("", description="a short human name for the workflow, at most 6 words")
    steps: list[str] = Field(min_length=1, max_length=12, description="imperative step descriptions, in order")

    @field_validator("steps")
    @classmethod
    def _no_blank_steps(cls, steps: list[str]) -> list[str]:
        cleaned = [s.strip() for s in steps if s and s.strip()]
        if not cleaned:
            raise ValueError("at least one non-empty step")
        return cleaned


class CommandCandidate(BaseModel):
    command: str = Field(min_length=1, description="one shell command line")
    explanation: str = Field("", description="one sentence: what it does and why")


class StepReply(BaseModel):
    """The per-step call's answer: candidate commands, or `done` when the step is achieved."""

    done: bool = Field(False, description="true, with no candidates, when the results so far achieve the step")
    candidates: list[CommandCandidate] = Field(default_factory=list, max_length=5)
    summary: str = Field("", description="when done: one line saying what the step achieved")
