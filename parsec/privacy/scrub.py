"""LLM keys kept out of the environment of every command Parsec runs (a workflow's commands, the
context commands): a command has no business with the key the model is called with. Standard
library only (cheap to import)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Protocol

# Never handed to a command Parsec runs: the variables each provider's official client reads
# (providers/registry.py names them per provider; tests/providers/test_registry.py checks that
# every one is here) and those of common OpenAI-compatible hosts.
LLM_KEY_VARIABLES = frozenset(
    {
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
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


class Revealable(Protocol):
    """A key wrapper that never shows its value (providers.keys.Secret)."""

    def reveal(self) -> str: ...


def scrubbed_environment(
    env: Mapping[str, str] | None = None, *, secrets: Iterable[Revealable | str] = ()
) -> dict[str, str]:
    """A copy of `env` (default: os.environ) without LLM keys, for a command Parsec runs.

    Also drops any variable whose value is one of `secrets` (a key kept under another name).
    """
    source = os.environ if env is None else env
    values = {s if isinstance(s, str) else s.reveal() for s in secrets}
    values.discard("")
    return {name: value for name, value in source.items() if name not in LLM_KEY_VARIABLES and value not in values}
