"""A risk verdict: the level (low, medium or high) and the reasons for it."""

from __future__ import annotations

from dataclasses import dataclass, field

LOW, MEDIUM, HIGH = "low", "medium", "high"
_RANK = {LOW: 0, MEDIUM: 1, HIGH: 2}


@dataclass
class RiskVerdict:
    level: str = LOW
    reasons: list[str] = field(default_factory=list)
    parse_error: str | None = None  # why the command could not be parsed (it is then medium)

    def raise_to(self, level: str, reason: str | None) -> None:
        if _RANK[level] > _RANK[self.level]:
            self.level = level
        if reason and reason not in self.reasons:
            self.reasons.append(reason)

    @property
    def is_low(self) -> bool:
        return self.level == LOW

    @property
    def is_high(self) -> bool:
        return self.level == HIGH
