"""The gate's rules and the plan edits, as tables."""

from __future__ import annotations

import pytest

from parsec.workflow.approval.gate import Choice, auto_decision, interpret
from parsec.workflow.planning.planner import edit_plan
from parsec.workflow.risk import RiskVerdict


def verdict(level: str) -> RiskVerdict:
    return RiskVerdict(level=level, reasons=[] if level == "low" else ["because"])


@pytest.mark.parametrize(
    "answer,level,choice",
    [
        ("", "low", Choice.run),
        ("", "medium", Choice.ask_again),
        ("", "high", Choice.ask_again),
        ("y", "medium", Choice.run),
        ("y", "high", Choice.ask_again),
        ("yes", "high", Choice.run),
        ("YES", "high", Choice.run),
        ("e", "high", Choice.edit),
        ("x", "low", Choice.explain),
        ("a", "low", Choice.alternative),
        ("s", "medium", Choice.skip),
        ("q", "high", Choice.abort),
        ("maybe", "low", Choice.ask_again),
    ],
)
def test_interpret(answer: str, level: str, choice: Choice) -> None:
    assert interpret(answer, verdict(level)).choice == choice


@pytest.mark.parametrize("level,choice", [("low", Choice.run), ("medium", Choice.run), ("high", Choice.abort)])
def test_yes_flag_approves_low_and_medium_never_high(level: str, choice: Choice) -> None:
    assert auto_decision(verdict(level)).choice == choice


@pytest.mark.parametrize("level,choice", [("low", Choice.run), ("medium", Choice.abort), ("high", Choice.abort)])
def test_yes_low_keeps_the_strict_mode(level: str, choice: Choice) -> None:
    decision = auto_decision(verdict(level), up_to="low")
    assert decision.choice == choice
    assert choice == Choice.run or "--yes=low" in decision.message


STEPS = ["one", "two", "three"]


@pytest.mark.parametrize(
    "edit,result",
    [
        ("d 2", ["one", "three"]),
        ("m 3 1", ["three", "one", "two"]),
        ("r 1 first", ["first", "two", "three"]),
        ("a 1 one and a half", ["one", "one and a half", "two", "three"]),
        ("a four", ["one", "two", "three", "four"]),
    ],
)
def test_plan_edits(edit: str, result: list[str]) -> None:
    assert edit_plan(STEPS, edit) == result


@pytest.mark.parametrize("edit", ["d 9", "m 1", "r 2", "z 1", "a", "d x"])
def test_bad_plan_edits_say_why(edit: str) -> None:
    with pytest.raises(ValueError):
        edit_plan(STEPS, edit)


def test_last_step_cannot_be_dropped() -> None:
    with pytest.raises(ValueError):
        edit_plan(["only"], "d 1")


@pytest.mark.parametrize(
    "answer,choice",
    [("", "accept"), ("y", "accept"), ("r", "run"), ("no", "run"), ("s", "skip"), ("q", "abort"), ("maybe", None)],
)
def test_a_step_judged_done_without_a_command(answer: str, choice: str | None) -> None:
    from parsec.workflow.approval.gate import interpret_done

    assert interpret_done(answer) == choice


def test_every_gate_answer_is_a_member_of_its_own_choice_type():
    # Outcomes are enums, not strings that could meet a command's text (issue 17 item 3).
    from parsec.workflow.approval.gate import (
        DoneChoice,
        PlanChoice,
        Recovery,
        interpret_done,
        interpret_plan,
        interpret_recovery,
    )

    for read_answer, kind in (
        (interpret_recovery, Recovery),
        (interpret_plan, PlanChoice),
        (interpret_done, DoneChoice),
    ):
        answers = {
            read_answer(word) for word in ("", "y", "yes", "r", "retry", "s", "skip", "q", "a", "abort", "e", "n")
        }
        answers.discard(None)
        assert answers and all(type(answer) is kind for answer in answers), (kind, answers)
