"""The differential conformance suite: each case is typed into a bare shell and into one with the
Parsec hook, and everything the user can observe must be the same (docs/hooks.md, "Conformance").

The only allowed difference is a line the classifier routes as prose (`routed=` in the tables):
there the hooked shell runs `parsec ask` (a stand-in printing ASKED<line>) instead of the line,
and only the directory and options are compared. The hooked shells talk to the stand-in daemon
(`tests/hooks/fake_daemon.py`): lines with "please" are prose, lines with "maybe" ambiguous.
"""

from __future__ import annotations

import pytest

from . import cases_bash, cases_fish, cases_zsh
from .runner import Results, differences, group_ids

TABLES = {"bash": cases_bash.GROUPS, "zsh": cases_zsh.GROUPS, "fish": cases_fish.GROUPS}
IDS = [case_id for kind, groups in TABLES.items() for group in groups for case_id in group_ids(kind, group)]
assert len(IDS) == len(set(IDS)), "case names must be unique within a group"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return Results(tmp_path_factory.mktemp("differential"), TABLES)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("case_id", IDS)
def test_same_as_the_bare_shell(results, request, case_id):
    selected = {
        item.callspec.params["case_id"]
        for item in request.session.items
        if hasattr(item, "callspec") and "case_id" in item.callspec.params
    }
    outcome = results.get(case_id, selected)
    if outcome is None:
        pytest.skip("the shell or a tool this group needs is not installed")
    found = differences(outcome)
    assert not found, "\n".join(found)


def test_report_slow_cases(results):
    """Not a check: lists the slowest cases (pytest -s) to keep the suite fast."""
    timed = sorted(((o.hooked.seconds, cid) for cid, o in results.outcomes.items() if o.hooked), reverse=True)
    for seconds, cid in timed[:15]:
        print(f"{seconds:6.2f} s  {cid}")
