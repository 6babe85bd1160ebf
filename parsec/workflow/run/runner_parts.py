"""What the runner's two parts (gatekeeping.py, executor.py) use of WorkflowRunner (runner.py),
and the options a run is given.

One declaration of the seam, so that a type checker (and the next reader) sees what the mixins
rely on: the runner sets these attributes in its __init__ and defines these methods.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from ...models.limits import MAX_PLAN_STEPS
from ...models.workflow import Conversation
from ...store.protocols import AchievementStore, ConversationStore
from ..execution.sandbox import SandboxSettings

if TYPE_CHECKING:
    from ...context.tokens import TokenCounter
    from ...models.chat import ChatMessage
    from ...models.session import DirectCommandExecution, Session
    from ...providers.provider import ChatResult
    from ..execution.persistent_shell import PersistentShell
    from ..planning.schemas import CommandCandidate
    from ..risk import RiskVerdict

Reply = TypeVar("Reply", bound=BaseModel)


@dataclass
class RunOptions:
    auto_yes: bool = False  # approve commands up to auto_level without asking; decline the rest
    auto_level: str = "medium"  # --yes: low and medium; --yes=low: low only (high: never)
    max_retries: int = 2
    max_plan_steps: int = MAX_PLAN_STEPS
    max_commands_per_step: int = 10  # a model that never says done cannot loop for ever under --yes
    command_timeout_s: float = 0.0
    output_limit: int = 1024
    mask: Callable[[str], str] = lambda text: text
    privacy_mode: bool = False  # store commands only: no output, no environment, no step context
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))  # the user's, scrubbed of keys
    shell: str | None = None
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)  # [workflow] sandbox*, $PARSEC_BWRAP
    # (command, cwd) -> whether it may join the history ([privacy] exclude_commands / exclude_dirs)
    keep_in_history: Callable[[str, str], bool] = lambda command, cwd: True


class WorkflowUI(Protocol):
    """What the runner asks of its user interface (workflow/run/ui.py: TerminalUI, UnattendedUI)."""

    interactive: bool

    def say(self, text: str, style: str | None = None) -> None: ...
    def status(self, conversation: Conversation, provider_label: str) -> None: ...
    def show_plan(self, conversation: Conversation) -> None: ...
    def plan_step(self, number: int, description: str) -> None: ...
    def show_candidate(self, candidate: CommandCandidate, verdict: RiskVerdict, alternatives: int = 0) -> None: ...
    def explain(self, candidate: CommandCandidate, verdict: RiskVerdict) -> None: ...
    def stream_text(self, deltas: Iterable[str]) -> None: ...
    def waiting(self, label: str) -> AbstractContextManager[object]: ...
    def ask(self, prompt: str) -> str: ...
    def edit(self, text: str, prompt: str = "edit> ") -> str: ...
    def command_streams(self) -> tuple[Any, int | None]: ...


class RunnerStore(ConversationStore, AchievementStore, Protocol):
    """What the runner asks of the store: store.sql_store.SqlStore, or quickstart.DeferredStore
    while `parsec ask` starts (which may also offer `claim_opening`, see runner._warm_up)."""

    def append_executions(self, executions: Iterable[DirectCommandExecution]) -> int: ...


class RunnerProvider(Protocol):
    """What the runner asks of the model (providers.base.Provider: every wire format)."""

    model: str

    def chat(
        self, messages: Sequence[ChatMessage], *, purpose: str = ..., max_tokens: int | None = ...
    ) -> ChatResult: ...
    def stream(
        self, messages: Sequence[ChatMessage], *, purpose: str = ..., max_tokens: int | None = ...
    ) -> Iterator[str]: ...
    def structured(
        self,
        messages: Sequence[ChatMessage],
        output_model: type[Reply],
        *,
        purpose: str = ...,
        max_tokens: int | None = ...,
        check: Callable[[Any], str] | None = ...,
        notice: Callable[[str], None] | None = ...,
        on_text: Callable[[str], None] | None = ...,
    ) -> tuple[Reply, ChatResult]: ...
    def reply_format_text(self, output_model: type[BaseModel]) -> str: ...
    def on_next_request(self, callback: Callable[[], None]) -> None: ...


class RunnerContext(Protocol):
    """What the runner asks of the context builder (context.engine.ContextEngine)."""

    counter: TokenCounter
    warnings: list[str]

    def planning_messages(
        self, conversation: Conversation, session: Session | None, adds: Sequence[str] = ()
    ) -> list[ChatMessage]: ...
    def step_messages(
        self,
        conversation: Conversation,
        step_index: int,
        environment: dict[str, Any] | None = None,
        adds: Sequence[str] = (),
        dynamic: str | None = None,
    ) -> tuple[list[ChatMessage], Any, Any]: ...
    def fit_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]: ...


class RunnerParts:
    conversation: Conversation
    options: RunOptions
    ui: WorkflowUI
    provider: RunnerProvider
    context: RunnerContext
    store: RunnerStore
    executed_commands: list[str]
    _pending_command: str
    _step_messages: list[Any]
    _notice: Callable[[str], None]  # a reply sent back: the user told why in one line
    shell: PersistentShell | None
    _shell_launch: Any = None  # Future of (shell, no-sandbox reason): started during planning

    if TYPE_CHECKING:

        def save(self) -> None: ...
        def _warn_once(self, warning: str) -> None: ...

        def _shell(self) -> PersistentShell: ...
        def _open_shell(self) -> PersistentShell: ...
