"""The exact request each adapter sends, and how it reads the reply: URL, headers (the key in the
right place), where the system prompt went, usage accounting."""

from __future__ import annotations

import pytest

from parsec.models.chat import ChatMessage
from parsec.providers.provider import CHAT_MAX_TOKENS
from parsec.providers.provider_errors import UnknownMessagePart

from .conftest import KEY

MESSAGES = [
    ChatMessage(role="system", content="You are terse."),
    ChatMessage(role="user", content="list files"),
    ChatMessage(role="assistant", content="ls"),
    ChatMessage(role="user", content="with sizes"),
]


def test_openai_request(stub, make_provider, usage_events):
    stub.reply("ls -l")
    result = make_provider("openai", model="gpt-4o").chat(MESSAGES, purpose="step_command", max_tokens=50)
    (request,) = stub.model_requests()
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "x-api-key" not in request.headers
    assert request.body["model"] == "gpt-4o"
    assert request.body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
        {"role": "assistant", "content": "ls"},
        {"role": "user", "content": "with sizes"},
    ]
    assert request.body["max_tokens"] == 50  # a compatible server, not api.openai.com
    assert "stream" not in request.body and "response_format" not in request.body
    assert result.text == "ls -l" and result.provider == "openai" and result.model == "gpt-4o"
    assert result.usage.input_tokens == request.tokens and result.usage.output_tokens > 0
    (event,) = usage_events
    assert (event.provider, event.model, event.purpose) == ("openai", "gpt-4o", "step_command")
    assert (event.input_tokens, event.output_tokens) == (result.usage.input_tokens, result.usage.output_tokens)


def test_anthropic_request_puts_the_system_prompt_top_level(stub, make_provider):
    stub.reply("ls -lh")
    provider = make_provider("anthropic", model="claude-3-5-haiku-latest")
    result = provider.chat(MESSAGES)
    (request,) = stub.model_requests()
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert [m["role"] for m in request.body["messages"]] == ["user", "assistant", "user"]
    assert request.body["max_tokens"] == CHAT_MAX_TOKENS  # required by the API (and sent to every provider)
    assert result.text == "ls -lh" and result.usage.input_tokens == request.tokens


def test_gemini_request_uses_system_instruction_and_a_header_key(stub, make_provider):
    stub.reply("ls -lh")
    result = make_provider("gemini", model="gemini-2.0-flash").chat(MESSAGES, max_tokens=64)
    (request,) = stub.model_requests()
    assert request.path == "/v1beta/models/gemini-2.0-flash:generateContent"
    assert request.query == {}  # the key is never in the URL
    assert request.headers["x-goog-api-key"] == KEY
    assert request.body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert request.body["contents"] == [
        {"role": "user", "parts": [{"text": "list files"}]},
        {"role": "model", "parts": [{"text": "ls"}]},
        {"role": "user", "parts": [{"text": "with sizes"}]},
    ]
    assert request.body["generationConfig"] == {"maxOutputTokens": 64}
    assert result.text == "ls -lh" and result.usage.input_tokens == request.tokens


def test_ollama_request(stub, make_provider):
    stub.reply("ls -lh")
    result = make_provider("ollama", model="qwen2.5-coder:7b").chat(MESSAGES)
    (request,) = stub.model_requests()
    assert request.path == "/api/chat"
    assert "authorization" not in request.headers
    assert request.body["model"] == "qwen2.5-coder:7b"
    assert request.body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert request.body["stream"] is False  # Ollama streams unless told otherwise
    assert request.body["options"]["num_ctx"] == 16384  # what the context engine budgets with
    assert result.text == "ls -lh" and result.usage.input_tokens == request.tokens


def test_several_system_messages_are_joined_in_order_for_anthropic(stub, make_provider):
    messages = [
        ChatMessage(role="system", content="one"),
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="system", content="two"),
    ]
    make_provider("anthropic").chat(messages)
    body = stub.model_requests()[0].body
    assert body["system"][0]["text"] == "one\n\ntwo" and body["messages"] == [{"role": "user", "content": "hi"}]


def test_temperature_from_config_is_sent(stub, make_provider):
    from parsec.config import Settings

    settings = Settings()
    settings.llm.temperature = 0.2
    make_provider("openai", settings=settings).chat(MESSAGES)
    make_provider("gemini", settings=settings).chat(MESSAGES)
    openai, gemini = stub.model_requests()
    assert openai.body["temperature"] == 0.2
    assert gemini.body["generationConfig"]["temperature"] == 0.2


@pytest.mark.parametrize(
    "bad",
    [
        {"role": "tool", "content": "x"},
        {"role": "user", "content": [{"type": "image_url", "image_url": "http://x"}]},
        {"role": "user", "content": "hi", "attachments": ["a.png"]},
    ],
)
def test_an_unknown_message_part_is_an_error_not_dropped(stub, make_provider, bad):
    with pytest.raises(UnknownMessagePart, match="message 1"):
        make_provider("openai").chat([ChatMessage(role="user", content="hi"), bad])
    assert stub.model_requests() == []


def test_a_request_with_only_a_system_prompt_is_refused_by_anthropic_and_gemini(stub, make_provider):
    for name in ("anthropic", "gemini"):
        with pytest.raises(UnknownMessagePart):
            make_provider(name).chat([ChatMessage(role="system", content="only this")])
    assert stub.model_requests() == []


def test_missing_usage_is_estimated_not_zero(stub, make_provider, usage_events):
    stub.reply("answer", usage={"input_tokens": 0, "output_tokens": 0})
    make_provider("ollama").chat(MESSAGES)
    assert usage_events[0].input_tokens == 0  # reported as zero: kept as reported

    # A compatible server that reports no usage at all: estimated from the text.
    stub.replies.clear()
    stub.reply("answer")
    provider = make_provider("openai")
    original = provider._parse_reply
    provider._parse_reply = lambda data: (original(data)[0], None)  # type: ignore[method-assign]
    provider.chat(MESSAGES)
    assert usage_events[-1].input_tokens > 0 and usage_events[-1].output_tokens > 0


@pytest.mark.parametrize("name", ["openai", "anthropic", "gemini", "ollama"])
def test_a_secret_left_in_a_prompt_is_masked_before_it_is_sent(stub, make_provider, name):
    leaked = "sk-proj-8fJ2kQ9xLmN4pR7tV1wZ3yB6"
    messages = [
        ChatMessage(role="system", content=f"env: OPENAI_API_KEY={leaked}"),
        ChatMessage(role="user", content=f"why does mysql -u root -pHunter2secret db fail? token {leaked}"),
    ]
    list(make_provider(name).stream(messages))
    make_provider(name).chat(messages)
    for request in stub.model_requests():
        sent = str(request.body)
        assert leaked not in sent and "Hunter2secret" not in sent
        assert "[REDACTED:" in sent and "why does mysql -u root" in sent  # the rest of the prompt is intact


def test_masking_follows_the_privacy_settings(stub, make_provider):
    from parsec.config import Settings

    settings = Settings()
    settings.privacy.extra_patterns = [r"ACME-[0-9]{6}"]
    make_provider("openai", settings=settings).chat([ChatMessage(role="user", content="ticket ACME-123456")])
    assert "ACME-123456" not in str(stub.model_requests()[-1].body)
    settings.privacy.mask_secrets = False  # the user turned the built-in patterns off: their choice
    make_provider("openai", settings=settings).chat(
        [ChatMessage(role="user", content="ticket ACME-123456, export DB_PASSWORD=Hunter2secret")]
    )
    sent = str(stub.model_requests()[-1].body)
    assert "Hunter2secret" in sent and "ACME-123456" not in sent  # extra_patterns still apply (docs/privacy.md)


def test_api_openai_com_gets_max_completion_tokens():
    """Newer OpenAI models refuse `max_tokens`; compatible servers only know it (checked above)."""
    from parsec.providers.openai import DEFAULT_BASE_URL, OpenAIProvider
    from parsec.providers.provider import ModelLimits, ProviderOptions

    provider = OpenAIProvider(ProviderOptions(model="gpt-5", base_url=DEFAULT_BASE_URL, limits=ModelLimits(1000, 100)))
    body = provider._body(MESSAGES, max_tokens=77, stream=False)
    assert body["max_completion_tokens"] == 77 and "max_tokens" not in body
    provider.close()


def test_a_failing_usage_recorder_does_not_lose_the_answer(stub):
    from parsec.config import Settings
    from parsec.providers.select import resolve_provider

    from .conftest import stub_env

    def broken_store(event):
        raise RuntimeError("database is locked")

    stub.reply("the answer")
    provider = resolve_provider(Settings(), provider="ollama", env=stub_env("ollama", stub), on_usage=broken_store)
    assert provider.chat(MESSAGES).text == "the answer"
    provider.close()
