"""Wiring for `parsec ask` / `parsec resume`: store, session, provider, context engine, runner.

Everything heavy is imported inside the functions: `parsec ask` must reach its first model
request within 200 ms of starting.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...errors import NotFound
from ...models.workflow import Conversation
from .conversation_lookup import ULID_SHAPE

if TYPE_CHECKING:
    from ...config import Settings
    from ...context.compaction import Summarize
    from ...context.tokens import LazyCounter, TokenCounter
    from ...models.session import Session
    from ...providers.provider import Provider, UsageEvent
    from ...store.protocols import ContextStore, HistoryStore
    from .quickstart import DeferredStore
    from .runner import WorkflowRunner
    from .runner_parts import WorkflowUI

log = logging.getLogger(__name__)


def warm_up(settings: Settings) -> tuple[DeferredStore, LazyCounter]:
    """(store, counter) for `parsec ask`: neither SQLAlchemy nor tiktoken is loaded before the
    planning request goes out (see quickstart.py). `store.result()` is the open store."""
    from ...context.tokens import LazyCounter
    from ...store import default_url, open_store_from
    from .quickstart import DeferredStore

    store = DeferredStore(
        lambda: open_store_from(settings),
        settings.store_url() or default_url(),
        busy_timeout_ms=settings.store.busy_timeout_ms,
    )
    return store, LazyCounter()


def current_session(store: HistoryStore, env: Mapping[str, str], cwd: str) -> Session:
    """The shell's session (PARSEC_SESSION, set by the hooks) or a new one for this command."""
    from ...models.session import GlobalContext, Session

    session_id = calling_session_id(env)
    if session_id:
        try:
            return store.load_session(session_id, history_limit=200)
        except NotFound:  # the daemon has not flushed it yet: the same id, so both writes meet
            pass
    session = Session(
        shell=os.path.basename(env.get("SHELL", "")),
        pid=os.getppid(),
        user=env.get("USER", ""),
        global_context=GlobalContext(working_directory=cwd),
    )
    if session_id:
        session.id = session_id
    store.save_session(session)
    return session


def calling_session_id(env: Mapping[str, str]) -> str | None:
    """The id of the session of the shell that called Parsec, if it has one."""
    session_id = shell_session_id(env) or env.get("PARSEC_SESSION", "").upper()
    return session_id if ULID_SHAPE.match(session_id) else None


def shell_session_id(env: Mapping[str, str]) -> str | None:
    """The calling shell's session id: derived from the hook's key (PARSEC_SESSION) as the daemon
    derives it, so it holds with the daemon down; without a key, asked of the daemon (by our
    parent pid), which fails fast when there is none and the caller makes a session."""
    if env.get("PARSEC_DISABLE"):
        return None
    from ...protocol.current_session import session_for_key

    return session_for_key(env.get("PARSEC_SESSION", "").strip(), timeout=0.5)


def build_runner(
    settings: Settings,
    conversation: Conversation | None,
    *,
    prompt: str | None,
    store: ContextStore,
    ui: WorkflowUI,
    auto_yes: bool,
    auto_level: str = "medium",
    provider_name: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    counter: TokenCounter | None = None,
) -> WorkflowRunner:
    """A WorkflowRunner for a new conversation (`prompt`) or an existing one (`conversation`)."""
    from ...context.engine import ContextEngine
    from ...privacy.memory import SessionMasker
    from ...privacy.scrub import scrubbed_environment
    from ...providers.select import resolve_provider
    from ..execution.sandbox import SandboxSettings
    from .naming import name_from_prompt
    from .runner import WorkflowRunner
    from .runner_parts import RunOptions

    env = dict(os.environ if env is None else env)
    cwd = cwd or os.getcwd()
    holder: dict[str, str | None] = {"conversation_id": None}

    def record_usage(event: UsageEvent) -> None:
        try:
            store.record_llm_usage(
                event.provider,
                event.model,
                event.purpose,
                event.input_tokens,
                event.output_tokens,
                conversation_id=holder["conversation_id"],
            )
        except Exception as err:  # accounting must never stop a workflow, but is not dropped unseen
            log.warning("could not record the model's token usage: %s", err)

    provider = resolve_provider(
        settings,
        provider=provider_name or (conversation.provider if conversation else None) or None,
        model=model or (conversation.model if conversation else None) or None,
        env=env,
        on_usage=record_usage,
    )
    # One masker for the whole run: it remembers each secret it masks and the values of
    # secret-named variables the workflow sees, and the provider's gate masks those values too.
    masker = SessionMasker(settings.privacy.mask_secrets, tuple(settings.privacy.extra_patterns))
    masker.remember_environment(env)
    provider.use_secret_values(masker.values)
    session = None
    if conversation is None:
        session = current_session(store, env, cwd)
        # The prompt is stored, named after and sent to the model: a secret typed into it is
        # masked before any of that happens.
        masked_prompt = masker(prompt or "")
        conversation = Conversation(
            session_id=session.id,
            name=name_from_prompt(masked_prompt),
            original_prompt=masked_prompt,
            working_directory=cwd,
            provider=provider.name,
            model=provider.model,
        )
    holder["conversation_id"] = conversation.id
    engine = ContextEngine(settings, store, provider.limits, summarize=_summarizer(provider), counter=counter)
    shell_env = scrubbed_environment(env, secrets=[provider.api_key] if provider.api_key else [])
    if auto_yes:  # nobody to page through output: pagers would wait forever for a key
        shell_env.update(PAGER="cat", GIT_PAGER="cat", MANPAGER="cat", SYSTEMD_PAGER="")
    from ...privacy.filters import PrivacyFilter

    options = RunOptions(
        auto_yes=auto_yes,
        auto_level=auto_level,
        max_retries=settings.workflow.max_retries,
        max_plan_steps=settings.workflow.max_plan_steps,
        max_commands_per_step=settings.workflow.max_commands_per_step,
        command_timeout_s=settings.workflow.command_timeout_s
        or (settings.workflow.unattended_timeout_s if auto_yes else 0),
        output_limit=settings.context_pruning.max_command_output_length,
        mask=masker,
        env=shell_env,
        privacy_mode=settings.context_management.privacy_mode,
        sandbox=SandboxSettings.from_config(settings.workflow, env),
        keep_in_history=PrivacyFilter(settings.privacy).should_record,
    )
    from ..execution.persistent_shell import pick_shell

    shell = pick_shell(shell_env)
    engine.ensure_system_prompt(conversation, os.path.basename(shell))
    options.shell = shell
    store.save_conversation(conversation)
    return WorkflowRunner(
        conversation, store=store, provider=provider, context=engine, ui=ui, options=options, session=session
    )


def _summarizer(provider: Provider) -> Summarize:
    from ...models.chat import ChatMessage

    def summarize(messages: list[ChatMessage]) -> str:
        ask = ChatMessage(
            role="user",
            content="Summarise the conversation above in a few lines: what was done, what failed, what matters next.",
        )
        return provider.chat([*messages, ask], purpose="compaction").text

    return summarize
