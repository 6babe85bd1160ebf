"""ContextEngine: the one object the workflow talks to for everything a model sees.

engine = ContextEngine(settings, store, limits, summarize)
conversation.system_prompt = engine.system_prompt(cwd, shell)        # once per conversation
messages = engine.planning_messages(conversation, session, adds=[instructions, reply_format])
messages, step_context, report = engine.step_messages(conversation, i, environment, adds=[...])

The engine owns the token budget: `adds` are the texts the caller and its provider add to the
request (the task's instructions, `provider.reply_format_text(Model)`); the engine counts them
and fits the context into what is left of the model's window.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import Settings
from ..directory_facts import detected_tools, project_type, snapshot
from ..errors import NotFound, StoreError
from ..models.chat import ChatMessage
from ..models.context import StepContext
from ..models.session import Session
from ..models.workflow import Conversation
from . import collect, commands, redact
from .assembly import StepInputs, assemble_planning, assemble_step
from .compaction import Summarize, compact
from .items import Candidate, CandidatePool
from .learning import LearnedPreference, learn_preferences, recent_conversations
from .pruning import ContextOverflow
from .report import ContextReport
from .tokens import LazyCounter, TokenCounter, Utf8BoundCounter, get_token_counter
from .truncation import truncate

if TYPE_CHECKING:
    from ..providers.provider import ModelLimits
    from ..store.protocols import ContextStore

Built = TypeVar("Built")  # what ContextEngine._bounded_first's build returns
DEFAULT_CONTEXT_WINDOW = 8192  # used when neither the provider nor the config knows the model
DEFAULT_OUTPUT_RESERVE = 1024
JOIN_TOKENS = 2  # the blank line an added text is joined to its message with
SHELL_HISTORY_LIMIT = 200  # shell commands of the session weighed per step
LEARNING_SAMPLE = 2000  # newest executions preferences are learned from
RECENT_CONVERSATIONS = 5


class ContextEngine:
    def __init__(
        self,
        settings: Settings,
        store: ContextStore | None,
        limits: ModelLimits | None = None,
        summarize: Summarize | None = None,
        *,
        counter: TokenCounter | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.context_window, self.output_reserve = _limits(settings, limits)
        self.summarize = summarize
        self.counter = counter or get_token_counter()
        self._clock = clock or (lambda: datetime.now(UTC))
        self._pools: dict[str, CandidatePool] = {}
        self._attempt_cache: dict[tuple, Candidate] = {}  # finished attempts, masked once
        self._learned: list[LearnedPreference] | None = None
        self._tools: list[str] | None = None
        self._sessions: dict[str, Session | None] = {}
        self._question_prompt: str | None = None
        self.warnings: list[str] = []
        self.last_report: ContextReport | None = None
        redact.configure(settings.privacy.extra_patterns)

    # --- budget ------------------------------------------------------------------------------
    @property
    def budget(self) -> int:
        """Tokens a request may use: the model's window minus what its answer needs."""
        return max(self.context_window - self.output_reserve, 0)

    def tokens_added(self, adds: Sequence[str], counter: TokenCounter | None = None) -> int:
        """Tokens that `adds` (texts joined to the request's messages) take from the budget."""
        counter = counter or self.counter
        return sum(counter.count(text) + JOIN_TOKENS for text in adds if text)

    @property
    def max_output(self) -> int:
        return self.settings.context_pruning.max_command_output_length

    # --- system prompt -----------------------------------------------------------------------
    def system_prompt(self, cwd: str, shell: str, mode: str = "workflow") -> str:
        """The layered system prompt with the static context commands' output (run once, in parallel)."""
        from .prompts import build_system_prompt

        static = [c for c in self.settings.context_commands if not c.dynamic]
        outputs = commands.run_all(static, cwd, self.max_output)
        self.warnings.extend(commands.warnings(outputs))
        return build_system_prompt(cwd, shell, self._clock(), commands.render_blocks(outputs), mode).content

    def ensure_system_prompt(self, conversation: Conversation, shell: str = "") -> str:
        """The conversation's prompt, captured now if it has none; never rebuilt once set."""
        if conversation.system_prompt is None:
            cwd = conversation.working_directory or os.getcwd()
            shell = shell or os.path.basename(os.environ.get("SHELL", ""))
            conversation.system_prompt = self.system_prompt(cwd, shell)
        return conversation.system_prompt

    # --- planning ----------------------------------------------------------------------------
    def planning_messages(
        self, conversation: Conversation, session: Session | None, adds: Sequence[str] = ()
    ) -> list[ChatMessage]:
        """The system prompt and the seed's planning JSON, pruned to the budget less `adds`.

        With a token encoding not loaded yet (LazyCounter: `parsec ask` sends this request before
        it pays ~200 ms for the encoding), the context is first fitted with an upper bound of
        the count (UTF-8 bytes): when that keeps every candidate whole, the encoding would have
        kept the same, so the messages are the same; otherwise it is fitted again, exactly."""
        pool = self._pool(f"plan:{conversation.id}")
        return self._bounded_first(lambda counter: self._planning_messages(conversation, session, adds, counter, pool))

    def _bounded_first(self, build: Callable[[TokenCounter], Built]) -> Built:
        """`build(counter)`, with an upper bound of the count first while the encoding is not loaded
        (LazyCounter): if the bound keeps all whole in the budget, so would the encoding; else exactly."""
        counter = self.counter
        if isinstance(counter, LazyCounter) and not counter.loaded:
            try:
                result = build(Utf8BoundCounter())
            except ContextOverflow:  # the bound is too coarse for this window: count exactly
                result = None
            report = self.last_report
            if result is not None and report is not None and report.total_tokens <= report.budget and report.all_kept():
                return result
        return build(counter)

    def _planning_messages(
        self,
        conversation: Conversation,
        session: Session | None,
        adds: Sequence[str],
        counter: TokenCounter,
        pool: CandidatePool,
    ) -> list[ChatMessage]:
        system = ChatMessage(
            role="system", content=self.ensure_system_prompt(conversation, session.shell if session else "")
        )
        cwd = conversation.working_directory or os.getcwd()
        now = self._clock()
        candidates = self._learning_candidates(conversation, session, cwd)
        history = (
            session.command_history
            if session and session.command_history
            else self._session_history(conversation.session_id)
        )
        candidates += collect.shell_history(history[:SHELL_HISTORY_LIMIT])
        candidates = [_carry_step_facts(pool.add(c), c) for c in candidates]
        pool.retain({c.key for c in candidates})

        previous_plan = [s.description for s in conversation.workflow.steps] if conversation.workflow else []
        base = {
            "user_prompt": redact.masked(conversation.original_prompt),
            "session_context": {
                "working_directory": redact.masked(cwd),
                "detected_tools": self._detected_tools(),
                "project_type": project_type(cwd),
            },
            "conversation_history": [{"previous_plan": [redact.masked(s) for s in previous_plan]}]
            if previous_plan
            else [],
            "preferences": {},
        }

        query = redact.masked(conversation.original_prompt)
        messages, self.last_report = assemble_planning(
            system,
            base,
            query,
            pool,
            candidates,
            max(self.budget - self.tokens_added(adds, counter), 0),
            counter,
            self.settings.context_pruning.importance_decay_factor,
            now,
            list(self.warnings),
        )
        return messages

    # --- steps -------------------------------------------------------------------------------
    def step_messages(
        self,
        conversation: Conversation,
        step_index: int,
        environment: dict[str, Any] | None = None,
        adds: Sequence[str] = (),
        dynamic: str | None = None,
    ) -> tuple[list[ChatMessage], StepContext, ContextReport]:
        """Messages for the command of step `step_index`, the StepContext they carry and a report.

        `adds`: the texts the caller and its provider add to the request (the instructions, the
        reply's JSON format), so the budget covers everything sent. `dynamic`: the dynamic context commands' blocks as
        they were last sent (`parsec context show` never runs the commands again)."""
        if not 0 <= step_index < len(conversation.steps):
            raise IndexError(f"conversation {conversation.id} has no step {step_index}")
        system_prompt = self.ensure_system_prompt(conversation)
        pruning = self.settings.context_pruning
        environment = dict(environment or {})
        cwd = _current_cwd(conversation, step_index, environment)
        env = snapshot(cwd)
        env.update(_environment_facts(environment, self.settings.privacy.environment_allowlist))
        env["working_directory"] = shown_cwd = redact.masked(cwd)

        if dynamic is None:
            outputs = commands.run_all([c for c in self.settings.context_commands if c.dynamic], cwd, self.max_output)
            step_warnings, dynamic = commands.warnings(outputs), commands.render_blocks(outputs)
        else:
            step_warnings = []

        error, error_attempt = collect.active_error(conversation, step_index, self.max_output)
        candidates: list[Candidate] = [collect.current_step(conversation, step_index), collect.environment(env)]
        if error is not None:
            candidates.append(error)
        candidates += collect.attempts(
            conversation,
            step_index,
            self.max_output,
            pruning.preserve_error_context_steps,
            error_attempt,
            self._attempt_cache,
        )
        candidates += collect.environment_changes(conversation, step_index)
        candidates += self._learning_candidates(conversation, self._session_settings(conversation.session_id), cwd)
        candidates += collect.shell_history(self._session_history(conversation.session_id))

        pool = self._pool(conversation.id)
        candidates = [_carry_step_facts(pool.add(c), c) for c in candidates]
        pool.retain({c.key for c in candidates})

        facts, workflow = collect.conversation_facts(conversation)
        state = conversation.steps[step_index]
        query = " ".join([state.step.description, conversation.original_prompt, error.text if error else ""])
        inputs = StepInputs(
            system_prompt=system_prompt,
            conversation=facts,
            workflow=workflow,
            session_base={
                "working_directory": shown_cwd,
                "detected_tools": self._detected_tools(),
                "project_type": env.get("project_type"),
            },
            query=redact.masked(query),
            now=self._clock(),
            dynamic_blocks=dynamic,
            warnings=step_warnings,
        )

        def build(counter: TokenCounter) -> tuple[list[ChatMessage], StepContext, ContextReport]:
            budget = max(self.budget - self.tokens_added(adds, counter), 0)
            built = assemble_step(inputs, pool, candidates, budget, counter, pruning.importance_decay_factor)
            self.last_report = built[2]
            return built

        return self._bounded_first(build)

    # --- questions ---------------------------------------------------------------------------
    def question_messages(
        self,
        question: str,
        cwd: str,
        shell: str,
        history: list[Any],
        earlier: Sequence[tuple[str, str]] = (),
        instructions: str = "",
        adds: Sequence[str] = (),
    ) -> list[ChatMessage]:
        """A question about the user's shell: the system prompt (captured once per engine) with
        `instructions`, the question with the session's recent commands and the last one's output
        (`history`, newest first), the earlier questions and answers of this exchange, within the
        budget less `adds`. A follow-up repeats the request's start byte for byte (prompt caches)."""
        from .questions import fit_question

        if self._question_prompt is None:
            self._question_prompt = self.system_prompt(cwd, shell, mode="question")
        prompt = self._question_prompt + (f"\n\n{instructions}" if instructions else "")
        now = self._clock()

        def fit(counter: TokenCounter, shrinking: bool) -> list[ChatMessage]:
            room = self.budget - self.tokens_added(adds, counter)
            return fit_question(
                prompt,
                question,
                cwd,
                history,
                earlier,
                max_output=self.max_output,
                room=room,
                counter=counter,
                now=now,
                shrinking=shrinking,
            )

        if isinstance(self.counter, LazyCounter) and not self.counter.loaded:
            try:  # the upper bound first: when it fits, the exact count would too
                return fit(Utf8BoundCounter(), shrinking=False)
            except ContextOverflow:
                pass
        return fit(self.counter, shrinking=True)

    # --- conversation-style message lists ------------------------------------------------------
    def fit_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """Compact (when over the threshold and a summariser is wired) and then truncate to the budget."""
        threshold = self.settings.context_management.context_compression_threshold
        if self.summarize is not None:
            try:
                result = compact(messages, self.counter, self.budget, threshold, self.summarize, self._clock())
            except Exception as err:  # a failed summary must not lose the conversation: truncate instead
                self.warnings.append(f"context compaction failed ({type(err).__name__}: {err}); truncating instead")
                result = None
            if result is not None:
                messages = result.messages
        return truncate(messages, self.budget, self.counter, self.settings.workflow.truncation_strategy)

    # --- helpers -----------------------------------------------------------------------------
    @property
    def privacy_mode(self) -> bool:
        return self.settings.context_management.privacy_mode

    def _learning_enabled(self, session: Session | None) -> bool:
        private = self.privacy_mode or bool(session and session.settings.privacy_mode)
        return self.settings.context_management.enable_cross_conversation_learning and not private

    def _session_settings(self, session_id: str) -> Session | None:
        """The conversation's session (for its privacy mode), looked up once; None if unknown."""
        if session_id not in self._sessions:
            session = None
            if self.store is not None:
                try:
                    session = self.store.load_session(session_id, history_limit=0)
                except (StoreError, NotFound):
                    session = None
            self._sessions[session_id] = session
        return self._sessions[session_id]

    def _learning_candidates(self, conversation: Conversation, session: Session | None, cwd: str) -> list[Candidate]:
        learned: list[LearnedPreference] = []
        past = []
        if self._learning_enabled(session) and self.store is not None:
            learned = self._learned_preferences()
            try:
                past = recent_conversations(self.store, cwd, conversation.id, RECENT_CONVERSATIONS)
            except StoreError as err:
                self.warnings.append(f"recent conversations unavailable: {err}")
        return collect.past_conversations(past) + collect.preferences(self.settings.preferences, learned)

    def _learned_preferences(self) -> list[LearnedPreference]:
        if self._learned is not None:
            return self._learned
        learned: list[LearnedPreference] = []
        if self.store is not None:  # else nothing recorded to learn from
            from ..store.protocols import ExecutionQuery

            try:
                learned = learn_preferences(self.store.query_executions(ExecutionQuery(limit=LEARNING_SAMPLE)))
            except StoreError as err:
                self.warnings.append(f"history unavailable for learning preferences: {err}")
        self._learned = learned
        return learned

    def _session_history(self, session_id: str) -> list:
        if self.store is None:
            return []
        from ..store.protocols import ExecutionQuery

        try:
            return self.store.query_executions(ExecutionQuery(session_id=session_id, limit=SHELL_HISTORY_LIMIT))
        except StoreError as err:
            self.warnings.append(f"shell history unavailable: {err}")
            return []

    def _detected_tools(self) -> list[str]:
        if self._tools is None:
            self._tools = detected_tools()
        return self._tools

    def _pool(self, key: str) -> CandidatePool:
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = CandidatePool()
        return pool


def _carry_step_facts(kept: Candidate, fresh: Candidate) -> Candidate:
    """A pooled candidate keeps its index entry and token counts; this step's facts come from `fresh`."""
    if kept is not fresh:
        kept.importance, kept.core, kept.core_reason, kept.age = (
            fresh.importance,
            fresh.core,
            fresh.core_reason,
            fresh.age,
        )
        kept.order, kept.summary = fresh.order, fresh.summary
    return kept


_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def _environment_facts(environment: dict[str, Any], allowlist: list[str]) -> dict[str, Any]:
    """What the caller says about the environment, masked; variables only if allow-listed
    (`[privacy] environment_allowlist`), whether given at the top level or under "env"."""
    allowed = set(allowlist)
    facts: dict[str, Any] = {}
    for key, value in environment.items():
        if key == "cwd":
            continue
        if key in ("env", "environment", "variables") and isinstance(value, dict):
            value = {name: v for name, v in value.items() if name in allowed}
        elif _ENV_NAME.match(key) and key not in allowed:
            continue
        facts[key] = value
    return redact.masked_value(facts)


def _current_cwd(conversation: Conversation, step_index: int, environment: dict[str, Any]) -> str:
    given = environment.get("working_directory") or environment.get("cwd")
    if given:
        return str(given)
    for state in reversed(conversation.steps[: step_index + 1]):
        for change in reversed(state.environment_changes):
            if change.kind == "cwd" and change.new_value:
                return change.new_value
        for attempt in reversed(state.command_attempts):
            if attempt.executed and attempt.cwd:
                return attempt.cwd
    return conversation.working_directory or os.getcwd()


def _limits(settings: Settings, limits: ModelLimits | None) -> tuple[int, int]:
    """(context window, output reserve): the provider's metadata, then [llm.models] overrides."""
    window = limits.context_window if limits else DEFAULT_CONTEXT_WINDOW
    reserve = limits.max_output_tokens if limits else DEFAULT_OUTPUT_RESERVE
    override = settings.llm.models.get(settings.llm.model) if settings.llm.model else None
    if override is not None:
        window = override.context_window or window
        reserve = override.max_output_tokens or reserve
    return window, min(reserve, window // 2)


__all__ = ["ContextEngine", "ContextOverflow"]
