"""API keys: where each provider's key lives, a wrapper that never shows it, and the scrubbing of
keys out of the environment of the commands Parsec runs. Standard library only (cheap to import)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .registry import SPECS

# The variables each provider's official client reads, in order of preference.
KEY_VARIABLES: dict[str, tuple[str, ...]] = {name: spec.key_variables for name, spec in SPECS.items()}

# Never handed to a command Parsec runs: the keys above and those of common OpenAI-compatible hosts.
SCRUBBED_VARIABLES = frozenset(
    {name for names in KEY_VARIABLES.values() for name in names}
    | {
        "PARSEC_LLM_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "MISTRAL_API_KEY",
        "TOGETHER_API_KEY",
        "DEEPSEEK_API_KEY",
        "XAI_API_KEY",
        "COHERE_API_KEY",
        "FIREWORKS_API_KEY",
        "PERPLEXITY_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
    }
)

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


def scrubbed_environment(
    env: Mapping[str, str] | None = None, *, secrets: Iterable[Secret | str] = ()
) -> dict[str, str]:
    """A copy of `env` (default: os.environ) without LLM keys, for a command Parsec runs.

    Also drops any variable whose value is one of `secrets` (a key kept under another name).
    """
    import os

    source = os.environ if env is None else env
    values = {s.reveal() if isinstance(s, Secret) else s for s in secrets}
    values.discard("")
    return {name: value for name, value in source.items() if name not in SCRUBBED_VARIABLES and value not in values}
