"""One door for secrets: every string that enters a context passes through `masked`."""

from __future__ import annotations

from typing import Any

from ..models.text import TruncatedText
from ..privacy.masking import mask

# Outputs are cut to this many bytes (at least 16x the final limit) before masking so a huge log
# costs bounded time. The cut points lie far outside the head and tail finally kept, farther than
# the longest secret (a PEM private key is ~3 KB), so no secret can be split inside what is kept.
PRE_MASK_LIMIT = 64 * 1024


_extra_patterns: tuple[str, ...] = ()


def configure(extra_patterns: list[str] | tuple[str, ...]) -> None:
    """Also mask the user's `[privacy] extra_patterns` (set by the engine from its settings)."""
    global _extra_patterns
    _extra_patterns = tuple(extra_patterns)


def masked(text: str | None) -> str:
    if not text:
        return ""
    return mask(text, _extra_patterns)


def masked_value(value: Any) -> Any:  # noqa: ANN401 - JSON in, the same shape out
    """Mask every string inside a JSON-like value (dicts, lists, scalars)."""
    if isinstance(value, str):
        return masked(value)
    if isinstance(value, dict):
        return {key: masked_value(inner) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [masked_value(inner) for inner in value]
    return value


def clip(text: str | bytes, limit: int) -> str:
    """Head and tail of `text` within `limit` bytes, masked BEFORE cutting so no secret is split."""
    rough = TruncatedText.from_output(text, max(PRE_MASK_LIMIT, 16 * limit)).render()
    return TruncatedText.from_output(masked(rough), limit).render()
