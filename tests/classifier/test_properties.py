"""Any input gets a decision, never an exception: empty, whitespace, huge, control bytes, bad UTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsec.routing import Classifier, reads_like_prose
from parsec.routing.decision import LABELS
from parsec.routing.lexer import MAX_CHARS

CLASSIFIER = Classifier()
FALLBACK_REASON = "classifier error"
FACTS = st.sampled_from([None, "file", "alias", "builtin", "function", "keyword", "none", "bogus"])


def check(decision) -> None:
    # The real verdict path ran: the classifier's catch-all (which answers "command" with this
    # reason whenever something inside raises) would otherwise make every test here pass.
    assert not decision.reason.startswith(FALLBACK_REASON), decision
    assert decision.decision in LABELS
    assert 0.0 <= decision.confidence <= 1.0
    assert isinstance(decision.reason, str) and decision.reason


@settings(max_examples=300, deadline=None)
@given(st.text(), FACTS, st.sampled_from([None, True, False]))
def test_any_text(text: str, fact: str | None, parses: bool | None) -> None:
    check(CLASSIFIER.classify(text, fact, parses))
    assert reads_like_prose(text) in (True, False)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab |&;<>()$`'\"\\#{}[]*?!=-/.~\t\n\r\x00\x1b")), max_size=60))
def test_shell_punctuation_soup(text: str) -> None:
    check(CLASSIFIER.classify(text))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_invalid_utf8_bytes(raw: bytes) -> None:
    check(CLASSIFIER.classify(raw))  # type: ignore[arg-type]
    check(CLASSIFIER.classify(raw.decode("utf-8", errors="surrogateescape")))


def test_empty_and_whitespace_go_to_the_shell() -> None:
    for text in ("", " ", "\t\n", "\x00"):
        decision = CLASSIFIER.classify(text)
        check(decision)
    assert CLASSIFIER.classify("   ").decision == "command"


@pytest.mark.timeout(120)  # a hang guard (a quadratic parse of 100 KB); the figures: bench/classifier.py --long-lines
def test_100_kb_lines_are_judged() -> None:
    prose = "please summarise the following text for me " * 2400
    shell = "echo $(cat a | grep b) && ls -la /tmp; " * 2600
    for text in (prose, shell, "x" * 100_000, "'" * 100_000, "$(" * 50_000):
        decision = CLASSIFIER.classify(text)
        check(decision)
        start = CLASSIFIER.classify(text[:MAX_CHARS])  # what bounds the work: the line is judged on its start
        assert (decision.decision, decision.reason) == (start.decision, start.reason)
    assert CLASSIFIER.classify(prose).decision == "prompt"
    assert CLASSIFIER.classify(shell).decision == "command"


def test_control_characters() -> None:
    for text in ("ls\x1b[A", "\x07\x08\x7f", "git status\r", "echo \x00 hi", "\u202ecmd"):
        check(CLASSIFIER.classify(text))


def test_these_checks_fail_when_the_classifier_breaks_on_every_line(monkeypatch) -> None:
    """Issue 16: with a RuntimeError injected on every line, five of six tests here still passed."""
    import pytest

    from parsec.routing import classifier as module

    def broken(*args, **kwargs):
        raise RuntimeError("injected")

    monkeypatch.setattr(module, "analyse", broken)
    decision = Classifier().classify("ls -la")
    assert decision.reason.startswith(FALLBACK_REASON)  # the safety net still answers...
    with pytest.raises(AssertionError):
        check(decision)  # ...and the checks above notice it
