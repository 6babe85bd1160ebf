"""The shapes that made the old patterns backtrack: masked whole, with nothing leaked.

Before RE2, 20 KB of `sshpass ssh host …` took 0.85 s and grew with the square of the length (a
160 KB line stalled the daemon 33 s); these 300 KB inputs would have taken minutes, which the
hang guard below catches. bench/masking.py prints the figures (1 MB of each shape).
"""

from __future__ import annotations

import pytest

from parsec.privacy.masking import mask

SIZE = 300_000


def _fill(unit: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


WITHHELD = "[REDACTED:masking_limit]"


@pytest.mark.timeout(60)  # a hang guard: backtracking took minutes on these
@pytest.mark.parametrize(
    ("unit", "outcome"),
    [
        ("sshpass ssh host ", "unchanged"),
        ("--password", "unchanged"),
        ("mysql -u root x ", "withheld"),  # too many candidates for the budget: withheld, not half-masked
        ("curl -u ", "withheld"),
        ("A=" * 60 + " ", "unchanged"),
        ("a-" * 50 + "password ", "unchanged"),
        ("Authorization: Bearer ", "withheld"),
        ("'" * 10 + "-p", "unchanged"),
    ],
)
def test_hostile_line_comes_back_whole_or_withheld_whole(unit: str, outcome: str) -> None:
    text = _fill(unit)
    assert mask(text) == (text if outcome == "unchanged" else WITHHELD)


def test_secret_dense_text_is_withheld_past_the_budget_not_leaked() -> None:
    text = "".join(f"--password pw{i:06d}x\n" for i in range(20_000))
    masked = mask(text)
    assert "pw000000x" not in masked and "pw019999x" not in masked
    assert WITHHELD in masked


def test_keyword_dense_text_runs_only_the_patterns_that_can_match() -> None:
    """Every gitleaks keyword side by side gates most patterns in; each then costs a pass over
    the whole text. The RE2 set pass must rule out those (Parsec's shapes too) that cannot match:
    before, 63 patterns ran over 1 MB of this text."""
    import re2

    from parsec.privacy.gitleaks import rule_data
    from parsec.privacy.masking import _builtin_gate
    from parsec.privacy.matcher import relaxed

    keywords = " ".join(k for rule in rule_data()["rules"] for k in rule["keywords"])
    text = _fill(keywords + " = 'Zx81kQm2Lp0sT7vB9nR4cD6fG1hJ3kL5' ").encode()
    candidates = _builtin_gate().candidates(text)
    assert 0 < len(candidates) <= 40
    for _, pattern in candidates:  # each one kept can match, in its relaxed form at least
        assert re2.compile(relaxed(pattern.source).encode()).search(text) is not None, pattern.kind


def test_allowlists_see_a_window_of_a_long_line_not_all_of_it() -> None:
    """Each candidate's allowlists used to get its whole line: on a 1 MB line dense in secrets,
    1 MB copied and searched per candidate (secret-dense 500 KB line: 640 ms)."""
    from parsec.privacy.matcher import LINE_WINDOW, SecretPattern

    seen: list[int] = []

    def record(secret: bytes, matched: bytes, line: bytes) -> bool:
        seen.append(len(line))
        return False

    pattern = SecretPattern("test", r"tok_(?P<s>[a-z0-9]{12})", allow=(record,))
    text = _fill("tok_abc123def456 ").encode()
    spans, _ = pattern.spans(text, [50])
    assert len(spans) == 50 and seen
    assert max(seen) <= 2 * LINE_WINDOW + len("tok_abc123def456")
