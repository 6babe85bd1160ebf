"""Assembly: score the candidates, fit them to the budget and render the messages.

Deterministic: the same inputs (including `now`) give byte-identical messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..models.chat import ChatMessage
from ..models.context import StepContext
from .items import Candidate, CandidatePool, to_json
from .pruning import ContextOverflow, Selection, select
from .relevance import IMPORTANCE_SHARE, RECENCY_WEIGHT, RELEVANCE_WEIGHT, normalised, terms_of
from .report import ContextReport
from .tokens import TokenCounter

# Where each candidate section goes in the step context (container, key).
SECTION_HOME: dict[str, tuple[str, str | None]] = {
    "current_step": ("current_step", None),
    "execution_history": ("execution_history", None),
    "current_environment": ("current_environment", None),
    "environment_changes": ("current_environment", "changes"),
    "error_context": ("error_context", None),
    "recent_conversations": ("session_context", "recent_conversations"),
    "recent_commands": ("session_context", "recent_commands"),
    "preferences": ("preferences", None),
}
_ROOT_LISTS = {"execution_history"}


def datetime_line(now: datetime) -> str:
    local = now.astimezone()
    return f"Current date and time: {local:%Y-%m-%d %H:%M %Z} ({local:%A})"


@dataclass
class StepInputs:
    """The fixed parts of a step's context: always sent, never pruned."""

    system_prompt: str
    conversation: dict[str, Any]
    workflow: dict[str, Any]
    session_base: dict[str, Any]
    query: str
    now: datetime
    dynamic_blocks: str = ""
    warnings: list[str] = field(default_factory=list)


def score(candidates: list[Candidate], pool: CandidatePool, query: str, decay: float) -> None:
    """Set relevance, recency and the combined score of every candidate (see relevance.py)."""
    relevance = normalised(pool.index.scores(terms_of(query))).get
    share = IMPORTANCE_SHARE
    for c in candidates:  # inlined combined_score: this loop sees every candidate of every step
        c.relevance = rel = relevance(c.doc, 0.0)
        c.recency = rec = decay**c.age if c.age > 0 else 1.0
        c.score = RELEVANCE_WEIGHT * rel + RECENCY_WEIGHT * rec + share[c.importance]


def build_step_dict(inputs: StepInputs, selection: Selection) -> dict[str, Any]:
    # Stable parts first (the plan, then completed steps in order), what changes last: a provider
    # caches the longest unchanged prefix of a request.
    context: dict[str, Any] = {
        "conversation": inputs.conversation,
        "workflow": inputs.workflow,
        "execution_history": [],
        "current_step": {},
        "current_environment": {},
        "error_context": None,
        "session_context": dict(inputs.session_base),
        "preferences": {},
    }
    for candidate, form in sorted(selection.kept, key=lambda pair: (pair[0].section, pair[0].order, pair[0].key)):
        payload = candidate.payload(form)
        times = selection.repeats.get(candidate.key)
        if times and isinstance(payload, dict):
            payload = {**payload, "times": times}
        home, key = SECTION_HOME[candidate.section]
        if key is None:
            if home in _ROOT_LISTS:
                context[home].append(payload)
            elif home == "preferences":
                context[home].update(payload)
            else:
                context[home] = payload if not isinstance(context[home], dict) else {**context[home], **payload}
        else:
            context[home].setdefault(key, []).append(payload)
    return context


def render_step_message(inputs: StepInputs, context: dict[str, Any]) -> str:
    """The user message. Its parts are masked already: the fixed ones by the engine, the items by
    `Candidate.ensure_masked` (cached per item, so a long conversation does not pay it twice)."""
    shown = {k: v for k, v in context.items() if v not in (None, {}, [])}
    parts = ["Step context (JSON):\n" + to_json(shown)]
    if inputs.dynamic_blocks:
        parts.append(inputs.dynamic_blocks)
    parts.append(datetime_line(inputs.now))  # last: it changes with every request
    return "\n\n".join(parts)


def assemble_step(
    inputs: StepInputs,
    pool: CandidatePool,
    candidates: list[Candidate],
    budget: int,
    counter: TokenCounter,
    decay: float,
) -> tuple[list[ChatMessage], StepContext, ContextReport]:
    score(candidates, pool, inputs.query, decay)
    system = ChatMessage(role="system", content=inputs.system_prompt)
    empty = build_step_dict(inputs, Selection())
    fixed = counter.count_messages([system, ChatMessage(role="user", content=render_step_message(inputs, empty))])
    selection = select(candidates, budget - fixed, counter, pool.pattern_counts)
    for candidate, form in selection.kept:
        candidate.ensure_masked(form)

    while True:
        context = build_step_dict(inputs, selection)
        user = ChatMessage(role="user", content=render_step_message(inputs, context))
        messages = [system, user]
        total = counter.count_messages(messages)
        if total <= budget:
            break
        # Item estimates are per fragment; joining them can cost a few tokens more. Drop the
        # lowest-scoring optional item and measure again.
        optional = [c for c, _ in selection.kept if not c.core]
        if not optional:
            raise ContextOverflow(
                f"the step's core context needs {total} tokens but the budget is {budget}; "
                "use a model with a larger context window"
            )
        worst = min(optional, key=lambda c: (c.score, c.importance.rank, -c.age, c.key))
        selection.drop(worst, "dropped after the final count: over budget")

    step_context = StepContext.model_validate({**context, "token_count": total})
    report = ContextReport(
        budget=budget,
        total_tokens=total,
        counter=counter.name,
        measure_sections=lambda: section_tokens(inputs, context, counter),
        selection=selection,
        warnings=list(inputs.warnings),
    )
    return messages, step_context, report


def section_tokens(inputs: StepInputs, context: dict[str, Any], counter: TokenCounter) -> dict[str, int]:
    sections = {
        "system_prompt": counter.count(inputs.system_prompt),
        "datetime": counter.count(datetime_line(inputs.now)),
    }
    for name, value in context.items():
        if value not in (None, {}, []):
            sections[name] = counter.count(to_json(value))
    if inputs.dynamic_blocks:
        sections["dynamic_context"] = counter.count(inputs.dynamic_blocks)
    return sections


def planning_document(base: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """The seed's planning JSON: the fixed `base` plus the selected items in their sections."""
    document = {**base, "session_context": dict(base["session_context"]), "preferences": {}}
    for candidate, form in sorted(selection.kept, key=lambda pair: (pair[0].section, pair[0].order, pair[0].key)):
        payload = candidate.payload(form)
        times = selection.repeats.get(candidate.key)
        if times and isinstance(payload, dict):
            payload = {**payload, "times": times}
        if candidate.section == "preferences":
            document["preferences"].update(payload)
        else:
            document["session_context"].setdefault(candidate.section, []).append(payload)
    return document


def assemble_planning(
    system: ChatMessage,
    base: dict[str, Any],
    query: str,
    pool: CandidatePool,
    candidates: list[Candidate],
    budget: int,
    counter: TokenCounter,
    decay: float,
    now: datetime,
    warnings: list[str],
) -> tuple[list[ChatMessage], ContextReport]:
    """Planning messages: candidates scored against the prompt and fitted to `budget` like a step's."""
    score(candidates, pool, query, decay)

    def render(selection: Selection) -> ChatMessage:
        document = planning_document(base, selection)
        text = f"{datetime_line(now)}\n\nPlanning context (JSON):\n{to_json(document)}"
        return ChatMessage(role="user", content=text)

    fixed = counter.count_messages([system, render(Selection())])
    selection = select(candidates, budget - fixed, counter, pool.pattern_counts)
    for candidate, form in selection.kept:
        candidate.ensure_masked(form)
    while True:
        messages = [system, render(selection)]
        total = counter.count_messages(messages)
        if total <= budget or not selection.kept:
            break
        worst = min((c for c, _ in selection.kept), key=lambda c: (c.score, c.importance.rank, -c.age, c.key))
        selection.drop(worst, "dropped after the final count: over budget")
    report = ContextReport(
        budget=budget,
        total_tokens=total,
        counter=counter.name,
        selection=selection,
        warnings=warnings,
        measure_sections=lambda: {
            "system_prompt": counter.count(system.content),
            "planning_context": counter.count(messages[1].content),
        },
    )
    return messages, report
