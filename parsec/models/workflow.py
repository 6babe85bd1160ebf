"""Prompt-classified input: Conversation → WorkflowPlan → steps, with their state machines."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from ..errors import InvalidTransition
from .chat import ChatMessage
from .context import ArtifactInfo, ContextSummary, EnvironmentChange, StepContext
from .limits import MAX_PLAN_STEPS
from .parsec_model import ParsecModel, Ulid, UtcDatetime, new_id, utcnow
from .text import TruncatedText


class ConversationStatus(StrEnum):
    planning = "planning"
    ready = "ready"
    in_progress = "in_progress"
    finished = "finished"
    aborted = "aborted"
    error = "error"


class StepStatus(StrEnum):
    pending = "pending"
    command_suggested = "command_suggested"
    running = "running"
    complete = "complete"
    failed = "failed"
    skipped = "skipped"
    aborted = "aborted"


_CONVERSATION_TERMINAL = {ConversationStatus.finished, ConversationStatus.aborted, ConversationStatus.error}
_CONVERSATION_MOVES: dict[ConversationStatus, set[ConversationStatus]] = {
    ConversationStatus.planning: {ConversationStatus.ready},
    # ready → planning is a re-plan with the user's remark.
    ConversationStatus.ready: {ConversationStatus.in_progress, ConversationStatus.planning},
    ConversationStatus.in_progress: {ConversationStatus.finished},
}

_STEP_TERMINAL = {StepStatus.complete, StepStatus.skipped, StepStatus.aborted}
_STEP_MOVES: dict[StepStatus, set[StepStatus]] = {
    StepStatus.pending: {StepStatus.command_suggested, StepStatus.complete},
    # command_suggested → complete: the model judged the step done after a declined suggestion.
    StepStatus.command_suggested: {StepStatus.running, StepStatus.command_suggested, StepStatus.complete},
    # running → command_suggested: the command succeeded but the step needs another one.
    StepStatus.running: {StepStatus.complete, StepStatus.failed, StepStatus.command_suggested},
    # failed → complete: after a failure the model judged the step done (e.g. an interrupted run did it).
    StepStatus.failed: {StepStatus.command_suggested, StepStatus.complete},
}


class WorkflowStep(ParsecModel):
    index: int = Field(ge=0)
    description: str = Field(min_length=1)


class WorkflowPlan(ParsecModel):
    steps: list[WorkflowStep] = Field(min_length=1, max_length=MAX_PLAN_STEPS)
    created_at: UtcDatetime = Field(default_factory=utcnow)
    revision: int = 1

    @classmethod
    def from_descriptions(cls, descriptions: list[str], revision: int = 1) -> WorkflowPlan:
        steps = [WorkflowStep(index=i, description=d) for i, d in enumerate(descriptions)]
        return cls(steps=steps, revision=revision)


class Approval(StrEnum):
    approved = "approved"  # run as suggested
    edited = "edited"  # the user changed it, then ran it
    auto_approved = "auto_approved"  # --yes on a low-risk command
    declined = "declined"  # not run


class ModelExchange(ParsecModel):
    """One model call as sent: the messages (the system prompt first, the instructions in the
    last one) and the reply text, so a conversation can be replayed and inspected exactly."""

    purpose: str  # plan | step
    messages: list[ChatMessage]
    reply: str = ""
    at: UtcDatetime = Field(default_factory=utcnow)


class CommandAttempt(ParsecModel):
    id: Ulid = Field(default_factory=new_id)
    suggested_command: str
    command: str  # what actually ran (differs from suggested when edited)
    explanation: str = ""
    risk_level: str = "unknown"
    risk_reasons: list[str] = Field(default_factory=list)
    approval: Approval | None = None
    executed: bool = False
    exit_status: int | None = None
    duration_ms: int | None = None
    output: TruncatedText | None = None
    cwd: str = ""
    started_at: UtcDatetime | None = None
    finished_at: UtcDatetime | None = None
    interrupted: bool = False

    @property
    def succeeded(self) -> bool:
        return self.executed and self.exit_status == 0


class WorkflowStepState(ParsecModel):
    step: WorkflowStep
    status: StepStatus = StepStatus.pending
    command_attempts: list[CommandAttempt] = Field(default_factory=list)
    context_used: StepContext | None = None
    exchanges: list[ModelExchange] = Field(default_factory=list)  # every model call for this step
    artifacts_produced: list[ArtifactInfo] = Field(default_factory=list)
    environment_changes: list[EnvironmentChange] = Field(default_factory=list)
    error_context: str | None = None
    summary: str = ""  # what the model said the step achieved (masked), sent with it to later steps
    retries: int = 0
    started_at: UtcDatetime | None = None
    finished_at: UtcDatetime | None = None

    @property
    def is_terminal(self) -> bool:
        return self.status in _STEP_TERMINAL

    def transition(self, to: StepStatus | str, by_user: bool = False) -> None:
        """Move to `to` if the state machine allows it; the user may skip or abort any open step."""
        to = StepStatus(to)
        current = self.status
        user_exit = by_user and to in (StepStatus.skipped, StepStatus.aborted)
        allowed = _STEP_MOVES.get(current, set())
        if current in _STEP_TERMINAL or not (to in allowed or user_exit):
            raise InvalidTransition(f"step {self.step.index + 1} cannot go from {current.value} to {to.value}")
        if self.started_at is None and to != StepStatus.pending:
            self.started_at = utcnow()
        if to in _STEP_TERMINAL:
            self.finished_at = utcnow()
        self.status = to


class Conversation(ParsecModel):
    """A workflow for one natural-language request, self-contained and reproducible."""

    id: Ulid = Field(default_factory=new_id)
    session_id: Ulid
    name: str
    original_prompt: str
    created_at: UtcDatetime = Field(default_factory=utcnow)
    updated_at: UtcDatetime = Field(default_factory=utcnow)
    finished_at: UtcDatetime | None = None
    status: ConversationStatus = ConversationStatus.planning
    workflow: WorkflowPlan | None = None
    steps: list[WorkflowStepState] = Field(default_factory=list)
    context_summary: ContextSummary = Field(default_factory=ContextSummary)
    # Captured once when the conversation starts; a resumed conversation keeps it (cllm ADR-0020).
    system_prompt: str | None = None
    planning_exchanges: list[ModelExchange] = Field(default_factory=list)  # each plan (and re-plan) call
    working_directory: str = ""
    provider: str = ""
    model: str = ""
    error: str | None = None

    @property
    def is_terminal(self) -> bool:
        return self.status in _CONVERSATION_TERMINAL

    def transition(self, to: ConversationStatus | str) -> None:
        to = ConversationStatus(to)
        current = self.status
        # Abort and error are reachable from every open state.
        can_leave = to in (ConversationStatus.aborted, ConversationStatus.error)
        allowed = _CONVERSATION_MOVES.get(current, set())
        if current in _CONVERSATION_TERMINAL or not (to in allowed or can_leave):
            raise InvalidTransition(f"conversation {self.id} cannot go from {current.value} to {to.value}")
        self.status = to
        self.updated_at = utcnow()
        if to in _CONVERSATION_TERMINAL:
            self.finished_at = self.updated_at

    def set_plan(self, plan: WorkflowPlan) -> None:
        """Attach a (new) plan; steps restart from pending."""
        self.workflow = plan
        self.steps = [WorkflowStepState(step=s) for s in plan.steps]
        self.updated_at = utcnow()

    def current_step_index(self) -> int | None:
        """Index of the first step that is not finished, or None when all are."""
        for i, state in enumerate(self.steps):
            if not state.is_terminal:
                return i
        return None


ArtifactChange = Literal["created", "modified", "deleted"]
