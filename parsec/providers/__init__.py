"""LLM provider adapters: one small module per wire format (OpenAI-compatible, Anthropic, Gemini,
Ollama) over plain httpx. Import the submodules you need; this package imports nothing heavy.

    from parsec.providers.select import resolve_provider
    from parsec.providers.provider import Provider, ChatResult, ModelLimits
"""
