"""Context windows and output limits of known models, for the context engine's budgets.

Lookup: an exact `[llm.models."name"]` override field wins; then the longest known prefix of the
name (so dated snapshots like `gpt-4o-2024-08-06` match `gpt-4o`); then a conservative default.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import ModelOverride
from .provider import ModelLimits

# Unknown models: small enough that any chat model of the last years accepts it.
DEFAULT_LIMITS = ModelLimits(context_window=8192, max_output_tokens=2048)
# Ollama allocates memory for the whole num_ctx it is sent; stay modest unless the user overrides.
OLLAMA_CONTEXT_CAP = 16384

_KNOWN: dict[str, tuple[int, int]] = {
    # OpenAI
    "gpt-3.5-turbo": (16_385, 4_096),
    "gpt-4": (8_192, 8_192),
    "gpt-4-turbo": (128_000, 4_096),
    "gpt-4o": (128_000, 16_384),
    "gpt-4o-mini": (128_000, 16_384),
    "gpt-4.1": (1_047_576, 32_768),
    "gpt-5": (400_000, 128_000),
    "o1": (200_000, 100_000),
    "o3": (200_000, 100_000),
    "o4-mini": (200_000, 100_000),
    # Anthropic
    "claude-3-haiku": (200_000, 4_096),
    "claude-3-opus": (200_000, 4_096),
    "claude-3-5-haiku": (200_000, 8_192),
    "claude-3-5-sonnet": (200_000, 8_192),
    "claude-3-7-sonnet": (200_000, 64_000),
    "claude-sonnet-4": (200_000, 64_000),
    "claude-opus-4": (200_000, 32_000),
    "claude-opus-4-5": (200_000, 64_000),
    "claude-haiku-4-5": (200_000, 64_000),
    # Gemini
    "gemini-1.5-flash": (1_048_576, 8_192),
    "gemini-1.5-pro": (2_097_152, 8_192),
    "gemini-2.0-flash": (1_048_576, 8_192),
    "gemini-2.5-flash": (1_048_576, 65_536),
    "gemini-2.5-pro": (1_048_576, 65_536),
    # Common local models (Ollama names; the tag after ':' is ignored)
    "llama3": (8_192, 2_048),
    "llama3.1": (131_072, 4_096),
    "llama3.2": (131_072, 4_096),
    "llama3.3": (131_072, 4_096),
    "qwen2.5": (32_768, 8_192),
    "qwen2.5-coder": (32_768, 8_192),
    "qwen3": (40_960, 8_192),
    "mistral": (32_768, 4_096),
    "gemma2": (8_192, 2_048),
    "gemma3": (131_072, 8_192),
    "deepseek-r1": (131_072, 8_192),
    "phi4": (16_384, 4_096),
}


def _known(model: str) -> ModelLimits | None:
    name = model.lower().removeprefix("models/").split(":", 1)[0]
    name = name.rsplit("/", 1)[-1]  # "openai/gpt-4o" (OpenRouter) or "library/llama3"
    best = max((prefix for prefix in _KNOWN if name == prefix or name.startswith(prefix + "-")), key=len, default=None)
    if best is None:
        return None
    window, output = _KNOWN[best]
    return ModelLimits(context_window=window, max_output_tokens=output)


def model_limits(provider: str, model: str, overrides: Mapping[str, ModelOverride] | None = None) -> ModelLimits:
    known = _known(model) or DEFAULT_LIMITS
    if provider == "ollama" and known.context_window > OLLAMA_CONTEXT_CAP:
        known = ModelLimits(OLLAMA_CONTEXT_CAP, min(known.max_output_tokens, OLLAMA_CONTEXT_CAP // 4))
    override = (overrides or {}).get(model)
    if override is None:
        return known
    window = override.context_window or known.context_window
    output = override.max_output_tokens or min(known.max_output_tokens, window)
    return ModelLimits(context_window=window, max_output_tokens=output)
