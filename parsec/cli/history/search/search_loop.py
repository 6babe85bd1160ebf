"""`parsec search`: the loop that reads keys, searches, draws, and answers the shell.

The answer goes to stdout, which the hook captures: a first line `run`, `edit` or `cancel`, then
the command line (several lines for a multi-line command). `cancel` gives back the line as it
was when the search opened. Everything else is drawn on /dev/tty.
"""

from __future__ import annotations

import os
import sys
import time

from . import key_actions as keymap
from .frame import PROMPT, View, frame
from .query import next_mode, parse
from .scope import Here, next_filter, scope_query
from .settings import SearchSettings
from .source import Search, Source

PARTIAL_FRAME_S = 0.05  # while older slices are read, a partial frame at most this often
KEPT_SEARCHES = 32  # finished searches kept for a query typed again (a backspace); each up to ~1 MB


class State:
    """What the user has set up: the query, the modes, the selection."""

    def __init__(self, query: str, cursor: int, mode: str, filter: str) -> None:
        self.query, self.cursor, self.mode, self.filter = query, cursor, mode, filter
        self.selected = self.top = 0
        self.status = ""
        self.confirming: str | None = None  # the question Ctrl-D asked, waiting for y/n


class SearchApp:
    def __init__(
        self,
        terminal,
        source: Source,
        settings: SearchSettings,
        query: str,
        spool_status: str = "",
        trace=None,
        session_key: str = "",
    ) -> None:
        self.terminal, self.source, self.settings = terminal, source, settings
        self.session_key = session_key
        start_filter = settings.filter if scope_query(settings.filter, source.here) is not None else "everywhere"
        self.state = State(query=query, cursor=len(query), mode=settings.mode, filter=start_filter)
        if spool_status:  # spooled commands not in the store (spool_count.SpoolState.status)
            self.state.status = spool_status
        self.trace = trace
        # (query, mode, filter) → its search: the history does not change under an open search
        # (Source.top), so a query seen before (after a backspace) shows its finished results again,
        # the one the search opened with too
        self.search: Search = self._new_search()
        self._searches: dict[tuple[str, str, str], Search] = {self._key(): self.search}
        self.results: list = []
        self.output_for: tuple[str, str | None] | None = None
        self._forget_target = ""  # Ctrl-D: the pattern asked about, and the store it was counted in
        self._pending_store = None
        self._drawn_at = 0.0  # perf_counter() of the last frame
        columns, lines = terminal.size()
        self.width = columns
        self.height = lines if settings.full_screen else min(settings.inline_height, lines - 1)

    # --- searching ------------------------------------------------------------------------------
    def _new_search(self, previous: Search | None = None) -> Search:
        return self.source.search(parse(self.state.query, self.state.mode), self.state.filter, previous=previous)

    def _key(self) -> tuple[str, str, str]:
        return self.state.query, self.state.mode, self.state.filter

    def _restart(self, reuse: bool = True) -> None:
        """A new search for the current query. `reuse`: the last search's matches may be filtered
        instead of read again (Source.search says when); not after rows were forgotten."""
        key = self._key()
        if not reuse or len(self._searches) >= KEPT_SEARCHES:
            self._searches.clear()
        kept = self._searches.get(key)
        if kept is not None and kept.done:
            self.search = kept
        else:
            self.search = self._searches[key] = self._new_search(self.search if reuse else None)
        self.state.selected = self.state.top = 0
        self.search.step()
        self.results = self.search.ranked()

    # --- drawing --------------------------------------------------------------------------------
    def open(self) -> None:
        if self.settings.full_screen:
            self.terminal.write("\x1b[?1049h\x1b[H")
        else:  # make room below the prompt (scrolling if needed), then remember where we start
            self.terminal.write("\n" * self.height + f"\x1b[{self.height}A\r\x1b7")

    def close(self) -> None:
        if self.settings.full_screen:
            self.terminal.write("\x1b[?1049l")
        else:
            self.terminal.write("\x1b8\r\x1b[J\x1b8")

    def draw(self) -> None:
        view = View(
            query=self.state.query,
            cursor=self.state.cursor,
            mode=self.state.mode,
            filter=self.state.filter,
            results=self.results,
            selected=self.state.selected,
            width=self.width,
            height=self.height,
            now_us=int(time.time() * 1_000_000),
            status=self.state.confirming or self.state.status,
            output=self._selected_output(),
            searching=not self.search.done,
            more=self.search.more,
            top=self.state.top,
        )
        lines = frame(view)
        self._drawn_at = time.perf_counter()
        self.state.top = view.top
        start = "\x1b[H" if self.settings.full_screen else "\x1b8\r"
        body = "\r\n".join(line + "\x1b[K" for line in lines)
        column = len(PROMPT) + len(self.state.query[: self.state.cursor]) + 1
        self.terminal.write(f"\x1b[?25l{start}{body}\x1b[{len(lines) - 1}A\x1b[{column}G\x1b[?25h")

    def _selected_output(self) -> str | None:
        if not self.results:
            return None
        chosen = self.results[min(self.state.selected, len(self.results) - 1)]
        if chosen.kind not in ("command", "workflow"):
            return None
        execution_id = chosen.row[1]
        if self.output_for is None or self.output_for[0] != execution_id:
            self.output_for = (execution_id, self.source.output(execution_id))
        return self.output_for[1]

    # --- the loop -------------------------------------------------------------------------------
    def run(self) -> tuple[str, str]:
        """Until the user chooses: (action, line)."""
        self.open()
        try:
            self.search.step()
            self.results = self.search.ranked()
            self.draw()
            self._learn_session()
            traced: float | None = None  # --trace: when the key whose results are still coming was read
            while True:
                if not self.search.done and not self.terminal.has_input():
                    self.search.step()
                    # ranking and drawing every slice cost more than reading it: partial frames
                    # come at most every PARTIAL_FRAME_S, the complete one at once
                    if self.search.done or time.perf_counter() - self._drawn_at >= PARTIAL_FRAME_S:
                        self.results = self.search.ranked()
                        self.draw()
                        traced = self._trace(traced)
                    continue
                key = self.terminal.read_key(None if self.search.done else 0)
                if key is None:
                    continue
                began = time.perf_counter()
                answer = self.handle(key)
                while answer is None and self.terminal.has_input():  # a paste, fast typing: one redraw
                    answer = self.handle(self.terminal.read_key(0) or "")
                if answer is not None:
                    return answer
                self.draw()
                traced = self._trace(began)
        finally:
            self.close()

    def _trace(self, began: float | None) -> float | None:
        """--trace (bench/history_search.py): a key's time from being read to the first frame that
        shows its complete results (not its first, partial frame). Returns what is still pending."""
        if began is None or self.trace is None or not self.search.done:
            return began
        self.trace.write(f"{(time.perf_counter() - began) * 1000:.3f}\n")
        self.trace.flush()
        return None

    def _learn_session(self) -> None:
        """After the first frame (it must not wait for the daemon): which session this shell is,
        for the session filter and the "previous command" ranking signal."""
        from ....protocol.current_session import session_for_key
        from ....store.search import last_command

        session_id = session_for_key(self.session_key, timeout=0.3)
        if session_id is None:  # the `session` filter is then skipped
            return
        self.source.here = self.source.here._replace(session_id=session_id)
        self.source.previous_command = last_command(self.source.connection, session_id)
        if self.settings.filter == "session":
            self.state.filter = "session"
        if self.source.previous_command is not None or self.state.filter == "session":
            query_before = self.state.query
            self._searches.clear()  # ranked without the previous command, or the session unknown
            self._restart()
            if query_before == self.state.query:
                self.draw()

    def handle(self, key: str) -> tuple[str, str] | None:
        state = self.state
        if state.confirming is not None:
            self._confirm(key)
            return None
        action = keymap.ACTIONS.get(key)
        if action in ("run", "edit"):
            if self.results:
                return action, self.results[state.selected].command
            return "edit", state.query  # nothing chosen: the typed text goes to the line, not run
        if action == "cancel":
            return "cancel", ""
        if action == "forget":
            self._ask_forget()
        elif action == "filter":
            state.filter = next_filter(state.filter, self.source.here)
            self._restart()
        elif action == "mode":
            state.mode = next_mode(state.mode)
            self._restart()
        elif action in keymap.MOVES:
            step = keymap.MOVES[action]
            page = max(1, self.height - 7)
            step = step * page if abs(step) > 1 else step
            state.selected = max(0, min(len(self.results) - 1, state.selected + step))
        else:
            edited = keymap.edit_query(state.query, state.cursor, key)
            if edited is None:
                return None
            changed = edited[0] != state.query
            state.query, state.cursor = edited
            if changed:
                self._restart()
        return None

    # --- forgetting (Ctrl-D) ----------------------------------------------------------------------
    def _ask_forget(self) -> None:
        if not self.results:
            return
        from ..forget_matching import exactly, forget_matching

        chosen = self.results[self.state.selected]
        self._forget_target = exactly(chosen.command)
        questions: list[str] = []
        self._pending_store = _open_store_for_forget()

        def ask(question: str) -> bool:
            questions.append(question)
            return False  # only count now; the answer comes as a key

        _, message = forget_matching(self._pending_store, self._forget_target, regex=True, ask=ask)
        if questions:
            self.state.confirming = f"{questions[0]} [y/N]"
        else:
            self.state.status = message
            self._close_forget_store()

    def _confirm(self, key: str) -> None:
        from ..forget_matching import forget_matching

        self.state.confirming = None
        if key in ("y", "Y"):
            _, message = forget_matching(self._pending_store, self._forget_target, regex=True, ask=lambda _: True)
        else:
            message = "nothing forgotten"
        self._close_forget_store()
        self.state.status = message
        self._restart(reuse=False)
        return None

    def _close_forget_store(self) -> None:
        store, self._pending_store = self._pending_store, None
        if store is not None:
            store.close()


def _open_store_for_forget():
    """The store `parsec forget` uses (full config, SQLAlchemy): slow to open, but only on Ctrl-D."""
    from ..history_common import configured_store

    return configured_store()


def current_here() -> Here:
    """Where the search opened; the session is learnt after the first frame (_learn_session)."""
    from ....models.session_ids import this_host

    return Here(cwd=os.getcwd(), session_id=None, host=this_host())


def answer(action: str, line: str, out=None) -> None:
    (out or sys.stdout).write(f"{action}\n{line}")
