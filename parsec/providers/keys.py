"""API keys: where each provider's key lives and a wrapper that never shows it (the scrubbing of
keys out of the environment of the commands Parsec runs: privacy/scrub.py). Standard library only
(cheap to import)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from .registry import SPECS

# The variables each provider's official client reads, in order of preference.
KEY_VARIABLES: dict[str, tuple[str, ...]] = {name: spec.key_variables for name, spec in SPECS.items()}

# Shapes of provider keys that may come back inside an error body (e.g. "Incorrect API key: sk-ab…").
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_\-*.]{3,}|AIza[0-9A-Za-z_\-]{10,})")


class Secret:
    """Holds a key; its str/repr never show it. Call `.reveal()` only to build a request header."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __reduce__(self):  # pickling would write the key somewhere
        raise TypeError("a Secret cannot be pickled")


def redact(text: str, *secrets: Secret | None) -> str:
    """`text` with the given keys and anything shaped like a provider key masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret.reveal(), "***")
    return _KEY_SHAPES.sub("***", text)


def key_from_environment(provider: str, env: Mapping[str, str]) -> tuple[Secret | None, str]:
    """The provider's key from the environment and the variable it came from."""
    for name in KEY_VARIABLES.get(provider, ()):
        value = env.get(name, "").strip()
        if value:
            return Secret(value), name
    return None, ""
