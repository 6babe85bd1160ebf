"""How a workflow talks to the user: the status line, the plan, candidates and the questions.

`TerminalUI` asks on the terminal (rich colours when it is one, plain text otherwise);
`UnattendedUI` answers every question the way `--yes` promises (see gate.auto_decision).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from ...models.workflow import Conversation
from ..planning.schemas import CommandCandidate
from ..risk import RiskVerdict

if TYPE_CHECKING:
    from rich.console import Console

_LEVEL_STYLE = {"low": "green", "medium": "yellow", "high": "bold red"}


def status_line(conversation: Conversation, provider_label: str) -> str:
    total = len(conversation.steps)
    index = conversation.current_step_index()
    if index is None:
        position, state, upcoming = total, conversation.status.value, "—"
    else:
        position, state = index + 1, conversation.steps[index].status.value
        upcoming = conversation.steps[index].step.description
    return f"[{conversation.name}] Step {position}/{total} ({state}) | {provider_label} | Next: {upcoming}"


class TerminalUI:
    interactive = True

    def __init__(self, out: TextIO | None = None, input_stream: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.input = input_stream or sys.stdin
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        # rich is imported on first use, after the first model request has gone out.
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.out, highlight=False, soft_wrap=True)
        return self._console

    # --- output ----------------------------------------------------------------------------
    def say(self, text: str, style: str | None = None) -> None:
        if style is None and self._console is None:
            self.out.write(text + "\n")
            self.out.flush()
            return
        self._print(text, style)

    def _print(self, text: str, style: str | None = None) -> None:
        """A line: through rich on a terminal (its colours); elsewhere (--json, a pipe, a log)
        plain, without importing rich (~60 ms of CPU after the plan's reply; issue 26, item 5)."""
        if self._console is None and not _is_tty(self.out):
            self.out.write(text + "\n")
            self.out.flush()
            return
        self.console.print(text, style=style, markup=False)

    def status(self, conversation: Conversation, provider_label: str) -> None:
        self._print(status_line(conversation, provider_label), style="bold cyan")

    def show_plan(self, conversation: Conversation) -> None:
        assert conversation.workflow is not None
        self._print(f"Plan for {conversation.name} (revision {conversation.workflow.revision}):", style="bold")
        for i, step in enumerate(conversation.workflow.steps):
            self._print(f"  {i + 1}. {step.description}")

    def plan_step(self, number: int, description: str) -> None:
        """A step of the plan as it streams in, shown at once (over the spinner's line, which is
        redrawn below it)."""
        clear = "\r\x1b[2K" if _is_tty(self.out) else ""
        self.out.write(f"{clear}  {number}. {description}\n")
        self.out.flush()

    def show_candidate(self, candidate: CommandCandidate, verdict: RiskVerdict, alternatives: int = 0) -> None:
        label = f"  ({alternatives} more: [a])" if alternatives else ""
        self._print(f"$ {candidate.command}", style="bold")
        if candidate.explanation:
            self._print(f"  {candidate.explanation}", style="dim")
        reasons = f": {'; '.join(verdict.reasons)}" if verdict.reasons else ""
        self._print(f"  risk: {verdict.level}{reasons}{label}", style=_LEVEL_STYLE[verdict.level])

    def explain(self, candidate: CommandCandidate, verdict: RiskVerdict) -> None:
        self.say(f"What it does: {candidate.explanation or '(no explanation given)'}")
        for reason in verdict.reasons or ["read-only or only changes the shell's own state"]:
            self.say(f"  risk ({verdict.level}): {reason}", style=_LEVEL_STYLE[verdict.level])

    def stream_text(self, deltas: Iterable[str]) -> None:
        """Text from the model, written as it arrives."""
        wrote = False
        for delta in deltas:
            self.out.write(delta)
            self.out.flush()
            wrote = True
        if wrote:
            self.out.write("\n")
            self.out.flush()

    def waiting(self, label: str) -> AbstractContextManager[object]:
        """While the model works: a spinner with the elapsed time on a terminal, nothing otherwise."""
        return Spinner(self.out, label)

    # --- questions -------------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        """One line from the user; end of input counts as `q` (abort)."""
        self.out.write(prompt)
        self.out.flush()
        line = self.input.readline()
        if not line:
            return "q"
        return line.rstrip("\n")

    def edit(self, text: str, prompt: str = "edit> ") -> str:
        """The user's edit of `text`, pre-filled with readline where it is available. The prompt
        and the line being edited go where every question goes (`self.out`, the terminal or
        stderr), never into a redirected stdout (`parsec ask --json > out.json`)."""
        try:
            import readline
        except ImportError:
            return self.ask(f"{prompt}(was: {text})\n{prompt}") or text
        if self.input is not sys.stdin:
            return self.ask(f"{prompt}") or text
        if not _can_prompt_on(self.out):  # stderr is not a terminal: no pre-filled line
            return self.ask(f"{prompt}(was: {text})\n{prompt}") or text
        readline.set_startup_hook(lambda: readline.insert_text(text))
        try:
            with _stdout_on(self.out):
                return input(prompt)
        except EOFError:
            return text
        finally:
            readline.set_startup_hook(None)

    def command_streams(self) -> tuple[Any, int | None]:
        """Where command output goes (bytes) and where keystrokes come from."""
        out = getattr(self.out, "buffer", None) or sys.stdout.buffer
        try:
            fd = self.input.fileno()
        except (AttributeError, ValueError, OSError):
            fd = None
        return out, fd


def _can_prompt_on(out: TextIO) -> bool:
    """Whether readline can edit on `out`: it is stdout, or a terminal stdout can be pointed at."""
    if out is sys.stdout:
        return True
    try:
        return os.isatty(out.fileno())
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def _stdout_on(out: TextIO) -> Iterator[None]:
    """readline (through input()) writes its prompt and the line to file descriptor 1: point that
    at `out`'s terminal for the moment, and back."""
    if out is sys.stdout:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(out.fileno(), 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


class UnattendedUI(TerminalUI):
    """`--yes`: no questions; output to stderr so stdout holds only the JSON result."""

    interactive = False

    def __init__(self, out: TextIO | None = None) -> None:
        super().__init__(out=out or sys.stderr)

    def ask(self, prompt: str) -> str:
        return "q"

    def command_streams(self) -> tuple[Any, int | None]:
        return getattr(self.out, "buffer", None), None


def _is_tty(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


class Spinner:
    """`with Spinner(out, "Planning"):` draws `⠋ Planning… 2.4s` on one line, redrawn 10 times a
    second by a thread, and erases it at the end. Nothing at all when `out` is not a terminal."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

    def __init__(self, out: TextIO, label: str) -> None:
        import threading

        self.out, self.label = out, label
        self._stop = threading.Event()
        self._thread: Any = None
        try:
            self._tty = out.isatty()
        except (AttributeError, ValueError):
            self._tty = False

    def __enter__(self) -> Spinner:
        if self._tty:
            import threading

            self._thread = threading.Thread(target=self._draw, name="parsec-spinner", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=1.0)
            self.out.write("\r\x1b[2K")
            self.out.flush()

    def _draw(self) -> None:
        import time

        started, frame = time.monotonic(), 0
        while not self._stop.wait(0.1):
            elapsed = time.monotonic() - started
            self.out.write(f"\r{self.FRAMES[frame % len(self.FRAMES)]} {self.label}… {elapsed:.1f}s")
            self.out.flush()
            frame += 1
