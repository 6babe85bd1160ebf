"""Runs the case tables once per test session, shells in parallel, and compares the two sides."""

from __future__ import annotations

import re
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..fake_daemon import FakeDaemon
from ..harness import Sandbox, _load_line
from .driver import Case, Group, Snapshot, render, run_group

# Bare and hooked shells of two groups at a time: 4 shells on the 2 cores CI has.
PARALLEL_GROUPS = 2
APOSTROPHE_IN_WORD = re.compile(r"[^\W_]'[^\W\d_]")  # as the hooks' [[:alnum:]]'[[:alpha:]]


@dataclass
class Outcome:
    case: Case
    bare: Snapshot | None
    hooked: Snapshot | None
    startup: tuple[list[str], list[str]] | None = None  # set on a group's "first prompt" case


class Results:
    """All groups' outcomes, computed on first use for the groups whose cases were selected."""

    def __init__(self, root: Path, tables: dict[str, list[Group]]) -> None:
        self.root, self.tables = root, tables
        self.outcomes: dict[str, Outcome] = {}
        self.lock = threading.Lock()
        self.ran = False

    def get(self, case_id: str, selected: set[str]) -> Outcome | None:
        with self.lock:
            if not self.ran:
                self.ran = True
                self._run(selected)
        return self.outcomes.get(case_id)

    def _run(self, selected: set[str]) -> None:
        sandbox = Sandbox.create(self.root / "sandbox")
        # fish makes $XDG_DATA_HOME/fish when it starts: shells starting at once raced on it
        # ("File exists", then "can not save history" in one of them).
        (Path(sandbox.env["XDG_DATA_HOME"]) / "fish").mkdir(parents=True, exist_ok=True)
        fake = FakeDaemon(sandbox.runtime).start()
        try:
            jobs = []
            for kind, groups in self.tables.items():
                for group in groups:
                    ids = group_ids(kind, group)
                    if not selected & set(ids):
                        continue
                    if any(shutil.which(p) is None for p in (kind, *group.needs)):
                        continue
                    jobs.append((kind, group, ids))
            with ThreadPoolExecutor(PARALLEL_GROUPS) as pool:
                for result in pool.map(lambda job: self._run_group(sandbox, fake, *job), jobs):
                    self.outcomes.update(result)
        finally:
            fake.stop()

    def _run_group(self, sandbox: Sandbox, fake: FakeDaemon, kind: str, group: Group, ids: list[str]):
        base = self.root / kind / group.name

        def classified(pid: int) -> list[str]:
            return [m["text"] for m in fake.of_type("classify") if str(m.get("session", "")).startswith(f"{pid}-")]

        try:
            return self._compare_group(sandbox, base, kind, group, ids, classified)
        except Exception as exc:
            broken = Case(
                "harness", [], note=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else exc!r}"
            )
            return {i: Outcome(broken, None, None) for i in ids}

    def _compare_group(self, sandbox, base, kind, group, ids, classified):
        with ThreadPoolExecutor(2) as pair:
            bare_f = pair.submit(run_group, kind, group, base / "bare", sandbox.env, "")
            hooked_f = pair.submit(run_group, kind, group, base / "hooked", sandbox.env, _load_line(kind), classified)
            bare_start, bare = bare_f.result()
            hooked_start, hooked = hooked_f.result()
        bare_start, hooked_start = render(bare_start, base / "bare"), render(hooked_start, base / "hooked")
        out = {ids[0]: Outcome(Case("first prompt", []), None, None, startup=(bare_start, hooked_start))}
        for case_id, c, b, h in zip(ids[1:], group.cases, bare, hooked, strict=True):
            out[case_id] = Outcome(c, b, h)
        return out


def group_ids(kind: str, group: Group) -> list[str]:
    return [f"{kind}:{group.name}:first-prompt"] + [f"{kind}:{group.name}:{c.name}" for c in group.cases]


def differences(o: Outcome) -> list[str]:
    """What differs between the bare and the hooked side, beyond what the case allows."""
    if o.startup is not None:
        bare, hooked = o.startup
        return [] if bare == hooked else [f"first prompt: bare {bare!r} hooked {hooked!r}"]
    b, h, c = o.bare, o.hooked, o.case
    if b is None or h is None:
        return [f"the group did not run: {c.note}"]
    found = []
    if b.files != h.files:
        found.append(f"files: bare {b.files!r} hooked {h.files!r}")
    # A line the shell continues costs no question, unless only an apostrophe inside a word
    # opened its quote (`what's new`): then it may be prose (docs/hooks.md, "Routing at Enter").
    continued = {line for line, wait in zip(c.lines, b.waits) if wait == "C"}
    asked = [t for t in h.classified if t in continued and not APOSTROPHE_IN_WORD.search(t)]
    if asked:
        found.append(f"lines the shell continues were sent to the classifier: {asked!r}")
    if c.routed is not None:
        shown = "\n".join(h.screen)
        if f"ASKED<{c.routed}>" not in shown:
            found.append(f"expected the hooked shell to route {c.routed!r} to parsec ask; it showed {h.screen!r}")
        if "ASKED<" in "\n".join(b.screen):
            found.append("the bare shell ran the ask stand-in")
        for key in ("pwd", "flags"):
            if "ended" not in b.state and b.state.get(key) != h.state.get(key):  # (set -e: not found ends bash)
                found.append(f"{key}: bare {b.state.get(key)!r} hooked {h.state.get(key)!r}")
        return found
    if b.waits != h.waits:
        found.append(f"prompts after each step: bare {b.waits} hooked {h.waits}")
    if b.state != h.state:
        keys = sorted(set(b.state) | set(h.state))
        found.append(
            "state: "
            + "; ".join(
                f"{k}: bare {b.state.get(k)!r} hooked {h.state.get(k)!r}"
                for k in keys
                if b.state.get(k) != h.state.get(k)
            )
        )
    if c.screen and b.screen != h.screen:
        found.append("screen:\n" + "\n".join(_diff(b.screen, h.screen)))
    return found


def _diff(a: list[str], b: list[str]) -> list[str]:
    import difflib

    return list(difflib.unified_diff(a, b, "bare", "hooked", lineterm="", n=1))
