"""Structured-output dialects against stub servers that validate requests as each real server does
(tests/stubs/dialects.py): the first mode a server accepts is found without retries, remembered
per base URL, and `[llm] structured_output` forces one."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import BaseModel, Field

from parsec.config import Settings
from parsec.errors import ConfigError
from parsec.models.chat import ChatMessage
from parsec.providers.dialects import strict_schema
from parsec.providers.provider_errors import ProviderResponseError
from parsec.workflow.planning.schemas import PlanReply, StepReply


class Plan(BaseModel):
    goal: str
    steps: list[str] = Field(min_length=1)


PLAN = {"goal": "free disk space", "steps": ["find the biggest files"]}
MESSAGES = [ChatMessage(role="system", content="You plan."), ChatMessage(role="user", content="free some disk")]


def forced(mode: str) -> Settings:
    return Settings.model_validate({"llm": {"structured_output": mode}})


def test_llama_cpp_python_refuses_json_schema_with_a_500_and_gets_json_object_at_once(stub, make_provider, sleeps):
    """The bug a real llama-cpp-python server showed: a 500 naming response_format.type was retried
    four times and ended in "try again later". Now: one refused request, then json_object + schema."""
    stub.dialect = "llama-cpp-python"
    stub.reply(json=PLAN)
    provider = make_provider("openai", max_retries=3)
    plan, _ = provider.structured(MESSAGES, Plan)
    assert plan.goal == "free disk space"
    refused, accepted = stub.model_requests()
    assert refused.body["response_format"]["type"] == "json_schema"
    assert accepted.body["response_format"] == {"type": "json_object", "schema": Plan.model_json_schema()}
    assert '"properties"' not in json.dumps(accepted.body["messages"])  # the server enforces it: not in the prompt
    assert sleeps == []  # no retries, no backoff
    assert provider.structured_mode == "json_object"
    # Remembered per base URL: the next provider (the next `parsec ask`) starts there.
    stub.reply(json=PLAN)
    again = make_provider("openai")
    assert again.structured_mode == "json_object"
    again.structured(MESSAGES, Plan)
    assert stub.model_requests()[-1].body["response_format"]["type"] == "json_object"
    assert len(stub.model_requests()) == 3


@pytest.mark.parametrize(
    "dialect,name,mode,refusals",
    [
        ("openai", "openai", "json_schema", 0),
        ("llama-server", "openai", "json_schema", 0),
        ("vllm", "openai", "json_schema", 0),
        ("llama-cpp-python", "openai", "json_object", 1),
        ("plain", "openai", "prompt", 4),
        ("ollama-old", "ollama", "format_json", 1),
    ],
)
def test_each_server_ends_in_the_mode_it_accepts(stub, make_provider, sleeps, dialect, name, mode, refusals):
    stub.dialect = dialect
    stub.reply(json=PLAN)
    provider = make_provider(name)
    plan, _ = provider.structured(MESSAGES, Plan)
    assert plan.steps == ["find the biggest files"]
    assert provider.structured_mode == mode
    assert len(stub.model_requests()) == refusals + 1 and sleeps == []
    last = stub.model_requests()[-1].body
    if mode == "prompt":  # nothing to enforce it: the schema travels in the instructions
        assert "JSON schema" in last["messages"][0]["content"]
        assert not {"response_format", "json_schema", "guided_json"} & set(last)
    if mode == "format_json":
        assert last["format"] == "json" and "JSON schema" in last["messages"][0]["content"]


def test_a_500_that_names_no_field_is_still_retried(stub, make_provider, sleeps):
    stub.reply(status=500, error="CUDA out of memory")
    stub.reply(json=PLAN)
    provider = make_provider("openai")
    provider.structured(MESSAGES, Plan)
    assert len(sleeps) == 1 and provider.structured_mode == "json_schema"


@pytest.mark.parametrize(
    "mode,field,value",
    [
        ("guided_json", "guided_json", Plan.model_json_schema()),
        ("llama_json_schema", "json_schema", Plan.model_json_schema()),
        ("json_object", "response_format", {"type": "json_object", "schema": Plan.model_json_schema()}),
    ],
)
def test_structured_output_setting_forces_a_mode(stub, make_provider, mode, field, value):
    stub.reply(json=PLAN)
    make_provider("openai", settings=forced(mode)).structured(MESSAGES, Plan)
    (request,) = stub.model_requests()
    assert request.body[field] == value
    if field != "response_format":
        assert "response_format" not in request.body


def test_a_forced_mode_the_server_refuses_is_a_one_line_error_naming_the_setting(stub, make_provider):
    stub.dialect = "openai"
    with pytest.raises(ProviderResponseError) as caught:
        make_provider("openai", settings=forced("guided_json")).structured(MESSAGES, Plan)
    message = str(caught.value)
    assert "[llm] structured_output" in message and "guided_json" in message and "\n" not in message
    assert len(stub.model_requests()) == 1


def test_a_mode_the_provider_does_not_speak_is_a_config_error(make_provider):
    with pytest.raises(ConfigError, match=r"structured_output.*'tool'.*json_schema"):
        make_provider("openai", settings=forced("tool"))


@pytest.mark.parametrize("model", [PlanReply, StepReply])
def test_strict_schemas_still_accept_what_the_models_accept(model):
    """OpenAI's strict mode: every object lists all its properties as required and allows no others."""
    sample = (
        {"name": "n", "steps": ["list the files"]}
        if model is PlanReply
        else {"done": False, "summary": "", "candidates": [{"command": "ls", "explanation": "", "expect": None}]}
    )
    schema = strict_schema(model.model_json_schema())
    jsonschema.validate(sample, schema)

    def objects(node):
        if isinstance(node, dict):
            if "properties" in node:
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(schema))
    assert found and all(o["additionalProperties"] is False and o["required"] == list(o["properties"]) for o in found)
    assert "default" not in json.dumps(schema)
