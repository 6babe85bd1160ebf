"""Structured-output dialects: how each kind of server is asked for JSON that fits a schema, which
one a server accepted (remembered per base URL), and how a refusal is told from other errors.

Every provider lists its modes best first. A request goes out in the remembered (or forced) mode;
a 4xx or 5xx whose error names that mode's field means "this server does not speak it": Parsec
moves to the next mode at once (no retries, the server will not change its mind) and remembers
that for the base URL, so the next `parsec ask` starts there. The last mode of every provider is
`prompt`: the schema travels in the instructions and the reply is parsed leniently, so an
unsupported structured-output field never fails a workflow.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("parsec.providers")


@dataclass(frozen=True)
class Mode:
    name: str
    # True: the request body carries the schema and the server enforces it, so the prompt does
    # not repeat it. False: the schema is written into the instructions (also for fields a server
    # may silently ignore).
    enforced: bool
    # What a server's refusal of this mode mentions (its field names and values).
    refusal: re.Pattern[str]


def _words(*words: str) -> re.Pattern[str]:
    return re.compile("|".join(words), re.IGNORECASE)


# OpenAI's API, llama.cpp's llama-server, vLLM, LM Studio: response_format json_schema.
JSON_SCHEMA = Mode("json_schema", True, _words("response_format", "json_schema", r"\bstrict\b"))
# llama-cpp-python's server (and llama-server): response_format json_object with a schema.
JSON_OBJECT = Mode("json_object", True, _words("response_format", "json_object", r"\bschema\b"))
# llama.cpp's llama-server: its own top-level json_schema field (turned into a grammar).
LLAMA_JSON_SCHEMA = Mode("llama_json_schema", False, _words("json_schema", "extra_forbidden"))
# vLLM's guided decoding (older versions without response_format json_schema).
GUIDED_JSON = Mode("guided_json", False, _words("guided_json", "guided_decoding", "extra_forbidden"))
# Ollama 0.5+: `format` holding the schema; older Ollama: `format: "json"`.
OLLAMA_FORMAT = Mode("format", True, _words(r"\bformat\b", r"\bschema\b"))
OLLAMA_JSON = Mode("format_json", False, _words(r"\bformat\b", r"\bjson\b"))
# Gemini: responseMimeType application/json with responseJsonSchema.
GEMINI_SCHEMA = Mode(
    "json_schema", True, _words("responseJsonSchema", "responseMimeType", "response_?schema", "generation_?config")
)
# Anthropic: one tool whose input is the schema, and tool_choice forcing it.
ANTHROPIC_TOOL = Mode("tool", True, _words(r"\btools?\b", "tool_choice", "input_schema"))
# Everyone: instructions with the schema, a lenient parse and a repair request.
PROMPT = Mode("prompt", False, re.compile(r"(?!)"))  # matches nothing: nothing to refuse

LADDERS: dict[str, tuple[Mode, ...]] = {
    "openai": (JSON_SCHEMA, JSON_OBJECT, LLAMA_JSON_SCHEMA, GUIDED_JSON, PROMPT),
    "ollama": (OLLAMA_FORMAT, OLLAMA_JSON, PROMPT),
    "gemini": (GEMINI_SCHEMA, PROMPT),
    "anthropic": (ANTHROPIC_TOOL, PROMPT),
}

# Statuses that say something about the request's fields (not auth, a missing model or a quota).
_NOT_ABOUT_FIELDS = {401, 403, 404, 408, 429}


def mode_names(provider: str) -> list[str]:
    return [mode.name for mode in LADDERS[provider]]


def find_mode(provider: str, name: str) -> Mode:
    """The mode `name` of `provider`; ValueError with the choices when it has none of that name."""
    for mode in LADDERS[provider]:
        if mode.name == name:
            return mode
    raise ValueError(f"{provider} has no structured-output mode '{name}': use auto, {', '.join(mode_names(provider))}")


def refuses(mode: Mode, status: int | None, message: str) -> bool:
    """Whether an error answer means the server does not speak `mode`: any 4xx or 5xx whose
    message names the mode's field (llama-cpp-python answers an unknown response_format type with
    a 500 holding a validation error)."""
    if status is None or status < 400 or status in _NOT_ABOUT_FIELDS:
        return False
    return bool(mode.refusal.search(message))


class ModeMemory:
    """The mode each server accepted last, per provider and base URL, in a small JSON file (so the
    next command does not pay the refused request again). A broken or unwritable file is ignored:
    the worst case is one refused request."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    @staticmethod
    def _key(provider: str, base_url: str) -> str:
        return f"{provider} {base_url.rstrip('/')}"

    def _load(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}

    def get(self, provider: str, base_url: str) -> str | None:
        return self._load().get(self._key(provider, base_url))

    def set(self, provider: str, base_url: str, mode: str) -> None:
        if self.path is None:
            return
        data = self._load()
        data[self._key(provider, base_url)] = mode
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as err:
            log.debug("could not remember the structured-output mode: %s", err)


_STRICT_UNSUPPORTED = ("default", "title", "minLength", "maxLength")


def strict_schema(schema: object) -> object:
    """`schema` as OpenAI's strict mode accepts it: every property required (optional ones may be
    null or empty anyway), no additional properties, no keywords strict mode refuses. The reply is
    still validated against the original model."""
    if isinstance(schema, list):
        return [strict_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict_schema(value) for key, value in schema.items() if key not in _STRICT_UNSUPPORTED}
    if "properties" in schema:
        out["properties"] = {name: strict_schema(value) for name, value in schema["properties"].items()}
        out["required"] = list(schema["properties"])
        out["additionalProperties"] = False
    return out


def default_memory_path() -> Path:
    from ..paths import cache_dir

    return cache_dir() / "structured_output.json"
