"""Reading a model's JSON reply leniently: a code fence or a sentence around it, raw control
characters inside strings, a truncated end or a trailing comma (mended with json-repair rather
than asked again), then the schema, then what the caller's `check` says it means."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
# What a parsed reply means: "" when it makes sense, else the reason to ask again (said to the
# model in the repair request and to the user in one line).
Check = Callable[[Any], str]


def parse_reply(text: str, output_model: type[T], check: Check | None = None) -> tuple[T | None, str]:
    """The reply as `output_model`, read leniently, or None and what is wrong with it (for the
    repair request and the user). Then `check` judges its meaning: "" when it makes sense."""
    candidate = json_candidate(text)
    if not candidate:
        return None, "the reply was empty"
    try:
        data = json.loads(candidate, strict=False)  # raw newlines and tabs inside strings are fine
    except ValueError:
        # A truncated end, a trailing comma, single quotes: mended here rather than asked again.
        data = json_repair.repair_json(candidate, return_objects=True, skip_json_loads=True)
    if not isinstance(data, dict):
        return None, "the reply is not a JSON object"
    try:
        value = output_model.model_validate(data)
    except ValidationError as err:
        problems = []
        for item in err.errors()[:5]:
            where = ".".join(str(p) for p in item["loc"])
            problems.append(f"{where}: {item['msg']}" if where else item["msg"])
        return None, "; ".join(problems)
    problem = check(value) if check is not None else ""
    return (None, problem) if problem else (value, "")


def json_candidate(text: str) -> str:
    """The JSON object inside a reply that may wrap it in a code fence or a sentence, or stop
    short of its end."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0].strip()
    if stripped.startswith(("{", "[")):
        return stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if start < 0:
        return stripped
    return stripped[start : end + 1] if start < end else stripped[start:]


def partial_object(text: str) -> dict[str, Any]:
    """What a reply still being written holds so far, its open strings and brackets closed (a
    streamed plan shows its steps as they arrive); {} when nothing can be read yet."""
    candidate = json_candidate(text)
    if not candidate.startswith("{"):
        return {}
    data = json_repair.repair_json(candidate, return_objects=True)
    return data if isinstance(data, dict) else {}
