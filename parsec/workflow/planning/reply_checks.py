"""What a reply that fits its schema must also mean: a plan of sentences, commands that exist, a
step reply that gives a command or says the step is done. Each check returns "" when the reply
makes sense, else the reason sent back to the model (and told the user in one line)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

from .schemas import PlanReply, StepReply

if TYPE_CHECKING:
    from ...routing.shell_facts import PathIndex

# Replies that fit the schema but mean nothing, as small local models give them: a plan step that
# is an identifier ("code", "list_files") or a command that is a made-up name ("count_lines").
_BARE_WORD = re.compile(r"^[\w.-]+$")
# One word that reads as a name, not an imperative: lower case, or with _ . ( as code has them.
# ("Deploy" or "Reset" alone is a terse but real step.)
_IDENTIFIER = re.compile(r"^(?:[a-z][\w.-]*|\w*[_.]\w*|\w+\(\))$")


def plan_problem(reply: PlanReply) -> str:
    """Why a plan makes no sense ("" when it does): no step may be an identifier."""
    words = [step for step in reply.steps if _IDENTIFIER.match(step)]
    if words:
        return f"steps must be sentences saying what to achieve, not bare words like {words[0]!r}"
    return ""


def step_problem(reply: StepReply, is_command: Callable[[str], bool]) -> str:
    """Why a step reply makes no sense ("" when it does): it gives no command and does not say the
    step is done, or a command's first word is no command here (`is_command` decides)."""
    if not reply.done and not reply.candidates:
        return "it gives no command and does not say the step is done"
    for candidate in reply.candidates:
        word = first_word(candidate.command)
        if word and not is_command(word):
            return f"`{word}` is not a command on this system: give a real shell command line"
    return ""


# A step said to be done when no command of the conversation has run: only the model's word.
# It is sent back once with this reason (and the user told why); said again, the step is
# not achieved under --yes (executor.py), and up to the user otherwise.
DONE_WITH_NOTHING_RUN = "it says the step is done, but no command has run in this conversation to show it"
ASK_AGAIN_NOTHING_RUN = (
    "You said this step is done, but no command has run in this conversation, so nothing shows "
    "it: give a command that carries it out, or one that checks it is already done."
)
# Under --yes, a step said to be done when commands ran for earlier steps but none for it: sent back
# once too (nobody is there to disagree), then taken at the model's word. A small model says a
# rename is done after an `ls`, and the next step deletes the files.
DONE_WITH_NOTHING_RUN_HERE = "it says the step is done, but no command has run for this step"
ASK_AGAIN_NOTHING_RUN_HERE = (
    "You said this step is done, but no command has run for it: give a command that carries it "
    "out, or one that checks it is already done."
)


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def first_word(command: str) -> str:
    """The program a command line starts with (after VAR=value assignments), or "" when that is
    not a plain word (a path, a quote the lexer cannot close, a subshell)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return ""
    for word in words:
        if not _ASSIGNMENT.match(word):
            return "" if "/" in word or not _BARE_WORD.match(word) else word
    return ""


class CommandFacts:
    """What this system's shell makes of a word or a line, PATH listed on first use: whether a
    word names a command (a keyword, a builtin, or a program on `path`), and whether a line is a
    command line rather than a sentence, decided by the router that sorts the user's own lines."""

    def __init__(self, path: str, shell: str | None) -> None:
        self.path = path
        self.shell = os.path.basename(shell or "bash")
        self._index: PathIndex | None = None

    def index(self) -> PathIndex:
        from ...routing.shell_facts import PathIndex

        if self._index is None:
            self._index = PathIndex(self.path)
        return self._index

    def is_command(self, word: str) -> bool:
        from ...routing.shell_facts import resolve

        return resolve(word, self.index(), self.shell) != "none"

    def is_command_line(self, text: str) -> bool:
        """Whether the router would hand `text` to the shell as a command (not ask about it)."""
        from ...routing.classifier import DEFAULT_COMMAND_THRESHOLD
        from ...routing.scoring import analyse

        return analyse(text, None, None, self.index(), None, self.shell).probability < DEFAULT_COMMAND_THRESHOLD


def commands_in_plan(steps: list[str], is_command_line: Callable[[str], bool]) -> list[str]:
    """The plan steps that are command lines, not sentences (`ls -lh`, `sort -hr`, "Sort them by
    size: sort -hr"). A small model writes such plans: cut into steps, a pipeline's pieces each run alone and fail, and most start
    by going where the commands already run (`cd /tmp/x`)."""
    return [step for step in steps if is_command_line(step) or is_command_line(step.rpartition(": ")[2])]


# A step that only goes somewhere, the whole sentence: "Navigate to the working directory using
# `cd /tmp/x`", "Change directory to /tmp/x", "cd /tmp/x". The place is a phrase for where the
# commands run or a path, compared after the sentence is read ("Change the permissions of the
# working directory" is not going there).
_GOING = re.compile(
    r"(?i)^\s*(?:navigate|go|change|move|switch|cd|enter)(?:\s+(?:directory|dir|folder))?"
    r"(?:\s+(?:to|into|in))?(?P<place>(?:\s+\S+)*?)\s*(?:\s(?:using|with|by|via))?\s*[.!]?\s*$"
)
_HERE = re.compile(
    r"(?i)(?:the\s+)?(?:(?:working|current|present|project|target|same|this)\s+)?(?:directory|folder|dir)"
)
# A step for the person, not the shell: "Open the terminal."
_OPENS_A_TERMINAL = re.compile(r"(?i)^\s*(?:open|launch|start)\s+(?:a|the|your)\s+(?:terminal|shell)(?:\s+window)?\W*$")


def needs_no_command(step: str, cwd: str) -> bool:
    """Whether a plan step asks for nothing a command does: it only goes to `cwd`, where commands
    already run, or opens the terminal they run in. Most plans of a small model begin so, and
    each such step costs model calls for a `cd` that changes nothing."""
    if _OPENS_A_TERMINAL.match(step):
        return True
    quoted = [q for q in re.findall(r"`([^`]+)`", step) if q.strip() != "cd"]  # `cd` alone names the tool
    prose = re.sub(r"`[^`]*`", " ", step)
    if quoted and not prose.strip(" .") and cwd:  # "`cd /tmp/x`"
        return all(changes_nothing(command, cwd) for command in quoted)
    going = _GOING.match(prose)
    if going is None or not cwd:
        return False
    place = going.group("place").strip().rstrip(".!")
    if quoted:
        return all(changes_nothing(command, cwd) for command in quoted) and (not place or bool(_HERE.fullmatch(place)))
    return bool(_HERE.fullmatch(place)) or (bool(place) and changes_nothing(place, cwd))


def stays_put(command: str, cwd: str) -> bool:
    """Whether a candidate command is `cd` to `cwd`, where the shell already is."""
    return first_word(command) == "cd" and changes_nothing(command, cwd)


def changes_nothing(command: str, cwd: str) -> bool:
    """Whether `command` is `cd` to `cwd`, where the shell already is, or only names it (relative
    to it, ~ expanded, symlinks resolved)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words[:1] == ["cd"]:
        words = words[1:]
    if len(words) != 1 or not cwd:
        return False
    target = os.path.join(cwd, os.path.expanduser(words[0]))
    return os.path.realpath(target) == os.path.realpath(cwd)


def unusable_reply_notice(say: Callable[..., None]) -> Callable[[str], None]:
    """What tells the user, in one line, that a reply is sent back and why."""
    return lambda reason: say(f"The model's reply was unusable ({reason}): asking again.", style="yellow")
