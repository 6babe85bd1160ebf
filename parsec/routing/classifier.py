"""The Classifier facade: overrides → learned choices → shell facts, syntax and language evidence.

One instance lives in the daemon (and one per `parsec classify` run); construction lists PATH
and loads learned preferences once, so each `classify` call is pure computation.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .danger import prose_cue
from .decision import SHELL_FACTS, SHELLS, Decision, Label
from .learned_routes import Preferences, shape_key
from .overrides import explicit_override
from .scoring import Analysis, analyse
from .shell_facts import PathIndex
from .syntax import parses_as_shell

if TYPE_CHECKING:
    from ..config import LoadedConfig, Settings
    from ..store.protocols import PreferenceStore

log = logging.getLogger(__name__)

DEFAULT_COMMAND_THRESHOLD = 0.35
DEFAULT_PROMPT_THRESHOLD = 0.65
REASON_PARTS = 3


class Classifier:
    def __init__(self, store: PreferenceStore | None = None, settings: Settings | LoadedConfig | None = None) -> None:
        section = getattr(getattr(settings, "settings", settings), "classifier", None)
        self.enabled: bool = getattr(section, "enabled", True)
        self.learning: bool = getattr(section, "learn_from_corrections", True)
        self.command_threshold: float = getattr(section, "command_threshold", DEFAULT_COMMAND_THRESHOLD)
        self.prompt_threshold: float = getattr(section, "prompt_threshold", DEFAULT_PROMPT_THRESHOLD)
        if self.prompt_threshold < self.command_threshold:
            self.command_threshold, self.prompt_threshold = self.prompt_threshold, self.command_threshold
        self.path_index = PathIndex()
        parses_as_shell("true")  # import bashlex now, not on the first line a user types
        self.preferences = Preferences(store if self.learning else None)

    # --- the hot path ------------------------------------------------------------------------
    def classify(
        self,
        text: str,
        first_word: str | None = None,
        parses: bool | None = None,
        cwd: str | None = None,
        shell: str | None = None,
    ) -> Decision:
        """Route one line. `first_word`/`parses`: facts from the user's shell; `cwd`: the shell's
        directory, so that arguments naming existing files count as command evidence; `shell`:
        bash, zsh or fish, where a builtin's grammar differs (fish's `set x 1`)."""
        try:
            fact = first_word if first_word in SHELL_FACTS else None
            return self._classify(
                _as_text(text), fact, parses, cwd if isinstance(cwd, str) else None, shell if shell in SHELLS else None
            )
        except Exception as err:  # never let one odd line break the daemon or the shell
            log.exception("classifier failed on a line")
            return Decision("command", 0.5, f"classifier error ({type(err).__name__}); left to the shell", 0.5)

    def _classify(
        self, text: str, fact: str | None, parses: bool | None, cwd: str | None, shell: str | None
    ) -> Decision:
        override = explicit_override(text)
        if override is not None:
            return override
        if not text.strip():
            return Decision("command", 1.0, "an empty line goes to the shell", 0.0)
        if not self.enabled:
            return Decision("command", 1.0, "the classifier is disabled ([classifier] enabled = false)", 0.0)
        analysis = analyse(text, fact, None if parses is None else bool(parses), self.path_index, cwd, shell)
        learned = self.preferences.get(shape_key(analysis)) if self.learning else None
        if learned is not None:
            return Decision(learned, 0.9, f"you chose {learned} for lines like this before", analysis.probability)
        return self._decide(analysis)

    def _decide(self, analysis: Analysis) -> Decision:
        p = analysis.probability
        label: Label
        if p < self.command_threshold:
            cue = prose_cue(analysis)
            if cue is not None:  # prose that would change state is never run without asking
                return Decision("ambiguous", round(1.0 - p, 3), f"{cue}: asking first", round(p, 3))
            label, confidence, sign = "command", 1.0 - p, -1
        elif p > self.prompt_threshold:
            label, confidence, sign = "prompt", p, 1
        else:
            label, confidence, sign = "ambiguous", max(p, 1.0 - p), 0  # how far it leans
        return Decision(label, round(confidence, 3), _reason(analysis, label, sign), round(p, 3))

    # --- learning ----------------------------------------------------------------------------
    def learn(self, text: str, first_word: str | None, chosen: str) -> bool:
        """Remember the user's route for this line's shape at once (`parsec classify --learn`;
        the hook's answers go through `answered`). Returns False when the choice could not be
        stored (it still holds for this instance)."""
        if chosen not in ("command", "prompt"):
            raise ValueError(f"chosen must be 'command' or 'prompt', got {chosen!r}")
        text = _as_text(text)
        if not self.learning or explicit_override(text) is not None or not text.strip():
            return True
        return self.preferences.remember(self.shape(text, first_word), text, chosen)

    def answered(self, text: str, first_word: str | None, chosen: str) -> bool:
        """The user's answer for a line from the hook (the one-key question, an override, the
        exit-127 offer): learned for the line's shape only when the same answer comes twice in a
        row. Returns True when this answer settled the shape."""
        if chosen not in ("command", "prompt"):
            raise ValueError(f"chosen must be 'command' or 'prompt', got {chosen!r}")
        text = _as_text(text)
        if not self.learning or explicit_override(text) is not None or not text.strip():
            return False
        return self.preferences.confirm(self.shape(text, first_word), text, chosen)

    def forget(self, text: str | None = None) -> int:
        """Drop the learned choice for the shape of `text`, or every learned choice; returns how
        many were dropped."""
        return self.preferences.forget(None if text is None else self.shape(text))

    def shape(self, text: str, first_word: str | None = None) -> str:
        """The readable shape a choice about `text` is learned under (`watch the logs`)."""
        fact = first_word if first_word in SHELL_FACTS else None
        return shape_key(analyse(_as_text(text), fact, None, self.path_index))

    def learned(self) -> dict[str, str]:
        return self.preferences.items()

    def reload(self) -> None:
        """Re-read learned choices (after `parsec classify --forget` in another process)."""
        self.path_index.refresh()
        self.preferences.reload()


def _as_text(text: object) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", errors="replace")
    return "" if text is None else str(text)


def _reason(analysis: Analysis, label: str, sign: int) -> str:
    if not analysis.evidence:
        return "no evidence either way; left to the shell"
    if sign == 0:
        pro = max(analysis.evidence, key=lambda item: item[0])
        con = min(analysis.evidence, key=lambda item: item[0])
        if pro[0] <= 0 or con[0] >= 0:
            return f"weak evidence either way: {(pro if pro[0] > 0 else con)[1]}"
        return f"conflicting evidence: {pro[1]}, but {con[1]}"
    ranked = sorted((e for e in analysis.evidence if e[0] * sign > 0), key=lambda item: -abs(item[0]))
    against = [e for e in analysis.evidence if e[0] * sign < 0]
    text = "; ".join(why for _, why in ranked[:REASON_PARTS]) or "the starting bias toward commands"
    if against:
        text += " (outweighs: " + max(against, key=lambda item: abs(item[0]))[1] + ")"
    return text
