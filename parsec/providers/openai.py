"""OpenAI chat completions, and every OpenAI-compatible server (llama.cpp, vLLM, LM Studio, OpenRouter).

System prompt: a `system` message at the start of `messages`. Key: `Authorization: Bearer`.
Structured output, best first (dialects.py): `response_format` json_schema (strict on OpenAI's own
API), json_object with a `schema` (llama-cpp-python's server), llama-server's top-level
`json_schema`, vLLM's `guided_json`, then the schema in the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..models.chat import ChatMessage, TokenUsage
from ._httpx import httpx
from .dialects import Mode, strict_schema
from .provider import Provider, StreamItem
from .provider_errors import ProviderResponseError
from .registry import SPECS
from .transport import iter_sse

DEFAULT_BASE_URL = SPECS["openai"].default_base_url
DEFAULT_MODEL = SPECS["openai"].default_model


class OpenAIProvider(Provider):
    name = "openai"

    def _url(self, *, stream: bool) -> str:
        return f"{self.base_url}/chat/completions"

    def _models_url(self) -> str:
        return f"{self.base_url}/models"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:  # local OpenAI-compatible servers usually need none
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return headers

    def _body(self, messages: list[ChatMessage], *, max_tokens: int | None, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        if max_tokens is not None:
            # api.openai.com's newer models only accept max_completion_tokens; compatible servers know max_tokens.
            body["max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"] = max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _with_schema(self, body: dict[str, Any], mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        if mode.name == "json_schema":
            # OpenAI's own API enforces a strict schema; compatible servers take the schema as it is.
            strict = "api.openai.com" in self.base_url
            spec = {"name": name, "schema": strict_schema(schema) if strict else schema, "strict": strict}
            return {**body, "response_format": {"type": "json_schema", "json_schema": spec}}
        if mode.name == "json_object":
            return {**body, "response_format": {"type": "json_object", "schema": schema}}
        if mode.name == "llama_json_schema":
            return {**body, "json_schema": schema}
        if mode.name == "guided_json":
            return {**body, "guided_json": schema}
        return body

    def _parse_reply(self, data: dict[str, Any]) -> tuple[str, TokenUsage | None]:
        choice = data["choices"][0]
        message = choice["message"]
        if message.get("refusal"):
            raise ProviderResponseError(f"openai refused to answer: {message['refusal']}")
        return message.get("content") or "", _usage(data.get("usage"))

    def _parse_stream(self, response: httpx.Response) -> Iterator[StreamItem]:
        for _event, data in iter_sse(response):
            if data.strip() == "[DONE]":
                break
            chunk = json.loads(data)
            if "error" in chunk:
                raise ProviderResponseError(f"openai stream failed: {_message(chunk['error'])}")
            for choice in chunk.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    yield text
            usage = _usage(chunk.get("usage"))
            if usage is not None:
                yield usage

    def _model_names(self, data: dict[str, Any]) -> list[str]:
        return [item["id"] for item in data.get("data", [])]


def _usage(raw: object) -> TokenUsage | None:
    if not isinstance(raw, dict):
        return None
    return TokenUsage(input_tokens=raw.get("prompt_tokens") or 0, output_tokens=raw.get("completion_tokens") or 0)


def _message(error: object) -> str:
    return str(error.get("message", error)) if isinstance(error, dict) else str(error)
