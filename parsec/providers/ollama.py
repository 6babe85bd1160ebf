"""Ollama `/api/chat` (local, no key).

System prompt: a `system` message at the start of `messages`. Streaming: NDJSON (Ollama streams
unless told `stream: false`). Structured output: `format` holding the JSON schema (Ollama 0.5+), `format: "json"`, then the
schema in the prompt. Ollama silently
drops what does not fit `num_ctx`, so Parsec sends the context window it budgets with.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..models.chat import ChatMessage, TokenUsage
from ._httpx import httpx
from .dialects import Mode
from .provider import Provider, StreamItem
from .provider_errors import ProviderResponseError
from .registry import SPECS
from .transport import iter_ndjson

DEFAULT_BASE_URL = SPECS["ollama"].default_base_url
DEFAULT_MODEL = SPECS["ollama"].default_model


class OllamaProvider(Provider):
    name = "ollama"

    def _url(self, *, stream: bool) -> str:
        return f"{self.base_url}/api/chat"

    def _models_url(self) -> str:
        return f"{self.base_url}/api/tags"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:  # an Ollama behind an authenticating proxy
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return headers

    def _body(self, messages: list[ChatMessage], *, max_tokens: int | None, stream: bool) -> dict[str, Any]:
        options: dict[str, Any] = {"num_ctx": self.limits.context_window}
        if max_tokens is not None:
            options["num_predict"] = max_tokens
        if self.temperature is not None:
            options["temperature"] = self.temperature
        return {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": stream,
            "options": options,
        }

    def _with_schema(self, body: dict[str, Any], mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {**body, "format": schema if mode.name == "format" else "json"}

    def _parse_reply(self, data: dict[str, Any]) -> tuple[str, TokenUsage | None]:
        if "error" in data:
            raise ProviderResponseError(f"ollama failed: {data['error']}")
        return (data["message"].get("content") or ""), _usage(data)

    def _parse_stream(self, response: httpx.Response) -> Iterator[StreamItem]:
        for chunk in iter_ndjson(response):
            if "error" in chunk:
                raise ProviderResponseError(f"ollama stream failed: {chunk['error']}")
            text = (chunk.get("message") or {}).get("content")
            if text:
                yield text
            if chunk.get("done"):
                usage = _usage(chunk)
                if usage is not None:
                    yield usage
                break

    def _model_names(self, data: dict[str, Any]) -> list[str]:
        return [item["name"] for item in data.get("models", [])]


def _usage(data: dict[str, Any]) -> TokenUsage | None:
    if "prompt_eval_count" not in data and "eval_count" not in data:
        return None
    return TokenUsage(input_tokens=data.get("prompt_eval_count") or 0, output_tokens=data.get("eval_count") or 0)
