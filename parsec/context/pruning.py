"""Fit candidates into a token budget, in the seed's order:

1. keep the core (current step, last successful executions, environment, active error and the
   preserved error history) whatever else happens;
2. summarise older results into achievements and compress repeated patterns;
3. drop the lowest-scoring items until the rest fits;
then give summarised items their full form back while room is left, best first.

Every candidate ends with one Decision that says what happened to it and why. Decisions for the
bulk of a large pool (dropped once the budget is used up) are built only when someone reads them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter

from ..errors import ParsecError
from .items import Candidate
from .tokens import TokenCounter

MIN_ITEM_TOKENS = 4  # below this much room nothing useful fits: stop counting
MAX_MISSES = 64  # this many items in a row that do not fit: the budget is as good as used up
# Above this many candidates skip the all-fit check (a pass over every item): stages 2-3 and the
# final restore of full forms reach the same result when the room is plentiful.
STAGE_ONE_LIMIT = 2000
REPEAT_NOTE_TOKENS = 4  # the `"times":N` a compressed item gains

_by_score = attrgetter("score")


class ContextOverflow(ParsecError):
    """The core of a step's context does not fit in the model's window even in its short form."""


@dataclass(slots=True)
class Decision:
    key: str
    kind: str
    section: str
    action: str  # kept | summarised | compressed | dropped
    reason: str
    score: float
    importance: str
    tokens: int | None = None
    core: bool = False


@dataclass
class Selection:
    kept: list[tuple[Candidate, str]] = field(default_factory=list)  # (candidate, form)
    repeats: dict[str, int] = field(default_factory=dict)  # key of a kept item -> times seen
    tokens: int = 0
    _decisions: list[Decision] = field(default_factory=list)
    _unused: list[Candidate] = field(default_factory=list)  # dropped: the budget was used up
    _repeated: list[tuple[Candidate, str]] = field(default_factory=list)  # (compressed item, its keeper)
    _left_out: list[tuple[Candidate, str, int]] = field(default_factory=list)  # (dropped item, why, tokens)
    _keepers: dict[str, Candidate] = field(default_factory=dict)  # pattern -> its best instance

    @property
    def decisions(self) -> list[Decision]:
        if self._left_out:
            self._decisions.extend(_decision(c, "dropped", why, tokens) for c, why, tokens in self._left_out)
            self._left_out = []
        if self._repeated:
            self._decisions.extend(
                _decision(c, "compressed", f"repeat of {keeper}", None) for c, keeper in self._repeated
            )
            self._repeated = []
        if self._unused:
            kept = {c.key for c, _ in self.kept}
            for c in self._unused:
                keeper = self._keepers.get(c.pattern) if c.pattern is not None else None
                if keeper is not None and keeper.key in kept and keeper is not c:
                    self._decisions.append(_decision(c, "compressed", f"repeat of {keeper.key}", None))
                else:
                    self._decisions.append(_decision(c, "dropped", f"low score {c.score:.3f}: budget used up", None))
            self._unused = []
        return self._decisions

    def decide(self, c: Candidate, action: str, reason: str, tokens: int | None) -> None:
        self._decisions.append(_decision(c, action, reason, tokens))

    def drop(self, candidate: Candidate, reason: str) -> None:
        """Remove a kept candidate after the fact (the final count came out over budget)."""
        self.kept = [(c, form) for c, form in self.kept if c is not candidate]
        for decision in self._decisions:
            if decision.key == candidate.key:
                decision.action, decision.reason = "dropped", reason


def _unique(items: list[Candidate]) -> tuple[list[Candidate], list[tuple[Candidate, Candidate]]]:
    """Items with repeats folded into the first (best) of their pattern; and the folded ones."""
    keepers: dict[str, Candidate] = {}
    unique: list[Candidate] = []
    folded: list[tuple[Candidate, Candidate]] = []
    for c in items:
        pattern = c.pattern
        if pattern is not None:
            keeper = keepers.get(pattern)
            if keeper is not None:
                folded.append((c, keeper))
                continue
            keepers[pattern] = c
        unique.append(c)
    return unique, folded


def _all_fit(items: list[Candidate], room: int, counter: TokenCounter, counts: Counter[str]) -> bool:
    """Whether the (already folded) items fit in `room` in full; stops once the answer is known."""

    def note(c: Candidate) -> int:
        return REPEAT_NOTE_TOKENS if c.pattern is not None and counts[c.pattern] > 1 else 0

    bound = 0
    for candidate in items:
        bound += candidate.size_bound("full") + note(candidate)
        if bound > room:
            break
    else:
        return True  # a token is at least one byte: no need to count
    used = 0
    for candidate in items:
        used += candidate.tokens("full", counter) + note(candidate)
        if used > room:
            return False
    return True


def select(
    candidates: list[Candidate], budget: int, counter: TokenCounter, pattern_counts: Counter[str] | None = None
) -> Selection:
    """Choose which candidates (and in which form) fit in `budget` tokens.

    Order is by score, highest first; the sort is stable, so equal scores keep the candidates'
    (deterministic) input order. `pattern_counts` (kept by the pool) saves counting repeats.
    """
    ranked = sorted(candidates, key=_by_score, reverse=True)
    core = [c for c in ranked if c.core]
    selection = Selection()
    forms: dict[str, str] = {}
    room = budget - _keep_core(selection, core, forms, budget, counter)
    rest = ranked if not core else [c for c in ranked if not c.core]

    if pattern_counts is None:
        pattern_counts = Counter(c.pattern for c in rest if c.pattern is not None)

    # Stage 1: everything fits as it is (identical repeats, which add nothing, folded into one).
    if len(rest) <= STAGE_ONE_LIMIT:
        unique, folded = _unique(rest)
        if _all_fit(unique, room, counter, pattern_counts):
            for c in unique:
                times = pattern_counts[c.pattern] if c.pattern is not None else 1
                tokens = c.tokens("full", counter) + (REPEAT_NOTE_TOKENS if times > 1 else 0)
                if times > 1:
                    selection.repeats[c.key] = times
                forms[c.key] = "full"
                selection.kept.append((c, "full"))
                selection.decide(c, "kept", "fits in the budget", tokens)
                room -= tokens
            selection._repeated.extend((c, keeper.key) for c, keeper in folded)
            _restore_full_forms(selection, forms, room, counter)
            selection.tokens = _kept_tokens(selection, counter)
            return selection

    # Stage 2: older results take their summary form (below); repeated patterns fold into their
    # best-scoring instance, which notes how often it was seen.
    keepers: dict[str, Candidate] = {}

    # Stage 3: best first until the budget is used; the lowest scores are dropped.
    misses = 0
    for position, c in enumerate(rest):
        if room < MIN_ITEM_TOKENS or misses >= MAX_MISSES:
            selection._unused = rest[position:]
            selection._keepers = keepers
            break
        pattern = c.pattern
        if pattern is not None:
            keeper = keepers.get(pattern)
            if keeper is not None:
                selection._repeated.append((c, keeper.key))
                continue
            keepers[pattern] = c
            if pattern_counts[pattern] > 1:
                selection.repeats[c.key] = pattern_counts[pattern]
        form = "full" if c.summary is None else "summary"
        tokens = c.tokens(form, counter) + (REPEAT_NOTE_TOKENS if c.key in selection.repeats else 0)
        if tokens <= room:
            room -= tokens
            misses = 0
            forms[c.key] = form
            selection.kept.append((c, form))
            if form == "summary":
                selection.decide(c, "summarised", "older result summarised into an achievement", tokens)
            else:
                selection.decide(c, "kept", f"score {c.score:.3f}", tokens)
        else:
            misses += 1
            selection.repeats.pop(c.key, None)
            if pattern is not None:
                del keepers[pattern]  # the next instance of the pattern gets its own chance
            selection._left_out.append((c, f"low score {c.score:.3f}: needs {tokens} tokens, {room} left", tokens))
    _restore_full_forms(selection, forms, room, counter)
    selection.tokens = _kept_tokens(selection, counter)
    return selection


def _keep_core(
    selection: Selection, core: list[Candidate], forms: dict[str, str], budget: int, counter: TokenCounter
) -> int:
    """Keep every core item; when even the core is too big, its lowest-scoring items take their
    short form one by one until it fits. Returns the core's tokens."""
    for c in core:
        forms[c.key] = "full"
    used = sum(c.tokens("full", counter) for c in core)
    for c in reversed(core):
        if used <= budget:
            break
        if c.summary is not None:
            used += c.tokens("summary", counter) - c.tokens("full", counter)
            forms[c.key] = "summary"
    if used > budget:
        raise ContextOverflow(
            f"the step's core context needs {used} tokens but the budget is {budget}; "
            "use a model with a larger context window"
        )
    for c in core:
        short = forms[c.key] == "summary"
        reason = f"core: {c.core_reason}" + (" (short form: budget is tight)" if short else "")
        selection.kept.append((c, forms[c.key]))
        selection.decide(c, "kept", reason, c.tokens(forms[c.key], counter))
    return used


def _kept_tokens(selection: Selection, counter: TokenCounter) -> int:
    return sum(
        c.tokens(form, counter) + (REPEAT_NOTE_TOKENS if c.key in selection.repeats else 0)
        for c, form in selection.kept
    )


def _restore_full_forms(selection: Selection, forms: dict[str, str], room: int, counter: TokenCounter) -> None:
    """Give summarised items their full form back while the leftover room allows, core first,
    then best score first: summarise only as much as the budget needs."""
    decisions = {d.key: d for d in selection._decisions}
    ranked = sorted(enumerate(selection.kept), key=lambda pair: (not pair[1][0].core, -pair[1][0].score))
    for position, (c, form) in ranked:
        if form != "summary":
            continue
        extra = c.tokens("full", counter) - c.tokens("summary", counter)
        if extra > room:
            continue
        room -= extra
        selection.kept[position] = (c, "full")
        forms[c.key] = "full"
        decision = decisions[c.key]
        decision.tokens = c.tokens("full", counter) + (REPEAT_NOTE_TOKENS if c.key in selection.repeats else 0)
        if decision.action == "summarised":
            decision.action, decision.reason = "kept", f"score {c.score:.3f} (full form fits after pruning)"
        else:
            decision.reason = decision.reason.replace(" (short form: budget is tight)", "")


def _decision(c: Candidate, action: str, reason: str, tokens: int | None) -> Decision:
    # StrEnum members are str already: no `.value` lookups on this hot path.
    return Decision(c.key, c.kind, c.section, action, reason, round(c.score, 4), c.importance, tokens, c.core)
