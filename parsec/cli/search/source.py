"""Candidates from the store, a slice at a time (parsec/store/search.py does the SQL)."""

from __future__ import annotations

import json
import sqlite3
import time

from ...store import search as store_search
from ...store.search import TextMatch
from .query import matches
from .ranking import Candidate, Context, Pool, rank
from .scope import Here, repo_root, scope_query

# One step reads at most SLICE rows (by seq) and takes at most STEP_ROWS matches: a few
# milliseconds, so a key pressed during a step waits for little (a slice of 320,000 rows took up to
# a second on a loaded machine, when a rare word matched nothing).
SLICE = 20_000
FIRST_SLICE = 5_000  # the redraw right after a key reads less: typical queries match plenty here
STEP_ROWS = 1_000
ENOUGH = 300  # distinct commands: older rows add nothing a person scrolls to


class Source:
    def __init__(self, connection: sqlite3.Connection, here: Here, previous: str | None = None) -> None:
        self.connection = connection
        self.here = here
        self.repo = repo_root(here.cwd)
        self.previous_command = previous
        self.top = store_search.newest_seq(connection)
        self._before: dict[tuple[str, int], tuple | None] = {}
        self._conversations: list[tuple[tuple, str, list[str]]] | None = None

    def previous(self, session_id: str, at: int) -> tuple | None:
        key = (session_id, at)
        if key not in self._before:
            self._before[key] = store_search.previous_in_session(self.connection, session_id, at)
        return self._before[key]

    def output(self, execution_id: str) -> str | None:
        from .render import output_text

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

    def search(self, text: TextMatch, filter_mode: str, now_us: int | None = None) -> Search:
        return Search(self, text, filter_mode, now_us or int(time.time() * 1_000_000))


class Search:
    """One query over the history, newest rows first; `step()` reads the next slice."""

    def __init__(self, source: Source, text: TextMatch, filter_mode: str, now_us: int) -> None:
        self.source, self.text = source, text
        self.scope = scope_query(filter_mode, source.here)
        self.context = Context(
            now_us=now_us,
            cwd=source.here.cwd,
            repo=source.repo,
            previous=source.previous_command,
            typed=" ".join(text.include) if text.case_sensitive else " ".join(text.include).lower(),
            case_sensitive=text.case_sensitive,
        )
        self.pool = Pool()
        self.high = source.top
        self.slice = FIRST_SLICE
        self.done = self.scope is None
        if not self.done and filter_mode in ("everywhere", "directory", "tree", "repo"):
            self._add_conversations(filter_mode)

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
        """Search the next slice of older rows, or finish."""
        if self.done:
            return
        low = max(0, self.high - self.slice)
        self.slice = SLICE
        assert self.scope is not None
        rows = store_search.search_slice(self.source.connection, self.scope, self.text, low, self.high, STEP_ROWS)
        self.pool.add_rows(rows, self.context)
        if len(rows) == STEP_ROWS:
            self.high = rows[-1][0]  # the slice holds more: continue below the last row taken
        else:
            self.high = low
        if self.high <= 0 or len(self.pool) >= ENOUGH:
            self.done = True

    def ranked(self) -> list[Candidate]:
        return rank(self.pool, self.context, self.source.previous)
