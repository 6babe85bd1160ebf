"""oldest_first and middle_out never split a tool call from its results; compaction marks its summary."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from parsec.context.compaction import SUMMARY_MARKER, compact, is_summary
from parsec.context.engine import ContextEngine
from parsec.context.tokens import get_token_counter
from parsec.context.truncation import message_groups, tool_result_message, truncate
from parsec.models.chat import ChatMessage
from parsec.providers.provider import ModelLimits

from .ctx_helpers import settings

COUNTER = get_token_counter()

# A conversation is a list of turns: ("user", n words) | ("assistant", n words) | ("call", n words, results)
turn = st.one_of(
    st.tuples(st.just("user"), st.integers(1, 300)),
    st.tuples(st.just("assistant"), st.integers(1, 300)),
    st.tuples(st.just("call"), st.integers(1, 60), st.lists(st.integers(1, 400), min_size=1, max_size=3)),
)


def build(turns) -> tuple[list[ChatMessage], dict[int, int]]:
    """Messages, and for every tool-result message the id of the call it belongs to."""
    messages = [ChatMessage(role="system", content="You are Parsec.")]
    owner: dict[int, int] = {}
    for number, spec in enumerate(turns):
        if spec[0] == "call":
            messages.append(ChatMessage(role="assistant", content=f"call {number}: run ls " + "x " * spec[1]))
            for size in spec[2]:
                result = tool_result_message(f"ls {number}", 0, "file " * size)
                messages.append(result)
                owner[id(result)] = number
        else:
            messages.append(ChatMessage(role=spec[0], content=f"turn {number} " + "word " * spec[1]))
    return messages, owner


def assert_groups_intact(original: list[ChatMessage], kept: list[ChatMessage]) -> None:
    kept_ids = {id(m) for m in kept}
    for group in message_groups(original[1:]):
        present = [id(m) in kept_ids for m in group]
        assert all(present) or not any(present), "a tool call was split from its results"


@hsettings(max_examples=60, deadline=None)
@given(
    turns=st.lists(turn, min_size=1, max_size=25),
    budget=st.integers(50, 6000),
    strategy=st.sampled_from(["oldest_first", "middle_out"]),
)
def test_truncation_never_splits_a_tool_call_group(turns, budget, strategy):
    messages, _ = build(turns)
    kept = truncate(messages, budget, COUNTER, strategy)
    assert kept[0] is messages[0], "the system message is always kept"
    assert_groups_intact(messages, kept)
    # Order is preserved and the newest group is always there.
    positions = [next(i for i, m in enumerate(messages) if m is k) for k in kept]
    assert positions == sorted(positions)
    newest = message_groups(messages[1:])[-1]
    assert all(any(m is k for k in kept) for m in newest)
    groups_kept = [g for g in message_groups(kept[1:])]
    if len(groups_kept) > 1:
        assert COUNTER.count_messages(kept) <= budget


def test_oldest_first_drops_the_oldest_and_middle_out_keeps_the_first():
    messages, _ = build([("user", 200), ("call", 10, [200]), ("user", 200), ("assistant", 200), ("user", 5)])
    budget = COUNTER.count_messages(messages) - 150
    oldest = truncate(messages, budget, COUNTER, "oldest_first")
    middle = truncate(messages, budget, COUNTER, "middle_out")
    assert messages[1] not in oldest and messages[-1] in oldest
    assert messages[1] in middle and messages[-1] in middle


def test_compaction_summarises_the_older_part_into_one_marked_message():
    messages, _ = build([("user", 300), ("call", 20, [300, 300]), ("assistant", 300), ("user", 300), ("user", 20)])
    seen: list[list[ChatMessage]] = []

    def summarize(older: list[ChatMessage]) -> str:
        seen.append(older)
        return "We listed files and exported DB_PASSWORD=hunter2hunter2"

    budget = COUNTER.count_messages(messages)
    result = compact(messages, COUNTER, budget, 0.5, summarize)
    assert result is not None and result.new_tokens < result.original_tokens
    assert result.messages[0] is messages[0]
    summaries = [m for m in result.messages if is_summary(m)]
    assert len(summaries) == 1 and summaries[0].content.startswith(SUMMARY_MARKER)
    assert "hunter2hunter2" not in summaries[0].content, "a secret in the summary is masked"
    assert messages[-1] in result.messages
    assert_groups_intact(messages, [m for m in result.messages if not is_summary(m)] + seen[0])
    # Under the threshold nothing happens.
    assert compact(messages, COUNTER, budget * 4, 0.8, summarize) is None


def test_fit_messages_falls_back_to_truncation_when_the_summary_fails():
    messages, _ = build([("user", 800), ("assistant", 800), ("user", 800), ("user", 10)])

    def broken(_older):
        raise RuntimeError("provider down")

    engine = ContextEngine(settings(), None, ModelLimits(context_window=1200, max_output_tokens=200), broken)
    fitted = engine.fit_messages(messages)
    assert COUNTER.count_messages(fitted) <= engine.budget
    assert fitted[0] is messages[0] and fitted[-1] is messages[-1]
    assert any("compaction failed" in w for w in engine.warnings)


def test_fit_messages_compacts_with_the_wired_summariser():
    messages, _ = build([("user", 500), ("assistant", 500), ("user", 500), ("user", 10)])
    engine = ContextEngine(
        settings(),
        None,
        ModelLimits(context_window=1500, max_output_tokens=200),
        lambda older: f"{len(older)} messages",
    )
    fitted = engine.fit_messages(messages)
    assert sum(is_summary(m) for m in fitted) == 1
    assert COUNTER.count_messages(fitted) <= engine.budget


def test_unknown_strategy_is_refused():
    messages, _ = build([("user", 500), ("user", 500)])
    with pytest.raises(ValueError):
        truncate(messages, 100, COUNTER, "newest_first")  # type: ignore[arg-type]
