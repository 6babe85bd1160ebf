"""Questions, not only tasks: `why did that fail`, `what does this error mean` get a short answer
in prose, from the session's recent commands and the last one's output — one model call, no
plan, no gate, nothing run. At a terminal the user may ask a follow-up or turn the question into
a workflow.

Which lines are questions (`is_question`, the one rule; docs/workflow.md):
- a polite request is a task whatever its shape: `can you / could you / would you / will you /
  please / help me / i want / i need …` (`can you list the biggest files?` is done, not answered);
- a line that starts with a question word (why, what, which, who, whose, where, when, how) or with
  `explain` / `describe` / `tell me` is a question (`what is using port 8080`, `how do I undo a
  commit`);
- a line that starts with an auxiliary verb (is, are, was, were, does, did, has, have, had,
  should, …) is a question (`is the server up`, `does this repo use poetry`); `do` only with a
  person after it (`do I need sudo`), since `do the backup` is a task;
- any other line is a question only when it ends with `?` (`port 8080 in use?`); the rest —
  imperatives, `show me why it failed`, `list what is using port 8080` — are tasks.
`parsec ask --task` and `--question` decide it by hand.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ...config import Settings
    from ...models.chat import ChatMessage
    from ...models.session import DirectCommandExecution
    from ...providers.provider import Provider, UsageEvent
    from ...store.protocols import HistoryStore, UsageStore

QUESTION_WORDS = frozenset("why what what's whats which who whom whose where when how how's explain describe".split())
AUXILIARIES = frozenset(
    "is isn't are aren't was wasn't were weren't am does doesn't did didn't has hasn't have haven't had "
    "should shall will won't would can can't could may might must".split()
)
PEOPLE = frozenset("i we you they he she".split())  # `do I need sudo` asks; `do the backup` is a task
REQUESTS = (
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "please",
    "pls",
    "help me",
    "i want",
    "i need",
    "i'd like",
    "let's",
    "lets",
)

INSTRUCTIONS = (
    "Answer the user's question in plain prose, in a few short sentences, from the question context (the "
    "recent commands, the last command and its output) and what you know. Name a command in "
    "backticks when one would help; nothing is run. If you need to know more, end with one short "
    "follow-up question. No JSON, no headings."
)
ANSWER_MAX_TOKENS = 600
HISTORY_READ = 20  # the session's newest commands read for a question


def is_question(text: str) -> bool:
    """Whether a prose line asks something (answered in prose) rather than asks for something to
    be done (a workflow). The rule is in the module docstring."""
    line = " ".join(text.lower().split())
    words = [word.strip(",:;.!") for word in line.split()]
    if not words:
        return False
    if line.startswith(REQUESTS):
        return False
    first, second = words[0], (words[1] if len(words) > 1 else "")
    if first in QUESTION_WORDS or (first == "tell" and second == "me"):
        return True
    if first in AUXILIARIES and second:
        return True
    if first == "do" and second in PEOPLE:
        return True
    return line.rstrip().endswith("?")


def wants_answer(prompt: str, *, task: bool = False, question: bool = False) -> bool:
    """`parsec ask`'s choice: `--task` and `--question` decide; otherwise `is_question`."""
    if task or question:
        return question and not task
    return is_question(prompt)


def answer_question(
    settings: Settings,
    question: str,
    *,
    json_output: bool | str = False,
    interactive: bool | None = None,
    provider_name: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    out: TextIO | None = None,
    ask: Callable[[str], str] | None = None,
) -> tuple[int, str | None]:
    """Answer `question` (and, at a terminal, its follow-ups). Returns (exit code, a request to
    run as a workflow when the user chose to turn the question into one, else None)."""
    from ...context.engine import ContextEngine
    from ...providers.select import resolve_provider
    from .start import warm_up

    env = dict(os.environ if env is None else env)
    cwd = cwd or os.getcwd()
    out = out or sys.stdout
    if interactive is None:
        interactive = not json_output and sys.stdin.isatty()
    ask = ask or (lambda prompt: input(prompt))
    store, counter = warm_up(settings)
    try:
        provider = resolve_provider(
            settings, provider=provider_name, model=model, env=env, on_usage=lambda event: _record(store, event)
        )
        engine = ContextEngine(settings, store, provider.limits, counter=counter)
        history = _history(store, env)
        shell = os.path.basename(env.get("SHELL", "")) or "sh"
        earlier: list[tuple[str, str]] = []
        while True:
            request = engine.question_messages(question, cwd, shell, history, earlier, instructions=INSTRUCTIONS)
            claim = getattr(store, "claim_opening", None)
            if claim is not None:  # the store's held writes go out while the model answers
                provider.on_next_request(claim())
            answer = _answer(provider, request, out, stream=not json_output)
            earlier.append((question, answer))
            if not interactive:
                if not json_output:
                    sys.stderr.write(f"(to have it done instead: parsec ask --task {_quoted(question)})\n")
                break
            reply = ask("\nFollow-up (Enter: done, w: turn it into a workflow) > ").strip()
            if not reply:
                break
            if reply.lower() == "w":
                return 0, question
            question = reply
    finally:
        store.close()
    if json_output:
        import json

        document = {"kind": "answer", "question": earlier[-1][0], "answer": earlier[-1][1]}
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        out.flush()
    return 0, None


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _answer(provider: Provider, request: list[ChatMessage], out: TextIO, *, stream: bool) -> str:
    """The model's answer, streamed to `out` as it arrives (or returned whole, for --json)."""
    if not stream:
        return provider.chat(request, purpose="question", max_tokens=ANSWER_MAX_TOKENS).text.strip()
    parts: list[str] = []
    for delta in provider.stream(request, purpose="question", max_tokens=ANSWER_MAX_TOKENS):
        if not parts:
            delta = delta.lstrip()
        parts.append(delta)
        out.write(delta)
        out.flush()
    out.write("\n")
    out.flush()
    return "".join(parts).strip()


def _history(store: HistoryStore, env: Mapping[str, str]) -> list[DirectCommandExecution]:
    """The calling shell's newest commands (newest first); without a session, the newest of all."""
    from ...errors import StoreError
    from ...store.protocols import ExecutionQuery
    from .start import calling_session_id

    session_id = calling_session_id(env)
    try:
        return store.query_executions(ExecutionQuery(session_id=session_id, limit=HISTORY_READ))
    except StoreError:
        return []


def _record(store: UsageStore, event: UsageEvent) -> None:
    try:
        store.record_llm_usage(event.provider, event.model, event.purpose, event.input_tokens, event.output_tokens)
    except Exception:  # accounting never costs the user the answer
        import logging

        logging.getLogger(__name__).warning("could not record the model's token usage", exc_info=True)
