"""Every LLM provider Parsec speaks to, described once: its adapter class, where its key and base
URL come from, its defaults, and the model names that say it serves them.

Adding a provider is an adapter module (parsec/providers/<name>.py) and one entry here; the
selection, the key lookup and scrubbing, the error messages and `parsec providers` read this
table. Standard library only: the key and URL lookups run before any adapter is imported.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProviderSpec:
    name: str
    adapter: str  # the class in parsec.providers.<name>
    key_variables: tuple[str, ...]  # the variables its official client reads, in order of preference
    base_url_variable: str
    default_base_url: str
    default_model: str
    url_example: str  # what a good base URL looks like, for error messages
    model_prefixes: tuple[str, ...] = ()  # a model named so is served by this provider


SPECS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            name="openai",
            adapter="OpenAIProvider",
            key_variables=("OPENAI_API_KEY",),
            base_url_variable="OPENAI_BASE_URL",
            default_base_url="https://api.openai.com/v1",
            default_model="gpt-4o-mini",
            url_example="http://localhost:8080/v1",
            model_prefixes=("gpt-", "o1", "o3", "o4"),
        ),
        ProviderSpec(
            name="anthropic",
            adapter="AnthropicProvider",
            key_variables=("ANTHROPIC_API_KEY",),
            base_url_variable="ANTHROPIC_BASE_URL",
            default_base_url="https://api.anthropic.com",
            default_model="claude-sonnet-4-5",
            url_example="https://api.anthropic.com",
            model_prefixes=("claude-",),
        ),
        ProviderSpec(
            name="gemini",
            adapter="GeminiProvider",
            key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            base_url_variable="GOOGLE_GEMINI_BASE_URL",
            default_base_url="https://generativelanguage.googleapis.com",
            default_model="gemini-2.5-flash",
            url_example="https://generativelanguage.googleapis.com",
            model_prefixes=("gemini-",),
        ),
        ProviderSpec(
            name="ollama",
            adapter="OllamaProvider",
            key_variables=(),  # a local server: no key
            base_url_variable="OLLAMA_HOST",
            default_base_url="http://127.0.0.1:11434",
            default_model="llama3.2",
            url_example="http://localhost:11434",
        ),
    )
}
