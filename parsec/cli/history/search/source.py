"""Candidates from the store, a slice at a time (parsec/store/search.py does the SQL)."""

from __future__ import annotations

import json
import math
import sqlite3
import time

from ....store import search as store_search
from ....store.search import TextMatch
from .query import matches, narrows
from .ranking import Candidate, Context, Pool, rank
from .scope import Here, repo_root, scope_query

# A step without the full-text index (fuzzy words) reads at most SLICE rows (by seq): a few
# milliseconds, so a key pressed during a step waits for little (a slice of 320,000 rows took up to
# a second on a loaded machine, when a rare word matched nothing).
SLICE = 20_000
FIRST_SLICE = 5_000  # the redraw right after a key reads less: typical queries match plenty here
# The first step of a search takes up to STEP_ROWS matches (the runs the frequency signal counts);
# a step that reads on below asks only for about the rows that hold the distinct commands still
# missing (Search.rows_wanted), at least READ_ON_ROWS: a rare fuzzy match then stops scanning once
# it has them instead of reading the rest of its slice for matches no one needs (`do`, `gi`,
# `git p`: 14-18 ms a key at load 8).
STEP_ROWS = 1_000
READ_ON_ROWS = 100
ENOUGH = 300  # distinct commands: older rows add nothing a person scrolls to
# A directory, subtree, session or host with at most this many rows is read through its index
# (store/search.scope_index), not by slices of the whole history: a directory with no history
# would otherwise cost a read of every row (0.7-1.3 s a key on 1,000,000 rows at load 20).
SMALL_SCOPE = SLICE


class Source:
    def __init__(self, connection: sqlite3.Connection, here: Here, previous: str | None = None) -> None:
        self.connection = connection
        self.here = here
        self.repo = repo_root(here.cwd)
        self.previous_command = previous
        self.top = store_search.newest_seq(connection)
        self._before: dict[tuple[str, int], tuple | None] = {}
        self._conversations: list[tuple[tuple, str, list[str]]] | None = None
        self._small_scopes: dict[tuple, str | None] = {}  # scope → its index when the scope is small

    def previous(self, session_id: str, at: int) -> tuple | None:
        key = (session_id, at)
        if key not in self._before:
            self._before[key] = store_search.previous_in_session(self.connection, session_id, at)
        return self._before[key]

    def output(self, execution_id: str) -> str | None:
        from .frame import output_text

        stdout, stderr = store_search.output_of(self.connection, execution_id)
        return output_text(stdout) or output_text(stderr)

    def conversations(self) -> list[tuple[tuple, str, list[str]]]:
        """(row, prompt, commands the workflow ran) of the newest conversations, read once."""
        if self._conversations is None:
            found = []
            for cid, session_id, updated, cwd, data in store_search.recent_conversations(self.connection):
                try:
                    conversation = json.loads(data)
                except ValueError:
                    continue
                commands = [
                    attempt.get("command", "")
                    for step in conversation.get("steps") or []
                    for attempt in step.get("command_attempts") or []
                    if attempt.get("executed")
                ]
                row = (cid, session_id, updated, cwd, conversation.get("name", ""), conversation.get("status", ""))
                found.append((row, str(conversation.get("original_prompt", "")), [c for c in commands if c]))
            self._conversations = found
        return self._conversations

    def small_scope_index(self, scope) -> str | None:
        """The index to read `scope` through when it holds at most SMALL_SCOPE rows (counted once)."""
        if scope not in self._small_scopes:
            index = store_search.scope_index(scope)
            if index is not None and store_search.scope_rows(self.connection, scope, index, SMALL_SCOPE) > SMALL_SCOPE:
                index = None
            self._small_scopes[scope] = index
        return self._small_scopes[scope]

    def search(
        self, text: TextMatch, filter_mode: str, now_us: int | None = None, previous: Search | None = None
    ) -> Search:
        """`previous`: the search this one replaces. When `text` only narrows its query in the same
        scope (a key typed at the end), its matches among the rows it read are filtered instead of
        read again, and the new search goes on below them (when it needs to): typing further
        mostly costs no SQL."""
        now_us = now_us or int(time.time() * 1_000_000)
        if previous is not None and not (
            previous.scope == scope_query(filter_mode, self.here)
            and previous.filter_mode == filter_mode
            and narrows(previous.text, text)
        ):
            previous = None
        return Search(self, text, filter_mode, now_us, narrowing=previous)


class Search:
    """One query over the history, newest rows first; `step()` reads the next slice."""

    def __init__(
        self, source: Source, text: TextMatch, filter_mode: str, now_us: int, narrowing: Search | None = None
    ) -> None:
        self.source, self.text, self.filter_mode = source, text, filter_mode
        self.scope = scope_query(filter_mode, source.here)
        self.context = Context(
            now_us=now_us,
            cwd=source.here.cwd,
            repo=source.repo,
            previous=source.previous_command,
            typed=" ".join(text.include) if text.case_sensitive else " ".join(text.include).lower(),
            case_sensitive=text.case_sensitive,
        )
        self.high = source.top
        self.first_step = narrowing is None  # a narrowing search reads on below the rows it reuses
        self.index: str | None = None  # read the scope through this index (a small scope), in one go
        self.full_text = store_search.full_text_match(text) is not None
        # exhausted: every row of the scope was read, so the pool holds every match; a search that
        # stops at ENOUGH distinct commands is done without it (the count shows "300+")
        self.done = self.exhausted = self.scope is None
        self.pool: Pool
        if narrowing is not None:  # its pool holds every match of its query in the rows above its `high`
            self.pool = narrowing.pool.narrowed(lambda command: matches(text, command))
            self.high, self.index = narrowing.high, narrowing.index
            self.exhausted = narrowing.exhausted
            self.done = self.exhausted or len(self.pool) >= ENOUGH
            if not self.done:  # it reads on: its runs must not change the kept search's
                self.pool.detach()
            return
        self.pool = Pool()
        if not self.done:
            self.index = source.small_scope_index(self.scope)
        if not self.done and filter_mode in ("everywhere", "directory", "tree", "repo"):
            self._add_conversations(filter_mode)

    @property
    def more(self) -> bool:
        """Finished with ENOUGH distinct commands: older rows may hold more matches."""
        return self.done and not self.exhausted

    def _add_conversations(self, filter_mode: str) -> None:
        here = self.source.here.cwd
        for row, prompt, commands in self.source.conversations():
            if filter_mode == "directory" and row[3] != here:
                continue
            if filter_mode in ("tree", "repo") and self.scope is not None and self.scope.cwd is not None:
                base = self.scope.cwd.rstrip("/")
                if not (row[3] == base or row[3].startswith(base + "/")):
                    continue
            if matches(self.text, prompt):
                self.pool.extra.append(Candidate(prompt, row[2], row, kind="prompt", runs=1, here=row[3] == here))
            for command in dict.fromkeys(commands):  # each command a workflow ran, with its conversation
                if matches(self.text, command):
                    self.pool.extra.append(
                        Candidate(command, row[2], row, kind="workflow-run", runs=1, here=row[3] == here)
                    )

    def step(self) -> None:
        """Search the next slice of older rows, or finish. A small scope is read through its index
        in one go; a text the full-text index serves, through that index (store_search.
        full_text_walk): the first FIRST_SLICE rows, then every older row in one query stopped
        at the rows asked for."""
        if self.done:
            return
        assert self.scope is not None
        connection = self.source.connection
        limit = STEP_ROWS if self.first_step else self.rows_wanted()
        if self.index:
            low = 0
        elif self.first_step:
            low = max(0, self.high - FIRST_SLICE)
        else:  # the index walks all the older rows in one query; slices bound the scans
            low = 0 if self.full_text else max(0, self.high - SLICE)
        if self.full_text and not self.index:
            rows = store_search.full_text_walk(connection, self.scope, self.text, low, self.high, limit)
        else:
            rows = store_search.search_slice(connection, self.scope, self.text, low, self.high, limit, self.index)
        self.first_step = False
        self.pool.add_rows(rows, self.context)
        if len(rows) == limit:
            self.high = rows[-1][0] - 1  # the slice holds more: continue below the last row taken
        else:
            self.high = low
        if self.high <= 0:
            self.done = self.exhausted = True
        elif len(self.pool) >= ENOUGH:
            self.done = True

    def rows_wanted(self) -> int:
        """The rows to ask for to reach ENOUGH distinct commands: those missing, times the rows a
        command took so far (a history that repeats itself needs more rows than commands), a tenth
        more (a step that falls a few short costs a whole query more: 2 ms of the full-text index
        for the last five of `git push`), between READ_ON_ROWS and STEP_ROWS."""
        commands = self.pool.by_command.values()
        rows_per_command = sum(c.runs for c in commands) / len(commands) if commands else 1.0
        wanted = math.ceil((ENOUGH - len(self.pool)) * rows_per_command * 1.1)
        return min(STEP_ROWS, max(READ_ON_ROWS, wanted))

    def ranked(self) -> list[Candidate]:
        return rank(self.pool, self.context, self.source.previous)
