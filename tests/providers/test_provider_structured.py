"""Structured output: the JSON-schema request per wire format, validation, one repair, then an error."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from parsec.models.chat import ChatMessage
from parsec.providers.provider_errors import StructuredOutputError

from .conftest import KEY, PROVIDERS


class Step(BaseModel):
    title: str
    command: str


class Plan(BaseModel):
    goal: str
    steps: list[Step] = Field(min_length=1)


PLAN = {"goal": "free disk space", "steps": [{"title": "find big files", "command": "du -ah . | sort -h | tail"}]}
MESSAGES = [ChatMessage(role="system", content="You plan."), ChatMessage(role="user", content="free some disk")]


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_valid_reply_is_parsed(stub, make_provider, name):
    stub.reply(json=PLAN)
    plan, result = make_provider(name).structured(MESSAGES, Plan, purpose="plan")
    assert plan == Plan.model_validate(PLAN)
    assert result.usage.input_tokens == stub.model_requests()[0].tokens


def test_each_provider_asks_for_the_schema_its_own_way(stub, make_provider):
    schema = Plan.model_json_schema()
    for name in PROVIDERS:
        stub.reply(json=PLAN)
        make_provider(name).structured(MESSAGES, Plan, purpose="plan")
    openai, anthropic, gemini, ollama = (r.body for r in stub.model_requests())
    assert openai["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Plan", "schema": schema, "strict": False},
    }
    assert gemini["generationConfig"]["responseMimeType"] == "application/json"
    assert gemini["generationConfig"]["responseJsonSchema"] == schema
    assert ollama["format"] == schema
    # Anthropic: a forced call of one tool whose input is the reply.
    assert anthropic["tools"] == [
        {"name": "Plan", "description": "Give your answer as this tool's input.", "input_schema": schema}
    ]
    assert anthropic["tool_choice"] == {"type": "tool", "name": "Plan"}
    assert anthropic["system"][0]["text"].startswith("You plan.")
    assert anthropic["system"][-1]["cache_control"] == {"type": "ephemeral"}  # the stable prefix is cached
    assert all(m["role"] != "system" for m in anthropic["messages"])
    # Providers whose request carries the schema do not pay tokens for it in the prompt as well.
    for body in (openai, anthropic, gemini, ollama):
        assert '"properties"' not in json.dumps(body.get("messages") or body.get("contents"))
    assert all(body["max_tokens"] == 1024 for body in (openai, anthropic))  # every request says how long
    assert gemini["generationConfig"]["maxOutputTokens"] == 1024 and ollama["options"]["num_predict"] == 1024


def test_code_fences_and_surrounding_prose_are_tolerated(stub, make_provider):
    stub.reply("Here is the plan:\n```json\n" + json.dumps(PLAN) + "\n```")
    plan, _ = make_provider("openai").structured(MESSAGES, Plan)
    assert plan.goal == "free disk space"
    stub.reply("Sure! " + json.dumps(PLAN) + " Hope that helps.")
    plan, _ = make_provider("openai").structured(MESSAGES, Plan)
    assert plan.steps[0].command.startswith("du")


@pytest.mark.parametrize("name", PROVIDERS)
def test_one_repair_request_quotes_the_validation_error(stub, make_provider, usage_events, name):
    stub.reply(json={"goal": "free disk space", "steps": []})  # violates min_length=1
    stub.reply(json=PLAN)
    plan, result = make_provider(name).structured(MESSAGES, Plan, purpose="plan")
    assert plan.steps[0].title == "find big files"
    first, repair = stub.model_requests()
    repair_text = json.dumps(repair.body)
    assert "steps: List should have at least 1 item" in repair_text
    assert '\\"steps\\": []' in repair_text  # the bad reply is quoted back as the assistant turn
    assert len(usage_events) == 2 and all(e.purpose == "plan" for e in usage_events)
    assert result.usage.input_tokens == first.tokens + repair.tokens


def test_a_second_bad_reply_raises_a_typed_error(stub, make_provider):
    stub.reply("not json at all")
    stub.reply(json={"goal": 3})
    with pytest.raises(StructuredOutputError) as caught:
        make_provider("openai").structured(MESSAGES, Plan)
    message = str(caught.value)
    assert "Plan" in message and "repair" in message and "\n" not in message
    assert KEY not in message
    assert len(stub.model_requests()) == 2  # exactly one repair, no more


@pytest.mark.parametrize(
    "name,complaint",
    [
        ("gemini", "Invalid JSON payload received. Unknown name \"responseJsonSchema\" at 'generation_config'"),
        ("anthropic", "tools: Extra inputs are not permitted"),
    ],
)
def test_a_server_without_json_schema_support_gets_instructions_instead(stub, make_provider, name, complaint):
    stub.reply(status=400, error=complaint)
    stub.reply(json=PLAN)
    stub.reply(json=PLAN)
    provider = make_provider(name)
    plan, _ = provider.structured(MESSAGES, Plan)
    assert plan.goal == "free disk space" and provider.structured_mode == "prompt"
    refused, retried = (r.body for r in stub.model_requests())
    assert "tools" in refused or "responseJsonSchema" in refused["generationConfig"]
    assert "tools" not in retried and "responseJsonSchema" not in retried.get("generationConfig", {})
    prompt_text = json.dumps(retried.get("system") or retried.get("systemInstruction"))
    assert "JSON schema" in prompt_text and "properties" in prompt_text  # the schema now travels in the prompt
    provider.structured(MESSAGES, Plan)  # and the provider remembers: no refused request again
    assert len(stub.model_requests()) == 3


def test_an_unrelated_400_is_not_mistaken_for_missing_schema_support(stub, make_provider):
    from parsec.providers.provider_errors import ProviderResponseError

    stub.reply(status=400, error="messages: text content blocks must be non-empty")
    with pytest.raises(ProviderResponseError, match="non-empty"):
        make_provider("openai").structured(MESSAGES, Plan)
    assert len(stub.model_requests()) == 1
