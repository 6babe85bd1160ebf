"""The classifier's answer: a label, how sure it is, and which evidence decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Label = Literal["command", "prompt", "ambiguous"]
LABELS: tuple[str, ...] = ("command", "prompt", "ambiguous")
SHELL_FACTS: tuple[str, ...] = ("file", "alias", "builtin", "function", "keyword", "none")


@dataclass(frozen=True, slots=True)
class Decision:
    decision: Label
    confidence: float  # 0..1: how sure the classifier is of `decision`
    reason: str  # the evidence that decided, for the user and for debugging misroutes
    prose_score: float = 0.5  # calibrated probability that the line is prose (0 for overrides)

    def as_dict(self) -> dict[str, object]:
        return {"decision": self.decision, "confidence": round(self.confidence, 3), "reason": self.reason}
