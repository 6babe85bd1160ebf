"""What a question is answered from: the session's recent commands and the last one's output.

`why did that fail`, `what does this error mean` are about what just happened in the user's
shell: the recent commands (with their exit status and directory) and the output the newest one
printed (captured under `parsec shell`), masked and cut like every other output.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..models.chat import ChatMessage
from ..models.session import DirectCommandExecution
from .assembly import datetime_line
from .items import to_json
from .pruning import ContextOverflow
from .redact import clip, masked
from .tokens import TokenCounter

RECENT_COMMANDS = 20  # the session's newest commands a question sees at most
SHORTEST_OUTPUT = 256  # bytes: the last output is cut down to this before commands are dropped


def question_document(
    question: str, cwd: str, history: list[DirectCommandExecution], max_output: int
) -> dict[str, Any]:
    """The question's context as JSON-ready data; `history` newest first."""
    recent = []
    for execution in reversed(history[:RECENT_COMMANDS]):  # oldest first: it reads as a session
        entry: dict[str, Any] = {"command": masked(execution.command), "exit_status": execution.exit_status}
        if execution.working_directory and execution.working_directory != cwd:
            entry["cwd"] = masked(execution.working_directory)
        recent.append(entry)
    document: dict[str, Any] = {"question": masked(question), "working_directory": masked(cwd)}
    if recent:
        document["recent_commands"] = recent
    if history:
        last = history[0]
        output = "\n".join(text.render() for text in (last.stdout, last.stderr) if text is not None and text.render())
        document["last_command"] = {
            "command": masked(last.command),
            "exit_status": last.exit_status,
            "output": clip(output, max_output) if output else "(not captured: it runs outside `parsec shell`)",
        }
    return document


def shrink(document: dict[str, Any]) -> bool:
    """Make the document smaller by one notch (the last output first, then the oldest command);
    False when nothing is left to cut."""
    last = document.get("last_command")
    if last is not None and len(last["output"].encode()) > SHORTEST_OUTPUT:
        last["output"] = clip(last["output"], max(SHORTEST_OUTPUT, len(last["output"].encode()) // 2))
        return True
    recent = document.get("recent_commands")
    if recent:
        recent.pop(0)
        return True
    return False


def fit_question(
    system_prompt: str,
    question: str,
    cwd: str,
    history: list[DirectCommandExecution],
    earlier: Sequence[tuple[str, str]],
    *,
    max_output: int,
    room: int,
    counter: TokenCounter,
    now: datetime,
    shrinking: bool = True,
) -> list[ChatMessage]:
    """The messages (see `ContextEngine.question_messages`), shrunk notch by notch until they fit
    in `room` tokens counted with `counter`; ContextOverflow when they cannot (or, with
    `shrinking=False`, do not as they are)."""
    questions = [asked for asked, _ in earlier] + [question]
    document = question_document(questions[0], cwd, history, max_output)
    system = ChatMessage(role="system", content=system_prompt)
    while True:
        first = f"Question context (JSON):\n{to_json(document)}\n\n{datetime_line(now)}"
        messages = [system, ChatMessage(role="user", content=first)]
        for (_, answered), asked in zip(earlier, questions[1:], strict=True):
            messages.append(ChatMessage(role="assistant", content=masked(answered)))
            messages.append(ChatMessage(role="user", content=masked(asked)))
        if counter.count_messages(messages) <= room:
            return messages
        if not shrinking or not shrink(document):
            raise ContextOverflow(
                "the question and its context do not fit the model's window; use a model with a larger one"
            )
