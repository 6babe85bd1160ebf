"""Request validation as each local server documents it, for the stub's OpenAI and Ollama routes.

`LLMStub(dialect=NAME)` checks each completion request the way NAME's server does and answers a
refusal with that server's status and error body:

  openai             OpenAI's API: response_format text | json_object | json_schema, nothing else
                     inside it; unknown top-level fields (guided_json, json_schema) are refused (400)
  llama-cpp-python   `python -m llama_cpp.server`: pydantic request models, response_format type
                     text | json_object (+ schema); a validation error comes back as HTTP 500
  llama-server       llama.cpp's server: response_format text | json_object | json_schema, and its
                     own top-level json_schema / grammar fields (400 otherwise)
  vllm               vLLM: response_format text | json_object | json_schema | structural_tag, and
                     guided_json (400 with its own error body otherwise)
  plain              a server with no structured output that forbids unknown fields (FastAPI, 422)
  ollama-old         Ollama before 0.5: `format` is a string ("json"); an object cannot be decoded
  (none)             accepts everything, as before
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

# Top-level fields each OpenAI-compatible dialect refuses when present.
_FOREIGN_FIELDS = {
    "openai": ("json_schema", "guided_json", "grammar"),
    "llama-server": ("guided_json",),
    "vllm": (),
    "llama-cpp-python": (),  # pydantic's default: unknown fields are ignored
}


class _LlamaCppResponseFormat(BaseModel):
    """llama_cpp.server.types: `ResponseFormat`."""

    type: Literal["text", "json_object"]  # and an optional `schema`


class _OpenAIResponseFormat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["text", "json_object", "json_schema"]
    json_schema: dict[str, Any] | None = None


def refusal(dialect: str | None, api: str, body: Any) -> tuple[int, Any] | None:
    """(status, error body) when `dialect`'s server refuses this request, else None."""
    if not dialect or not isinstance(body, dict):
        return None
    if api == "ollama":
        return _ollama(dialect, body)
    if api != "openai":
        return None
    if dialect == "plain":
        extra = [name for name in ("response_format", "json_schema", "guided_json", "grammar") if name in body]
        if extra:
            return 422, {
                "detail": [
                    {
                        "type": "extra_forbidden",
                        "loc": ["body", extra[0]],
                        "msg": "Extra inputs are not permitted",
                        "input": body[extra[0]],
                    }
                ]
            }
        return None
    for name in _FOREIGN_FIELDS.get(dialect, ()):
        if name in body:
            return 400, _openai_error(f"Unrecognized request argument supplied: {name}")
    response_format = body.get("response_format")
    if response_format is None:
        return None
    if dialect == "llama-cpp-python":
        try:
            _LlamaCppResponseFormat.model_validate(response_format)
        except ValidationError as err:
            # The server wraps the request's validation error into a 500 (the bug Parsec hit).
            detail = [{**e, "loc": ("body", "response_format", *e["loc"])} for e in err.errors(include_url=False)]
            return 500, {
                "error": {"message": str(detail), "type": "internal_server_error", "param": None, "code": None}
            }
        return None
    if dialect == "openai":
        try:
            _OpenAIResponseFormat.model_validate(response_format)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return 400, _openai_error(f"Invalid parameter: 'response_format.{where}': {first['msg']}")
        return None
    allowed = {
        "llama-server": ("text", "json_object", "json_schema"),
        "vllm": ("text", "json_object", "json_schema", "structural_tag"),
    }.get(dialect)
    if allowed and response_format.get("type") not in allowed:
        message = f'"response_format" must be one of {", ".join(allowed)}'
        if dialect == "vllm":
            return 400, {"object": "error", "message": message, "type": "BadRequestError", "param": None, "code": 400}
        return 400, {"error": {"code": 400, "message": message, "type": "invalid_request_error"}}
    return None


def _ollama(dialect: str, body: dict[str, Any]) -> tuple[int, Any] | None:
    if dialect == "ollama-old" and "format" in body and not isinstance(body["format"], str):
        return 400, {"error": "json: cannot unmarshal object into Go struct field ChatRequest.format of type string"}
    return None


def _openai_error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
