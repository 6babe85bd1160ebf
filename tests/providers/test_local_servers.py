"""`parsec providers` finds local model servers; `parsec doctor` checks one token and the
structured-output mode the server accepts. Real HTTP against stub servers on free ports."""

from __future__ import annotations

import socket

from parsec.cli.ai.providers_cmd import FOUND_LOCALLY, collect
from parsec.config import Settings
from parsec.providers.discover import check_replies, find_local_servers
from tests.stubs.llm_server import LLMStub

from .test_providers_cli import _parsec


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_running_ollama_and_openai_compatible_servers_are_found_and_nothing_else():
    with LLMStub(models=["llama3.2:1b"]) as ollama, LLMStub(models=["smollm2"]) as llama_cpp:
        closed = _closed_port()
        found = find_local_servers(ollama_ports=(ollama.port, closed), openai_ports=(closed, llama_cpp.port))
    assert [(s.kind, s.models) for s in found] == [("ollama", ("llama3.2:1b",)), ("openai", ("smollm2",))]
    assert found[0].how_to_use == f"export OLLAMA_HOST=http://127.0.0.1:{ollama.port} PARSEC_MODEL=llama3.2:1b"
    assert found[1].how_to_use == f"export OPENAI_BASE_URL=http://127.0.0.1:{llama_cpp.port}/v1 PARSEC_MODEL=smollm2"


def test_a_port_where_something_else_listens_is_not_a_model_server(tmp_path):
    """A web server that is no model server (here: a static file server) is not listed."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "tags").write_text("<html>not ollama</html>")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        port = web.server_address[1]
        try:
            assert find_local_servers(ollama_ports=(port,), openai_ports=(port,)) == []
        finally:
            web.shutdown()


def test_providers_lists_a_found_server_with_the_line_that_uses_it():
    with LLMStub(models=["smollm2"]) as server:
        rows, _ = collect(
            Settings(),
            probe=True,
            env={"OLLAMA_HOST": "127.0.0.1:9"},
            find_local=lambda: find_local_servers(ollama_ports=(), openai_ports=(server.port,)),
        )
    (found,) = [r for r in rows if r.reason == FOUND_LOCALLY]
    assert found.provider == "openai" and found.model == "smollm2" and found.answers
    assert f"OPENAI_BASE_URL=http://127.0.0.1:{server.port}/v1" in found.status


def test_doctor_check_sends_one_token_then_finds_the_structured_mode(make_provider, stub):
    stub.dialect = "llama-cpp-python"
    stub.reply("OK")
    stub.reply(json={"ready": True})
    result = check_replies(make_provider("openai"))
    assert result.answered and result.mode == "json_object"
    one_token, refused, accepted = stub.model_requests()
    assert one_token.body["max_tokens"] == 1 and "response_format" not in one_token.body
    assert refused.body["response_format"]["type"] == "json_schema"
    assert accepted.body["response_format"]["type"] == "json_object"
    assert "'json_object' accepted, and its reply fit the schema" in result.detail


def test_doctor_reports_the_mode_against_a_real_process(tmp_path):
    with LLMStub(dialect="llama-cpp-python", models=["smollm2"]) as server:
        server.reply("OK")
        server.reply(json={"ready": True})
        result = _parsec(tmp_path, {"OPENAI_BASE_URL": server.openai_base_url, "PARSEC_MODEL": "smollm2"}, "doctor")
    (line,) = [line for line in result.stdout.splitlines() if "smollm2 at" in line]
    assert "answers one token; structured output 'json_object' accepted" in line, result.stdout + result.stderr
