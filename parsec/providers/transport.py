"""HTTP for every adapter: one httpx client, retries with backoff, and one-line errors.

Retries: 429, 5xx and connection errors, exponential backoff with full jitter, `Retry-After`
honoured (seconds or an HTTP date), at most `max_retries` extra attempts. A read timeout is not
retried: the user has already waited `read_timeout_s`.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ._httpx import httpx
from .keys import Secret, redact
from .provider_errors import (
    ContextLengthExceeded,
    EndpointUnreachable,
    InvalidEndpoint,
    ModelNotFound,
    ProviderAuthError,
    ProviderError,
    ProviderResponseError,
    ProviderTimeout,
    RateLimited,
    StructuredModeRefused,
)
from .registry import SPECS

log = logging.getLogger("parsec.providers")
Refused = Callable[[int, str], bool]

_CONTEXT_TOO_LONG = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|too many tokens|"
    r"exceeds the maximum number of tokens|input token count.*exceeds|reduce the length",
    re.IGNORECASE,
)
_MODEL_MISSING = re.compile(
    r"model.*(not found|does not exist|not exist|unknown|is not supported)|no such model", re.IGNORECASE
)


@dataclass
class RetryPolicy:
    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    max_retry_after_s: float = 60.0  # a server asking us to wait longer than this gets an error instead
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, base * 2^attempt], capped."""
        return random.uniform(0, min(self.max_delay_s, self.base_delay_s * (2**attempt)))


@dataclass
class Endpoint:
    """What an error message needs to say what to do."""

    provider: str
    base_url: str
    model: str
    key_hint: str  # e.g. "OPENAI_API_KEY" or "[llm] api_key"
    api_key: Secret | None = None


def retry_after_seconds(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def _needs_tls(base_url: str) -> bool:
    """Loading the CA bundle costs ~50 ms; a plain-http local server (Ollama, llama.cpp) never uses it.

    Redirects are not followed, so an http endpoint never leads to https; a proxy might, so with a
    proxy configured the bundle is loaded as usual.
    """
    import os

    proxied = any(os.environ.get(name) for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"))
    return proxied or not base_url.startswith("http://")


# The variable each provider's base URL may come from, and what a good URL looks like.
BASE_URL_VARIABLES = {name: spec.base_url_variable for name, spec in SPECS.items()}
URL_EXAMPLES = {name: spec.url_example for name, spec in SPECS.items()}


def _retryable(status: int) -> bool:
    return status == 429 or status == 408 or status >= 500


class Transport:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        connect_timeout_s: float,
        read_timeout_s: float,
        retry: RetryPolicy,
        http_transport: httpx.BaseTransport | None = None,
        outbound: Callable[[str], str] | None = None,
        stream_read_timeout_s: float | None = None,
    ) -> None:
        self.endpoint = endpoint
        # A stream's own deadlines (first token, idle: watch.py) are the real limits; this is a backstop.
        self.stream_timeout = httpx.Timeout(stream_read_timeout_s or read_timeout_s, connect=connect_timeout_s)
        self.outbound = outbound  # the masking gate every request body passes
        self.retry = retry
        self.read_timeout_s = read_timeout_s
        self._before_next_request: list[Callable[[], None]] = []
        timeout = httpx.Timeout(read_timeout_s, connect=connect_timeout_s)
        # trust_env: HTTPS_PROXY / SSL_CERT_FILE are honoured as the official clients honour them.
        self.client = httpx.Client(
            timeout=timeout,
            transport=http_transport,
            follow_redirects=False,
            trust_env=True,
            verify=_needs_tls(endpoint.base_url),
        )

    def close(self) -> None:
        self.client.close()

    def on_next_request(self, callback: Callable[[], None]) -> None:
        """Call `callback` once, as the next request goes out (before it is written)."""
        self._before_next_request.append(callback)

    def __repr__(self) -> str:
        return f"Transport({self.endpoint.provider} at {self.endpoint.base_url})"

    # -- requests -----------------------------------------------------------------------------
    def post_json(
        self, url: str, headers: dict[str, str], body: dict[str, Any], *, refused: Refused | None = None
    ) -> Any:  # noqa: ANN401 - a reply's JSON, read by each adapter
        """The reply's JSON. `refused(status, error_text)` says an error answer refuses a field of
        the request: it is raised at once as StructuredModeRefused, whatever the status, never retried."""
        with self._send("POST", url, headers, body, stream=False, refused=refused) as response:
            try:
                return response.json()
            except ValueError:
                raise self._error(f"sent a reply that is not JSON (HTTP {response.status_code})") from None

    def get_json(self, url: str, headers: dict[str, str]) -> Any:  # noqa: ANN401 - a reply's JSON, read by each adapter
        with self._send("GET", url, headers, None, stream=False) as response:
            try:
                return response.json()
            except ValueError:
                raise self._error("sent a reply that is not JSON") from None

    @contextmanager
    def stream(
        self, url: str, headers: dict[str, str], body: dict[str, Any], *, refused: Refused | None = None
    ) -> Iterator[httpx.Response]:
        """The open streaming response; retries happen only before the first byte is read."""
        with self._send("POST", url, headers, body, stream=True, refused=refused) as response:
            try:
                yield response
            except httpx.ReadTimeout:
                raise self._timeout() from None
            except httpx.TransportError as err:
                raise self._error(f"stream broke off: {type(err).__name__}") from None

    @contextmanager
    def _send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any] | None,
        *,
        stream: bool,
        refused: Refused | None = None,
    ) -> Iterator[httpx.Response]:
        if body is not None and self.outbound is not None:
            from ..privacy.masking import mask_json

            body = mask_json(body, self.outbound)
        callbacks, self._before_next_request = self._before_next_request, []
        for callback in callbacks:
            callback()
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                request = self.client.build_request(
                    method,
                    url,
                    headers=headers,
                    json=body,
                    timeout=self.stream_timeout if stream else httpx.USE_CLIENT_DEFAULT,
                )
                response = self.client.send(request, stream=True)
            except httpx.ReadTimeout:
                raise self._timeout() from None
            except (
                httpx.ConnectError,
                httpx.ConnectTimeout,
                httpx.RemoteProtocolError,
                httpx.ReadError,
                httpx.WriteError,
                httpx.PoolTimeout,
                httpx.WriteTimeout,
            ) as err:
                log.debug("%s %s: %s (attempt %d)", method, self._safe(url), type(err).__name__, attempt + 1)
                if attempt >= self.retry.max_retries:
                    raise self._unreachable(err) from None
                self.retry.sleep(self.retry.backoff(attempt))
                attempt += 1
                continue
            except (httpx.InvalidURL, httpx.UnsupportedProtocol):
                raise self._invalid_url() from None
            except httpx.HTTPError as err:
                raise self._error(f"request failed: {type(err).__name__}") from None
            log.debug(
                "%s %s -> %d in %.0f ms",
                method,
                self._safe(url),
                response.status_code,
                (time.perf_counter() - started) * 1000,
            )
            if response.status_code < 400:
                try:
                    if not stream:
                        self._read_body(response)
                    yield response
                finally:
                    response.close()
                return
            try:
                text = response.read().decode("utf-8", "replace")
            except httpx.HTTPError:
                text = ""
            finally:
                response.close()
            if refused is not None and refused(response.status_code, text):
                raise StructuredModeRefused(
                    self._safe(f"{self.endpoint.provider} refused the request (HTTP {response.status_code}): ")
                    + self._safe(_error_message(text)),
                    response.status_code,
                )
            if _retryable(response.status_code) and attempt < self.retry.max_retries:
                wait = retry_after_seconds(response.headers)
                if wait is not None and wait > self.retry.max_retry_after_s:
                    raise self._status_error(response.status_code, text, wait)
                self.retry.sleep(self.retry.backoff(attempt) if wait is None else wait)
                attempt += 1
                continue
            raise self._status_error(response.status_code, text, retry_after_seconds(response.headers))

    def _read_body(self, response: httpx.Response) -> None:
        try:
            response.read()
        except httpx.ReadTimeout:
            raise self._timeout() from None
        except httpx.TransportError as err:
            raise self._error(f"reply broke off: {type(err).__name__}") from None

    # -- error mapping ------------------------------------------------------------------------
    def _safe(self, text: str) -> str:
        return redact(text, self.endpoint.api_key)

    def _error(self, what: str) -> ProviderResponseError:
        return ProviderResponseError(self._safe(f"{self.endpoint.provider} {what}"))

    def _timeout(self) -> ProviderTimeout:
        e = self.endpoint
        return ProviderTimeout(
            f"{e.provider} ({e.model}) did not answer within {self.read_timeout_s:g}s: try again, "
            f"or raise [llm] read_timeout_s"
        )

    def _unreachable(self, err: Exception) -> EndpointUnreachable:
        e = self.endpoint
        hint = (
            "is Ollama running (`ollama serve`)? check OLLAMA_HOST"
            if e.provider == "ollama"
            else "check the network, [llm] base_url" + (" and OPENAI_BASE_URL" if e.provider == "openai" else "")
        )
        return EndpointUnreachable(
            self._safe(
                f"cannot reach {e.provider} at {e.base_url} ({type(err).__name__}, {_attempts(self.retry)}): {hint}"
            )
        )

    def _invalid_url(self) -> InvalidEndpoint:
        """A last line of defence: `choose` checks the URLs it hands out, naming their variable."""
        e = self.endpoint
        variable = BASE_URL_VARIABLES.get(e.provider)
        example = URL_EXAMPLES.get(e.provider, "http://localhost:8080/v1")
        return InvalidEndpoint(
            self._safe(
                f"{e.provider} endpoint '{e.base_url}' is not an http(s) URL: check [llm] base_url"
                + (f" and {variable}" if variable else "")
                + f", and set it like {example}"
            )
        )

    def _status_error(self, status: int, text: str, retry_after: float | None) -> ProviderError:
        e = self.endpoint
        message = self._safe(_error_message(text))
        if status in (401, 403) or (status == 400 and "API_KEY_INVALID" in text):  # Gemini's 400 for a bad key
            verb = "rejected" if status != 403 else "refused access with"
            return ProviderAuthError(f"{e.provider} {verb} the API key (HTTP {status}): check {e.key_hint}")
        if _CONTEXT_TOO_LONG.search(message) and status in (400, 413, 422, 500):
            return ContextLengthExceeded(
                f"the request is longer than {e.model}'s context window ({e.provider}): start a new "
                f'conversation, or set a smaller [llm.models."{e.model}"] context_window'
            )
        if status == 404 or (status == 400 and _MODEL_MISSING.search(message)):
            fix = f"run `ollama pull {e.model}`, or set" if e.provider == "ollama" else "set"
            return ModelNotFound(
                f"{e.provider} does not know the model '{e.model}' (HTTP {status}): {fix} "
                f"[llm] model or PARSEC_MODEL to one it serves"
            )
        if status == 429:
            wait = f" (it asks to wait {retry_after:.0f}s)" if retry_after else ""
            return RateLimited(
                f"{e.provider} is rate-limiting requests{wait}: wait a moment and try again, or check your quota"
                + (f" — {message}" if message else "")
            )
        detail = f": {message}" if message else ""
        if status >= 500:
            return ProviderResponseError(
                f"{e.provider} failed with HTTP {status} ({_attempts(self.retry)}){detail}; try again later", status
            )
        return ProviderResponseError(f"{e.provider} refused the request (HTTP {status}){detail}", status)


def _attempts(retry: RetryPolicy) -> str:
    count = retry.max_retries + 1
    return f"{count} attempt{'s' if count != 1 else ''}"


def _error_message(text: str, limit: int = 200) -> str:
    """The human message inside a provider's error body, on one line."""
    message = text
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        inner = data.get("error", data)
        if isinstance(inner, dict):
            message = str(inner.get("message") or inner.get("code") or inner)
        elif isinstance(inner, str):
            message = inner
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def iter_sse(response: httpx.Response) -> Iterator[tuple[str, str]]:
    """(event, data) pairs of a server-sent event stream (httpx-sse; comments and pings skipped)."""
    from httpx_sse import EventSource

    for event in EventSource(response).iter_sse():
        if event.data:
            yield event.event, event.data


def iter_ndjson(response: httpx.Response) -> Iterator[Any]:
    for line in response.iter_lines():
        if line.strip():
            yield json.loads(line)
