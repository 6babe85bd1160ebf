"""Streaming: SSE for OpenAI, Anthropic and Gemini, NDJSON for Ollama; usage reported at the end."""

from __future__ import annotations

import json

import pytest

from parsec.models.chat import ChatMessage
from parsec.providers.provider_errors import ProviderResponseError, RateLimited

from .conftest import PROVIDERS

MESSAGES = [ChatMessage(role="system", content="Be brief."), ChatMessage(role="user", content="explain grep -r")]
REPLY = "grep -r searches every file under a directory, recursively."


@pytest.mark.parametrize("name", PROVIDERS)
def test_stream_yields_deltas_then_reports_usage(stub, make_provider, usage_events, name):
    stub.reply(REPLY)
    deltas = list(make_provider(name).stream(MESSAGES, purpose="ask"))
    assert len(deltas) > 3 and "".join(deltas) == REPLY
    (request,) = stub.model_requests()
    (event,) = usage_events
    assert event.purpose == "ask" and event.input_tokens == request.tokens
    assert event.output_tokens == stub.count_tokens(REPLY)


def test_stream_request_shapes(stub, make_provider):
    for name in PROVIDERS:
        list(make_provider(name).stream(MESSAGES))
    openai, anthropic, gemini, ollama = stub.model_requests()
    assert openai.body["stream"] is True and openai.body["stream_options"] == {"include_usage": True}
    assert anthropic.body["stream"] is True and anthropic.body["system"][0]["text"] == "Be brief."
    assert gemini.path.endswith(":streamGenerateContent") and gemini.query == {"alt": ["sse"]}
    assert "stream" not in gemini.body
    assert ollama.body["stream"] is True


@pytest.mark.parametrize("name", PROVIDERS)
def test_deltas_arrive_before_the_stream_ends(stub, make_provider, name):
    """The first delta is handed over while the server is still sending, not buffered to the end."""
    import threading

    gate = threading.Event()
    stub.reply(REPLY, gate=gate)
    stream = make_provider(name).stream(MESSAGES)
    first = next(stream)  # would wait for the gate's 10 s if the client buffered the whole reply
    (request,) = stub.model_requests()
    assert first == REPLY[: stub.chunk_size] and not request.finished
    gate.set()
    assert first + "".join(stream) == REPLY


@pytest.mark.parametrize("name", PROVIDERS)
def test_an_error_before_the_stream_starts_is_retried_then_one_line(stub, make_provider, sleeps, name):
    stub.reply(status=429, error="slow down", headers={"Retry-After": "2"})
    stub.reply(REPLY)
    assert "".join(make_provider(name).stream(MESSAGES)) == REPLY
    assert sleeps == [2.0]
    for _ in range(3):
        stub.reply(status=429, error="slow down")
    with pytest.raises(RateLimited):
        list(make_provider(name).stream(MESSAGES))


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_garbled_stream_is_a_one_line_provider_error(stub, make_provider, name):
    stub.reply(raw="data: {this is not json\n\n" if name != "ollama" else "{this is not json\n")
    with pytest.raises(ProviderResponseError, match=f"{name} sent a stream Parsec cannot read"):
        list(make_provider(name).stream(MESSAGES))


def test_an_error_event_inside_the_stream_is_reported(stub, make_provider):
    event = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    stub.reply(raw=event)
    with pytest.raises(ProviderResponseError, match="anthropic stream failed: Overloaded"):
        list(make_provider("anthropic").stream(MESSAGES))


def test_a_stream_abandoned_early_still_reports_what_it_cost(stub, make_provider, usage_events):
    stub.reply(REPLY)
    stream = make_provider("openai").stream(MESSAGES, purpose="ask")
    next(stream)
    stream.close()  # the user pressed Ctrl-C after the first words
    (event,) = usage_events
    assert event.purpose == "ask" and event.input_tokens > 0 and event.output_tokens > 0


def timeouts(first_token_s: float = 120.0, idle_s: float = 30.0):
    from parsec.config import Settings

    settings = Settings()
    settings.llm.first_token_timeout_s = first_token_s
    settings.llm.idle_timeout_s = idle_s
    return settings


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_stream_that_stalls_trips_the_idle_timeout(stub, make_provider, usage_events, name):
    from parsec.providers.provider_errors import ProviderTimeout

    stub.reply(REPLY, stream_delay=1.0)
    received = []
    with pytest.raises(ProviderTimeout, match=r"stopped sending for 0.3s.*idle_timeout_s"):
        for delta in make_provider(name, settings=timeouts(idle_s=0.3)).stream(MESSAGES):
            received.append(delta)
    assert received and "".join(received) != REPLY  # some text arrived, then the stall was noticed
    assert len(usage_events) == 1  # what was spent is still accounted


@pytest.mark.parametrize("pings", [False, True])
def test_a_slow_first_token_trips_the_first_token_timeout_keep_alives_or_not(stub, make_provider, pings):
    """Keep-alive comments are bytes, not tokens: they do not hold the deadline off."""
    from parsec.providers.provider_errors import ProviderTimeout

    stub.reply(REPLY, first_delay=5.0, pings=pings)
    with pytest.raises(ProviderTimeout, match=r"no token within 0.5s.*first_token_timeout_s"):
        list(make_provider("openai", settings=timeouts(first_token_s=0.5)).stream(MESSAGES))
    (request,) = stub.model_requests()
    assert not request.finished  # given up long before the server's 5 s


def test_a_slow_first_token_within_its_timeout_is_waited_for_while_idle_is_short(stub, make_provider):
    stub.reply(REPLY, first_delay=0.6, pings=True)
    text = "".join(make_provider("openai", settings=timeouts(first_token_s=5, idle_s=0.3)).stream(MESSAGES))
    assert text == REPLY


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_server_that_hangs_up_mid_stream_is_a_one_line_error(stub, make_provider, name):
    stub.reply(REPLY, hangup_after=3)
    with pytest.raises(ProviderResponseError) as caught:
        list(make_provider(name).stream(MESSAGES))
    assert "broke off" in str(caught.value) and "\n" not in str(caught.value)


def test_an_endless_structured_reply_is_cut_and_mended(stub, make_provider):
    """A server that ignores max_tokens: Parsec stops reading far past the limit and mends the end."""
    from parsec.workflow.planning.schemas import PlanReply

    stub.reply('{"name": "n", "steps": ["Do it"], "note": "' + "la" * 20, endless=True)
    provider = make_provider("openai")
    reply, _ = provider.structured(MESSAGES, PlanReply, max_tokens=50)
    assert reply.steps == ["Do it"]
    assert len(stub.model_requests()) == 1


@pytest.mark.parametrize("name", PROVIDERS)
def test_structured_replies_stream_and_show_as_they_grow(stub, make_provider, name):
    from parsec.workflow.planning.schemas import PlanReply

    stub.reply(json={"name": "n", "steps": ["List the files", "Count them"]})
    seen: list[str] = []
    reply, _ = make_provider(name).structured(MESSAGES, PlanReply, on_text=seen.append)
    assert reply.steps == ["List the files", "Count them"]
    assert len(seen) > 3 and seen[-1].endswith("}")  # the text as it grew, chunk by chunk
    assert stub.model_requests()[0].body.get("stream", True) is True  # Gemini streams by its URL


def test_a_server_that_ignores_stream_and_answers_in_one_body_is_read(stub, make_provider):
    stub.reply(
        raw=json.dumps({"choices": [{"message": {"content": "all at once"}}]}), raw_content_type="application/json"
    )
    assert "".join(make_provider("openai").stream(MESSAGES)) == "all at once"
