import pytest

from parsec.errors import InvalidTransition
from parsec.models.session import Session
from parsec.models.workflow import (
    Conversation,
    ConversationStatus,
    StepStatus,
    WorkflowPlan,
    WorkflowStep,
    WorkflowStepState,
)


def conversation() -> Conversation:
    return Conversation(session_id=Session().id, name="demo", original_prompt="do things")


def test_conversation_happy_path():
    conv = conversation()
    for status in ("ready", "in_progress", "finished"):
        conv.transition(status)
    assert conv.status is ConversationStatus.finished
    assert conv.finished_at is not None


@pytest.mark.parametrize("start", ["planning", "ready", "in_progress"])
@pytest.mark.parametrize("end", ["aborted", "error"])
def test_any_open_conversation_can_be_aborted_or_fail(start, end):
    conv = conversation()
    path = ["planning", "ready", "in_progress"]
    for status in path[1 : path.index(start) + 1]:
        conv.transition(status)
    conv.transition(end)
    assert conv.status == end


@pytest.mark.parametrize(
    "moves",
    [["in_progress"], ["finished"], ["ready", "finished"], ["ready", "in_progress", "finished", "aborted"]],
)
def test_illegal_conversation_moves_raise_a_clear_error(moves):
    conv = conversation()
    with pytest.raises(InvalidTransition, match="cannot go from"):
        for status in moves:
            conv.transition(status)


def test_replan_goes_back_from_ready_to_planning():
    conv = conversation()
    conv.transition("ready")
    conv.transition("planning")
    assert conv.status is ConversationStatus.planning


def step() -> WorkflowStepState:
    return WorkflowStepState(step=WorkflowStep(index=0, description="list files"))


def test_step_retry_cycle_and_several_commands():
    state = step()
    for status in [
        "command_suggested",
        "running",
        "failed",
        "command_suggested",
        "running",
        "command_suggested",
        "running",
        "complete",
    ]:
        state.transition(status)
    assert state.status is StepStatus.complete
    assert state.started_at and state.finished_at


@pytest.mark.parametrize("moves", [["running"], ["failed"], ["command_suggested", "pending"]])
def test_illegal_step_moves(moves):
    state = step()
    with pytest.raises(InvalidTransition):
        for status in moves:
            state.transition(status)


def test_the_model_may_judge_a_step_done_after_a_declined_or_failed_command():
    declined = step()
    declined.transition("command_suggested")
    declined.transition("complete")  # after the user declined its suggestion, with the user's agreement
    failed = step()
    for status in ["command_suggested", "running", "failed", "complete"]:
        failed.transition(status)
    assert declined.is_terminal and failed.is_terminal


@pytest.mark.parametrize("end", ["skipped", "aborted"])
def test_the_user_may_skip_or_abort_any_open_step(end):
    state = step()
    state.transition("command_suggested")
    state.transition(end, by_user=True)
    assert state.is_terminal
    with pytest.raises(InvalidTransition):
        state.transition("command_suggested")


def test_skip_is_not_allowed_without_the_user():
    state = step()
    with pytest.raises(InvalidTransition):
        state.transition("skipped")


def test_plan_has_one_to_twelve_steps():
    with pytest.raises(ValueError):
        WorkflowPlan(steps=[])
    with pytest.raises(ValueError):
        WorkflowPlan.from_descriptions([f"step {i}" for i in range(13)])
    plan = WorkflowPlan.from_descriptions(["a", "b"])
    conv = conversation()
    conv.set_plan(plan)
    assert [s.step.index for s in conv.steps] == [0, 1]
    assert conv.current_step_index() == 0
