"""Anthropic messages API.

System prompt: the top-level `system` parameter (system messages never go in `messages`).
Key: `x-api-key`, with the required `anthropic-version` header. `max_tokens` is mandatory.
Structured output: one tool whose input schema is the reply's, forced with `tool_choice` (the
reply is the tool call's input), then the schema in the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..models.chat import ChatMessage, TokenUsage
from ._httpx import httpx
from .dialects import Mode
from .provider import Provider, StreamItem, system_and_rest
from .provider_errors import ProviderResponseError, UnknownMessagePart
from .registry import SPECS
from .transport import iter_sse

DEFAULT_BASE_URL = SPECS["anthropic"].default_base_url
DEFAULT_MODEL = SPECS["anthropic"].default_model
API_VERSION = "2023-06-01"
# Large non-streaming max_tokens are refused by the API; long replies should stream.
DEFAULT_MAX_TOKENS_CAP = 8192


class AnthropicProvider(Provider):
    name = "anthropic"

    def _url(self, *, stream: bool) -> str:
        return f"{self.base_url}/v1/messages"

    def _models_url(self) -> str:
        return f"{self.base_url}/v1/models"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key.reveal()
        return headers

    def _body(self, messages: list[ChatMessage], *, max_tokens: int | None, stream: bool) -> dict[str, Any]:
        system, rest = system_and_rest(messages)
        if not rest:
            raise UnknownMessagePart("anthropic needs at least one user message besides the system prompt")
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or min(self.limits.max_output_tokens, DEFAULT_MAX_TOKENS_CAP),
            "messages": [{"role": m.role, "content": m.content} for m in rest],
        }
        if system:
            # The system prompt (captured once per conversation, the reply schema with it) starts
            # every request the same way: mark it for Anthropic's prompt cache.
            body["system"] = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
        if self.temperature is not None:
            body["temperature"] = min(self.temperature, 1.0)  # Anthropic's range is 0..1
        if stream:
            body["stream"] = True
        return body

    def _with_schema(self, body: dict[str, Any], mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        tool = {"name": name, "description": "Give your answer as this tool's input.", "input_schema": schema}
        return {**body, "tools": [tool], "tool_choice": {"type": "tool", "name": name}}

    def _parse_reply(self, data: dict[str, Any]) -> tuple[str, TokenUsage | None]:
        calls = [block["input"] for block in data["content"] if block.get("type") == "tool_use"]
        if calls:  # a forced tool call: its input is the structured reply
            text = json.dumps(calls[0])
        else:
            text = "".join(block.get("text", "") for block in data["content"] if block.get("type") == "text")
        usage = data.get("usage") or {}
        return text, TokenUsage(
            input_tokens=usage.get("input_tokens") or 0, output_tokens=usage.get("output_tokens") or 0
        )

    def _parse_stream(self, response: httpx.Response) -> Iterator[StreamItem]:
        input_tokens = output_tokens = 0
        for event, data in iter_sse(response):
            payload = json.loads(data)
            kind = payload.get("type", event)
            if kind == "message_start":
                usage = (payload.get("message") or {}).get("usage") or {}
                input_tokens = usage.get("input_tokens") or 0
                output_tokens = usage.get("output_tokens") or 0
            elif kind == "content_block_delta":
                delta = payload.get("delta") or {}
                if delta.get("type") == "text_delta" and delta.get("text"):
                    yield delta["text"]
                elif delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                    yield delta["partial_json"]  # a forced tool call's input, as it is written
            elif kind == "message_delta":
                output_tokens = (payload.get("usage") or {}).get("output_tokens", output_tokens)
            elif kind == "error":
                error = payload.get("error") or {}
                raise ProviderResponseError(f"anthropic stream failed: {error.get('message', error)}")
            elif kind == "message_stop":
                break
        yield TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens)

    def _model_names(self, data: dict[str, Any]) -> list[str]:
        return [item["id"] for item in data.get("data", [])]
