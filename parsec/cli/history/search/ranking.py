"""Ordering the matches: one row per distinct command, scored (docs/history.md, "Ranking").

    recency    2.0 × 0.5^(age in days / 3)      2 just now, 1 three days ago, 0.5 six days ago
    frequency  0.5 × log2(1 + runs)             runs among the rows searched
    place      +1.5 run in this directory, else +0.75 run in this git repository
    sequence   +1.5 it came right after this session's previous command before
    outcome    -1.5 its latest run failed; +1.0 it is a fix: it succeeded right after a failed
               run of the same program in the same session
    text       +0.5 the typed words appear as typed (for fuzzy matches) or start the command

Sequence and outcome need a look at the row before each run, so they are computed for the best
REFINE candidates of the other signals only (a few index lookups per keystroke).
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Callable

DAY_US = 86_400 * 1_000_000
REFINE = 20  # about what the list shows
RUNS_KEPT = 2  # the runs per command whose predecessor is looked at


class Candidate:
    """One distinct command (or conversation) among the matches."""

    __slots__ = (
        "command",
        "executed_at",
        "row",
        "kind",
        "runs",
        "here",
        "in_repo",
        "latest_failed",
        "recent",
        "follows",
        "fix",
        "text_bonus",
        "score",
    )

    def __init__(
        self,
        command: str,
        executed_at: int,
        row: tuple,
        kind: str = "command",
        runs: int = 0,
        here: bool = False,
        latest_failed: bool = False,
    ) -> None:
        self.command = command
        self.executed_at = executed_at  # microseconds, the newest run
        self.row = row  # the newest run (store/search.ROW_FIELDS), or a conversation's fields
        # "command"; "workflow" (an execution a workflow recorded); from a conversation (its row is
        # the conversation's): "prompt" (typed to Parsec), "workflow-run" (a command its workflow ran)
        self.kind = kind
        self.runs = runs
        self.here = here
        self.in_repo = False
        self.latest_failed = latest_failed
        self.recent: list[tuple[str, int, bool]] = []  # (session, time, ok) of the newest runs
        self.follows = self.fix = self.text_bonus = False
        self.score = 0.0


# A namedtuple, not a dataclass: dataclasses imports inspect and ast, too slow for Ctrl-R's start-up.
Context = namedtuple(
    "Context",
    ["now_us", "cwd", "repo", "previous", "typed", "case_sensitive"],
    defaults=(None, "", False),  # previous: this session's previous command; typed: the included words
)


class Pool:
    """The distinct commands matched so far, across slices."""

    def __init__(self) -> None:
        self.by_command: dict[str, Candidate] = {}
        self.extra: list[Candidate] = []  # conversations

    def add_rows(self, rows: list[tuple], context: Context) -> None:
        """Rows newest first (ROW_FIELDS: seq, id, session_id, command, executed_at, duration_ms,
        exit_status, cwd, host, source), each slice older than the last."""
        repo_prefix = context.repo.rstrip("/") + "/" if context.repo else None
        for row in rows:
            command, at, status, cwd = row[3], row[4], row[6], row[7]
            found = self.by_command.get(command)
            if found is None:
                found = self.by_command[command] = Candidate(
                    command,
                    at,
                    row,
                    kind="workflow" if row[9] == "workflow" else "command",
                    latest_failed=status not in (0, None),
                )
            found.runs += 1
            if cwd == context.cwd:
                found.here = True
            elif repo_prefix and (cwd == context.repo or cwd.startswith(repo_prefix)):
                found.in_repo = True
            if len(found.recent) < RUNS_KEPT:
                found.recent.append((row[2], at, status == 0))

    def narrowed(self, keep: Callable[[str], bool]) -> Pool:
        """The candidates whose command `keep` accepts (a narrower query over the same rows),
        shared with this pool: detach() before adding rows."""
        pool = Pool()
        pool.by_command = {command: c for command, c in self.by_command.items() if keep(command)}
        pool.extra = [c for c in self.extra if keep(c.command)]
        return pool

    def detach(self) -> None:
        """Copies of the candidates, so that rows added here leave the pool they came from as it was."""
        self.by_command = {command: _copy(c) for command, c in self.by_command.items()}

    def __len__(self) -> int:
        return len(self.by_command) + len(self.extra)


def _copy(candidate: Candidate) -> Candidate:
    twin = Candidate.__new__(Candidate)
    for name in Candidate.__slots__:
        setattr(twin, name, getattr(candidate, name))
    twin.recent = list(candidate.recent)
    return twin


def base_score(candidate: Candidate, context: Context) -> float:
    age_days = max(0, context.now_us - candidate.executed_at) / DAY_US
    score = 2.0 * 0.5 ** (age_days / 3) + 0.5 * math.log2(1 + max(candidate.runs, 1))
    if candidate.here:
        score += 1.5
    elif candidate.in_repo:
        score += 0.75
    if candidate.latest_failed:
        score -= 1.5
    if context.typed:
        subject = candidate.command if context.case_sensitive else candidate.command.lower()
        candidate.text_bonus = context.typed in subject
        if candidate.text_bonus:
            score += 0.5
    return score


def _program(command: str) -> str:
    return command.split(None, 1)[0] if command.strip() else ""


def refine(candidate: Candidate, context: Context, previous: Callable[[str, int], tuple | None]) -> float:
    """The sequence and outcome signals, from the command before each of its newest runs."""
    bonus = 0.0
    for session_id, at, ok in candidate.recent:
        before = previous(session_id, at)
        if before is None:
            continue
        before_command, before_status = before
        if context.previous is not None and before_command == context.previous:
            candidate.follows = True
        if ok and before_status not in (0, None) and _program(before_command) == _program(candidate.command):
            candidate.fix = True
    if candidate.follows:
        bonus += 1.5
    if candidate.fix:
        bonus += 1.0
    return bonus


def rank(pool: Pool, context: Context, previous: Callable[[str, int], tuple | None] | None = None) -> list[Candidate]:
    """Every candidate, best first (ties: newest first)."""
    # A command a workflow ran is in the history (source "workflow") since revision 0003; the copy
    # read from its conversation stays only for conversations older than that.
    recorded = {c.command for c in pool.by_command.values() if c.kind == "workflow"}
    extra = [c for c in pool.extra if not (c.kind == "workflow-run" and c.command in recorded)]
    everything = [*pool.by_command.values(), *extra]
    for candidate in everything:
        candidate.score = base_score(candidate, context)
    everything.sort(key=lambda c: (c.score, c.executed_at), reverse=True)
    if previous is not None:
        for candidate in everything[:REFINE]:
            if candidate.kind in ("command", "workflow"):
                candidate.score += refine(candidate, context, previous)
        everything.sort(key=lambda c: (c.score, c.executed_at), reverse=True)
    return everything
