"""The classifier's answer: a label, how sure it is, and which evidence decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Label = Literal["command", "prompt", "ambiguous"]
LABELS: tuple[str, ...] = ("command", "prompt", "ambiguous")
SHELL_FACTS: tuple[str, ...] = ("file", "alias", "builtin", "function", "keyword", "none")
# The shells whose hooks ask; a builtin's grammar may depend on which (fish's `set x 1`).
SHELLS: tuple[str, ...] = ("bash", "zsh", "fish")


@dataclass(frozen=True, slots=True)
class Decision:
    decision: Label
    confidence: float  # 0..1: how sure the classifier is of `decision` (ambiguous: of the way it leans)
    reason: str  # the evidence that decided, for the user and for debugging misroutes
    prose_score: float = 0.5  # calibrated probability that the line is prose (0 for overrides)

    @property
    def leans(self) -> str:
        """The route an ambiguous line would take if it had to: command or prompt."""
        if self.decision != "ambiguous":
            return self.decision
        return "prompt" if self.prose_score > 0.5 else "command"

    def describe(self) -> str:
        """One line for people: `prompt (72%): ...`, `ambiguous, leans command (62%): ...`."""
        label = self.decision if self.decision != "ambiguous" else f"ambiguous, leans {self.leans}"
        return f"{label} ({self.confidence:.0%}): {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {
            "decision": self.decision,
            "leans": self.leans,
            "confidence": round(self.confidence, 3),
            "reason": self.reason,
        }
