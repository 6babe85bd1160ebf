"""ContextReport: what a context holds, token by token, and what was left out and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .pruning import Decision, Selection


@dataclass
class ContextReport:
    budget: int  # tokens available for the request (window minus the answer's reserve)
    total_tokens: int  # tokens of the messages as sent, per-message overhead included
    counter: str  # which token counter measured them
    measure_sections: Callable[[], dict[str, int]] = field(default=dict, repr=False)
    selection: Selection = field(default_factory=Selection, repr=False)
    warnings: list[str] = field(default_factory=list)
    _sections: dict[str, int] | None = field(default=None, repr=False)

    @property
    def sections(self) -> dict[str, int]:
        """Tokens per section; measured on first use (only `context show` needs them)."""
        if self._sections is None:
            self._sections = self.measure_sections()
        return self._sections

    @property
    def decisions(self) -> list[Decision]:
        """One per candidate; built on first use (a step may weigh thousands of items)."""
        return self.selection.decisions

    def actions(self) -> dict[str, int]:
        return dict(Counter(d.action for d in self.decisions))

    def all_kept(self) -> bool:
        """Every candidate went in whole: nothing was summarised, compressed or dropped."""
        return all(d.action == "kept" for d in self.decisions)

    def by_action(self, action: str) -> list[Decision]:
        return [d for d in self.decisions if d.action == action]

    def kept_keys(self) -> set[str]:
        return {d.key for d in self.decisions if d.action in ("kept", "summarised")}

    def to_dict(self) -> dict:
        return {
            "budget": self.budget,
            "total_tokens": self.total_tokens,
            "counter": self.counter,
            "sections": self.sections,
            "actions": self.actions(),
            "decisions": [
                {
                    "key": d.key,
                    "kind": d.kind,
                    "section": d.section,
                    "action": d.action,
                    "reason": d.reason,
                    "score": d.score,
                    "importance": d.importance,
                    "tokens": d.tokens,
                    "core": d.core,
                }
                for d in self.decisions
            ],
            "warnings": self.warnings,
        }
