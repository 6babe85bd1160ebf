"""Google Gemini generateContent.

System prompt: `systemInstruction`. Roles: `user` and `model`. Key: the `x-goog-api-key` header
(never the URL, so it cannot end up in a log line). Structured output: `responseMimeType`
application/json with `responseJsonSchema`. Streaming: `:streamGenerateContent?alt=sse`.
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

DEFAULT_BASE_URL = SPECS["gemini"].default_base_url
DEFAULT_MODEL = SPECS["gemini"].default_model
_ROLES = {"user": "user", "assistant": "model"}


class GeminiProvider(Provider):
    name = "gemini"

    def _url(self, *, stream: bool) -> str:
        model = self.model.removeprefix("models/")
        if stream:
            return f"{self.base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse"
        return f"{self.base_url}/v1beta/models/{model}:generateContent"

    def _models_url(self) -> str:
        return f"{self.base_url}/v1beta/models"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["x-goog-api-key"] = self._api_key.reveal()
        return headers

    def _body(self, messages: list[ChatMessage], *, max_tokens: int | None, stream: bool) -> dict[str, Any]:
        system, rest = system_and_rest(messages)
        if not rest:
            raise UnknownMessagePart("gemini needs at least one user message besides the system prompt")
        body: dict[str, Any] = {
            "contents": [{"role": _ROLES[m.role], "parts": [{"text": m.content}]} for m in rest],
        }
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        config: dict[str, Any] = {}
        if max_tokens is not None:
            config["maxOutputTokens"] = max_tokens
        if self.temperature is not None:
            config["temperature"] = self.temperature
        if config:
            body["generationConfig"] = config
        return body

    def _with_schema(self, body: dict[str, Any], mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        config = {
            **body.get("generationConfig", {}),
            "responseMimeType": "application/json",
            "responseJsonSchema": schema,
        }
        return {**body, "generationConfig": config}

    def _parse_reply(self, data: dict[str, Any]) -> tuple[str, TokenUsage | None]:
        candidates = data.get("candidates") or []
        if not candidates:
            reason = (data.get("promptFeedback") or {}).get("blockReason", "no candidates")
            raise ProviderResponseError(f"gemini returned no answer ({reason}): rephrase the request")
        return _text(candidates[0]), _usage(data.get("usageMetadata"))

    def _parse_stream(self, response: httpx.Response) -> Iterator[StreamItem]:
        usage: TokenUsage | None = None
        for _event, data in iter_sse(response):
            chunk = json.loads(data)
            if "error" in chunk:
                raise ProviderResponseError(f"gemini stream failed: {chunk['error'].get('message', '')}")
            for candidate in chunk.get("candidates") or []:
                text = _text(candidate)
                if text:
                    yield text
            usage = _usage(chunk.get("usageMetadata")) or usage  # running totals; the last is final
        if usage is not None:
            yield usage

    def _model_names(self, data: dict[str, Any]) -> list[str]:
        return [item["name"].removeprefix("models/") for item in data.get("models", [])]


def _text(candidate: dict[str, Any]) -> str:
    parts = (candidate.get("content") or {}).get("parts") or []
    # Thinking models mark their reasoning with `thought: true`; only the answer is shown.
    return "".join(p.get("text", "") for p in parts if not p.get("thought"))


def _usage(raw: object) -> TokenUsage | None:
    if not isinstance(raw, dict):
        return None
    return TokenUsage(
        input_tokens=raw.get("promptTokenCount") or 0,
        output_tokens=(raw.get("candidatesTokenCount") or 0) + (raw.get("thoughtsTokenCount") or 0),
    )
