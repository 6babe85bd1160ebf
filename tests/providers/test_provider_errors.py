"""Resilience and errors: retries with backoff honouring Retry-After, timeouts, one-line errors that
say what to do, and a key that never shows up in an error, a log line or a repr."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest

from parsec.config import Settings
from parsec.models.chat import ChatMessage
from parsec.providers.provider_errors import (
    ContextLengthExceeded,
    EndpointUnreachable,
    ModelNotFound,
    ProviderAuthError,
    ProviderError,
    ProviderResponseError,
    ProviderTimeout,
    RateLimited,
)
from parsec.providers.select import resolve_provider
from parsec.providers.transport import RetryPolicy, retry_after_seconds

from .conftest import KEY, PROVIDERS, stub_env

MESSAGES = [ChatMessage(role="user", content="hello")]


def _one_line(err: BaseException) -> str:
    text = str(err)
    assert "\n" not in text and KEY not in text and "Traceback" not in text
    return text


@pytest.mark.parametrize("name", ["openai", "anthropic", "gemini"])
def test_a_wrong_key_says_which_key_to_check(stub, make_provider, name):
    stub.api_key = "sk-a-different-key-entirely"
    with pytest.raises(ProviderAuthError) as caught:
        make_provider(name).chat(MESSAGES)
    expected = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}[name]
    assert expected in _one_line(caught.value)
    assert len(stub.model_requests()) == 1  # an auth error is not retried


def test_a_key_echoed_in_an_error_body_is_masked(stub, make_provider):
    stub.reply(status=500, error=f"Incorrect API key provided: {KEY}. You can find your API key at ...")
    stub.reply(status=500, error=f"Incorrect API key provided: {KEY[:8]}***{KEY[-4:]}")
    stub.reply(status=500, error=f"key {KEY}")
    with pytest.raises(ProviderResponseError) as caught:
        make_provider("openai").chat(MESSAGES)
    text = _one_line(caught.value)
    assert KEY[:8] not in text and "HTTP 500" in text and "3 attempts" in text


@pytest.mark.parametrize("name", PROVIDERS)
def test_an_unknown_model_says_how_to_fix_it(stub, make_provider, name):
    message = {"ollama": "model 'nope' not found, try pulling it first"}.get(name, "The model `nope` does not exist")
    stub.reply(status=404, error=message)
    with pytest.raises(ModelNotFound) as caught:
        make_provider(name, model="nope").chat(MESSAGES)
    text = _one_line(caught.value)
    assert "'nope'" in text and "[llm] model" in text
    if name == "ollama":
        assert "ollama pull nope" in text


@pytest.mark.parametrize(
    "name,message,code",
    [
        (
            "openai",
            "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens.",
            "context_length_exceeded",
        ),
        ("anthropic", "prompt is too long: 210000 tokens > 200000 maximum", None),
        ("gemini", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", None),
    ],
)
def test_context_length_exceeded(stub, make_provider, name, message, code):
    stub.reply(status=400, error=message, code=code)
    with pytest.raises(ContextLengthExceeded) as caught:
        make_provider(name).chat(MESSAGES)
    assert "context window" in _one_line(caught.value)


@pytest.mark.parametrize("name", PROVIDERS)
def test_429_honours_retry_after_then_succeeds(stub, make_provider, sleeps, name):
    stub.reply(status=429, error="rate limited", headers={"Retry-After": "3"})
    stub.reply(status=503, error="overloaded")
    stub.reply("finally")
    assert make_provider(name, max_retries=2).chat(MESSAGES).text == "finally"
    assert len(stub.model_requests()) == 3
    assert sleeps[0] == 3.0  # the server's wish, exactly
    assert 0 <= sleeps[1] <= 0.5 * 2  # full-jitter backoff for the second attempt


def test_retries_are_bounded_and_end_in_a_one_line_error(stub, make_provider, sleeps):
    for _ in range(5):
        stub.reply(status=429, error="Rate limit reached for requests", headers={"Retry-After": "1"})
    with pytest.raises(RateLimited) as caught:
        make_provider("openai", max_retries=2).chat(MESSAGES)
    assert "rate-limiting" in _one_line(caught.value)
    assert len(stub.model_requests()) == 3 and sleeps == [1.0, 1.0]


def test_a_retry_after_longer_than_we_wait_is_an_immediate_error(stub, make_provider, sleeps):
    stub.reply(status=429, error="quota", headers={"Retry-After": "3600"})
    with pytest.raises(RateLimited, match="3600s"):
        make_provider("gemini").chat(MESSAGES)
    assert sleeps == [] and len(stub.model_requests()) == 1


def test_backoff_grows_exponentially_with_jitter():
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0)
    for attempt, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
        waits = [policy.backoff(attempt) for _ in range(200)]
        assert all(0 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling * 0.7  # jittered across the range, not a constant
        assert len(set(waits)) > 100


def test_retry_after_formats():
    import time
    from email.utils import formatdate

    assert retry_after_seconds(httpx.Headers({"retry-after": "7"})) == 7.0
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "1500"})) == 1.5
    in_a_minute = retry_after_seconds(httpx.Headers({"retry-after": formatdate(time.time() + 60, usegmt=True)}))
    assert 55 <= in_a_minute <= 61
    assert retry_after_seconds(httpx.Headers({})) is None


def test_a_400_is_not_retried_and_quotes_the_providers_message(stub, make_provider):
    stub.reply(status=400, error="temperature: must be <= 2")
    with pytest.raises(ProviderResponseError) as caught:
        make_provider("anthropic").chat(MESSAGES)
    assert "temperature: must be <= 2" in _one_line(caught.value)
    assert len(stub.model_requests()) == 1


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_slow_reply_trips_the_read_timeout(stub, make_provider, name):
    settings = Settings()
    settings.llm.read_timeout_s = 0.3
    stub.reply("too late", delay=1.0)
    with pytest.raises(ProviderTimeout) as caught:
        make_provider(name, settings=settings).chat(MESSAGES)
    assert "read_timeout_s" in _one_line(caught.value)
    assert len(stub.model_requests()) == 1  # the user already waited: no silent retry


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("name", PROVIDERS)
def test_an_unreachable_endpoint_is_retried_then_named(name, sleeps):
    port = _closed_port()
    env = {
        "OPENAI_API_KEY": KEY,
        "ANTHROPIC_API_KEY": KEY,
        "GEMINI_API_KEY": KEY,
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
        "OLLAMA_HOST": f"127.0.0.1:{port}",
    }
    provider = resolve_provider(Settings(), provider=name, env=env, retry=RetryPolicy(max_retries=2, sleep=sleeps))
    with pytest.raises(EndpointUnreachable) as caught:
        provider.chat(MESSAGES)
    text = _one_line(caught.value)
    assert f"127.0.0.1:{port}" in text and "3 attempts" in text
    assert ("ollama serve" in text) if name == "ollama" else ("base_url" in text)
    assert len(sleeps) == 2


def test_a_reply_that_is_not_json_is_a_provider_error(stub, make_provider):
    stub.reply(raw="<html>502 Bad Gateway</html>")
    with pytest.raises(ProviderResponseError, match="not JSON"):
        make_provider("openai").chat(MESSAGES)
    stub.reply(raw='{"unexpected": true}')
    with pytest.raises(ProviderResponseError, match="compatible endpoint"):
        make_provider("openai").chat(MESSAGES)


def test_the_key_never_reaches_logs_errors_or_reprs(stub, make_provider, caplog):
    caplog.set_level(logging.DEBUG)  # httpx, httpcore and parsec at their most talkative
    texts: list[str] = []
    for name in ("openai", "anthropic", "gemini"):
        provider = make_provider(name)
        texts += [repr(provider), str(provider), repr(provider.__dict__), repr(provider._transport)]
        stub.reply("fine")
        list(provider.stream(MESSAGES))
        provider.chat(MESSAGES)
        for reply in (
            {"status": 401, "error": f"bad key {KEY}"},
            {"status": 400, "error": f"echo {KEY}"},
            {"status": 404, "error": KEY},
        ):
            stub.reply(**reply)
            with pytest.raises(ProviderError) as caught:
                provider.chat(MESSAGES)
            texts += [str(caught.value), repr(caught.value)]
    assert stub.requests  # the key was really sent
    everything = "\n".join(texts) + caplog.text
    assert "HTTP Request" in caplog.text  # httpx did log the requests
    assert KEY not in everything and KEY[3:15] not in everything


def test_a_provider_never_pickles_its_key():
    import pickle

    from parsec.providers.keys import Secret

    with pytest.raises(TypeError):
        pickle.dumps(Secret(KEY))


def test_stub_env_is_complete_for_every_provider(stub):
    """Guards the fixtures themselves: each provider resolves to the stub, not a real endpoint."""
    for name in PROVIDERS:
        provider = resolve_provider(Settings(), provider=name, env=stub_env(name, stub))
        assert provider.base_url.startswith(stub.url)
        provider.close()
