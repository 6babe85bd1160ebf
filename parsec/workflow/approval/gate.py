"""The confirmation gate's rules: what an answer means for a command of a given risk.

Kept apart from the terminal so the rules are tested as a table: an empty answer runs only a
low-risk command, a high-risk one needs the word `yes`, and `--yes` approves low and medium risk
(`--yes=low`: low only) and never high; medium only inside the sandbox (sandbox.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in signatures: importing the gate must not load the risk checker
    from ..risk import RiskVerdict


class Choice(StrEnum):
    run = "run"
    edit = "edit"
    explain = "explain"
    alternative = "alternative"
    skip = "skip"
    abort = "abort"
    ask_again = "ask_again"  # the answer does not approve this command; ask again


class Recovery(StrEnum):
    """After a failure, a Ctrl-C or a step that will not end."""

    retry = "retry"
    skip = "skip"
    abort = "abort"


class PlanChoice(StrEnum):
    accept = "accept"
    edit = "edit"
    replan = "replan"
    abort = "abort"


class DoneChoice(StrEnum):
    """When the model says a step is done and nothing ran."""

    accept = "accept"
    run = "run"  # the user disagrees: ask the model for a command
    skip = "skip"
    abort = "abort"


@dataclass(frozen=True)
class Decision:
    choice: Choice
    message: str = ""  # shown when the answer was not enough


_WORDS = {
    "e": Choice.edit,
    "edit": Choice.edit,
    "x": Choice.explain,
    "?": Choice.explain,
    "explain": Choice.explain,
    "a": Choice.alternative,
    "alt": Choice.alternative,
    "alternative": Choice.alternative,
    "n": Choice.alternative,
    "no": Choice.alternative,
    "s": Choice.skip,
    "skip": Choice.skip,
    "q": Choice.abort,
    "abort": Choice.abort,
    "quit": Choice.abort,
}


def prompt_for(verdict: RiskVerdict) -> str:
    run = {"low": "[Enter/y] run", "medium": "[y] run", "high": "[yes] run"}[verdict.level]
    return f"{run}  [e]dit  e[x]plain  [a]lternative  [s]kip  [q] abort > "


def interpret(answer: str, verdict: RiskVerdict) -> Decision:
    word = answer.strip().lower()
    if word in _WORDS:
        return Decision(_WORDS[word])
    if word == "":
        if verdict.is_low:
            return Decision(Choice.run)
        need = "yes" if verdict.is_high else "y"
        return Decision(Choice.ask_again, f"This command is {verdict.level} risk: type {need} to run it.")
    if word in ("y", "yes"):
        if verdict.is_high and word != "yes":
            return Decision(Choice.ask_again, "This command is high risk: type the whole word yes to run it.")
        return Decision(Choice.run)
    return Decision(Choice.ask_again, f"Unknown answer {answer.strip()!r}.")


AUTO_LEVELS = ("low", "medium")  # what `--yes=LEVEL` may approve up to; high never


def auto_decision(verdict: RiskVerdict, up_to: str = "medium", *, confined: bool = True) -> Decision:
    """`--yes`: approve commands up to `up_to` risk (medium by default, `--yes=low`: low only);
    a high-risk command is never approved without a person. Where the commands run unconfined
    (no sandbox), low risk only: a risk check can be talked around, a sandbox cannot."""
    if not confined:
        up_to = "low"
    allowed = AUTO_LEVELS[: AUTO_LEVELS.index(up_to) + 1]
    if verdict.level in allowed:
        return Decision(Choice.run)
    return Decision(
        Choice.abort,
        f"declined under {auto_flag(up_to, confined)}: {verdict.level} risk ({'; '.join(verdict.reasons)})",
    )


def auto_flag(up_to: str, confined: bool) -> str:
    """How a --yes decline names what allowed so little."""
    if not confined:
        return "--yes without a sandbox (low risk only)"
    return "--yes" if up_to == "medium" else f"--yes={up_to}"


def interpret_recovery(answer: str) -> Recovery | None:
    """After a failure or Ctrl-C: retry / skip / abort (None: ask again)."""
    word = answer.strip().lower()
    return {
        "r": Recovery.retry,
        "retry": Recovery.retry,
        "": Recovery.retry,
        "s": Recovery.skip,
        "skip": Recovery.skip,
        "q": Recovery.abort,
        "a": Recovery.abort,
        "abort": Recovery.abort,
    }.get(word)


def interpret_plan(answer: str) -> PlanChoice | None:
    """At the plan: accept / edit / replan / abort (None: ask again)."""
    word = answer.strip().lower()
    return {
        "": PlanChoice.accept,
        "y": PlanChoice.accept,
        "yes": PlanChoice.accept,
        "e": PlanChoice.edit,
        "edit": PlanChoice.edit,
        "r": PlanChoice.replan,
        "replan": PlanChoice.replan,
        "q": PlanChoice.abort,
        "abort": PlanChoice.abort,
        "n": PlanChoice.abort,
    }.get(word)


def interpret_done(answer: str) -> DoneChoice | None:
    """When the model says a step is done without a command: accept / run / skip / abort."""
    word = answer.strip().lower()
    return {
        "": DoneChoice.accept,
        "y": DoneChoice.accept,
        "yes": DoneChoice.accept,
        "r": DoneChoice.run,
        "run": DoneChoice.run,
        "n": DoneChoice.run,
        "no": DoneChoice.run,
        "s": DoneChoice.skip,
        "skip": DoneChoice.skip,
        "q": DoneChoice.abort,
        "abort": DoneChoice.abort,
    }.get(word)
