"""The provider-neutral interface every adapter implements, and the behaviour they share:
message checking, usage accounting, streaming, and structured output with one repair request.

An adapter only says how its wire format looks: `_url`, `_headers`, `_body`, `_parse_reply`,
`_parse_stream` and, for the structured-output modes it speaks (dialects.LADDERS), `_with_schema`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from ..models.chat import ChatMessage, TokenUsage
from ._httpx import httpx
from .dialects import LADDERS, PROMPT, Mode, ModeMemory, find_mode, refuses
from .json_reply import Check, parse_reply
from .keys import Secret, redact
from .provider_errors import (
    ProviderResponseError,
    StructuredModeRefused,
    StructuredOutputError,
    UnknownMessagePart,
)
from .streaming import StreamedReplies, estimated_usage
from .transport import Endpoint, RetryPolicy, Transport

__all__ = [
    "ChatResult",
    "ModelLimits",
    "Provider",
    "ProviderOptions",
    "StructuredOutputError",
    "UsageEvent",
    "UnknownMessagePart",
]

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("parsec.providers")

# Every request says how long the reply may be: a small local model left without a limit may
# never stop, and an abandoned request keeps the server busy for the next one.
STRUCTURED_MAX_TOKENS = 1024  # a plan or a step's candidates fit well within this
CHAT_MAX_TOKENS = 2048


@dataclass(frozen=True)
class ModelLimits:
    context_window: int  # tokens the model accepts, prompt and reply together
    max_output_tokens: int  # tokens it may write in one reply


@dataclass(frozen=True)
class ChatResult:
    text: str
    usage: TokenUsage
    model: str
    provider: str
    # What went out for this answer, as the adapter received it: masked, with the JSON instructions
    # (set by `structured`, for callers that keep a record of each exchange).
    sent: tuple[ChatMessage, ...] = ()


@dataclass(frozen=True)
class UsageEvent:
    """Reported after every successful call, for the store's `record_llm_usage`."""

    provider: str
    model: str
    purpose: str
    input_tokens: int
    output_tokens: int


@dataclass
class ProviderOptions:
    """Everything an adapter needs besides its wire format; `resolve_provider` fills it from config."""

    model: str
    base_url: str
    limits: ModelLimits
    api_key: Secret | None = None
    key_hint: str = ""  # where the key comes from, for error messages ("OPENAI_API_KEY")
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 120.0
    retry: RetryPolicy | None = None
    temperature: float | None = None
    on_usage: Callable[[UsageEvent], None] | None = None
    http_transport: httpx.BaseTransport | None = None  # tests may inject one; normally None
    # A last line of defence: whatever assembled the prompt should have masked secrets already.
    mask_secrets: bool = True
    extra_secret_patterns: tuple[str, ...] = ()
    first_token_timeout_s: float = 120.0  # a streamed reply's first token (a slow CPU reads the prompt first)
    idle_timeout_s: float = 30.0  # the longest pause between tokens of a streamed reply
    structured_output: str = "auto"  # [llm] structured_output: auto, or one mode of the provider's
    mode_memory: ModeMemory | None = None  # where the mode a server accepted is remembered


# A stream yields text, then (once, at the end) the usage it learned.
StreamItem = str | TokenUsage


class Provider(StreamedReplies, ABC):
    name: ClassVar[str]

    def __init__(self, options: ProviderOptions) -> None:
        self.model = options.model
        self.base_url = options.base_url.rstrip("/")
        self.limits = options.limits
        self.temperature = options.temperature
        self._api_key = options.api_key
        self._modes = LADDERS.get(self.name, (PROMPT,))
        self._forced_mode = options.structured_output != "auto"
        self._mode_memory = options.mode_memory or ModeMemory(None)
        if self._forced_mode:
            self._mode = find_mode(self.name, options.structured_output)
        else:
            remembered = self._mode_memory.get(self.name, self.base_url)
            self._mode = next((m for m in self._modes if m.name == remembered), self._modes[0])
        self._mask_secrets = options.mask_secrets
        self._extra_secret_patterns = options.extra_secret_patterns
        self._secret_values: Any = None  # a session's remembered values (privacy.memory.SecretValues)
        self._on_usage = options.on_usage
        self._first_token_s = options.first_token_timeout_s
        self._idle_s = options.idle_timeout_s
        endpoint = Endpoint(self.name, self.base_url, self.model, options.key_hint or "[llm] api_key", options.api_key)
        self._transport = Transport(
            endpoint,
            connect_timeout_s=options.connect_timeout_s,
            read_timeout_s=options.read_timeout_s,
            retry=options.retry or RetryPolicy(),
            http_transport=options.http_transport,
            outbound=self._outbound,
            stream_read_timeout_s=max(options.first_token_timeout_s, options.idle_timeout_s) + 5,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def api_key(self) -> Secret | None:
        """The key in use (a Secret: never shown), e.g. for `scrubbed_environment(env, secrets=[...])`."""
        return self._api_key

    # -- the public interface -------------------------------------------------------------------
    def chat(
        self, messages: Sequence[ChatMessage], *, purpose: str = "chat", max_tokens: int | None = None
    ) -> ChatResult:
        return self._complete(
            self._prepared(messages),
            purpose=purpose,
            max_tokens=self._reply_limit(max_tokens, CHAT_MAX_TOKENS),
        )

    def stream(
        self, messages: Sequence[ChatMessage], *, purpose: str = "chat", max_tokens: int | None = None
    ) -> Iterator[str]:
        """Text deltas as they arrive; usage is reported when the stream ends."""
        checked = self._prepared(messages)
        body = self._body(checked, max_tokens=self._reply_limit(max_tokens, CHAT_MAX_TOKENS), stream=True)
        yield from self._streamed(checked, body, purpose=purpose)

    def structured(
        self,
        messages: Sequence[ChatMessage],
        output_model: type[T],
        *,
        purpose: str = "structured",
        max_tokens: int | None = None,
        check: Check | None = None,
        notice: Callable[[str], None] | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[T, ChatResult]:
        """A validated `output_model` instance that `check` finds meaningful; one repair request
        quoting what was wrong (and `notice(reason)` told, for the user), then an error. The reply
        streams: `on_text(text so far)` is called as it grows (the plan is shown as it arrives)."""
        schema = output_model.model_json_schema()
        checked = self._prepared(messages)
        wanted = (output_model.__name__, schema)
        limit = self._reply_limit(max_tokens, STRUCTURED_MAX_TOKENS)
        first, request = self._ask_structured(checked, wanted, purpose=purpose, max_tokens=limit, on_text=on_text)
        value, problem = parse_reply(first.text, output_model, check)
        if value is not None:
            return value, dataclasses.replace(first, sent=tuple(request))
        if notice is not None:
            notice(problem)
        repair = [
            *request,
            ChatMessage(role="assistant", content=first.text),
            ChatMessage(
                role="user",
                content=(
                    f"That reply is not valid: {problem}. Reply again with only the corrected JSON object "
                    f"matching the schema, no prose and no code fences."
                ),
            ),
        ]
        second = self._structured_call(repair, purpose=purpose, max_tokens=limit, schema=wanted, on_text=on_text)
        value, problem = parse_reply(second.text, output_model, check)
        total = TokenUsage(
            input_tokens=first.usage.input_tokens + second.usage.input_tokens,
            output_tokens=first.usage.output_tokens + second.usage.output_tokens,
        )
        result = ChatResult(text=second.text, usage=total, model=second.model, provider=self.name, sent=tuple(repair))
        if value is None:
            error = StructuredOutputError(
                redact(
                    f"{self.name} ({self.model}) did not return a valid {output_model.__name__} even after a repair "
                    f"request: {problem}",
                    self._api_key,
                )
            )
            error.reply = redact(second.text, self._api_key)
            raise error
        return value, result

    def reply_format_text(self, output_model: type[BaseModel]) -> str:
        """What this adapter's `structured` adds to a request for `output_model` (see the
        module-level `reply_format_text`); an adapter that adds more says so here."""
        return reply_format_text(output_model)

    def on_next_request(self, callback: Callable[[], None]) -> None:
        """Call `callback` once as the next HTTP request goes out: work started then runs while
        the model thinks."""
        self._transport.on_next_request(callback)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Provider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def list_models(self) -> list[str]:
        """The models the endpoint serves (also a cheap "does it answer" probe)."""
        return self._model_names(self._transport.get_json(self._models_url(), self._headers()))

    def use_secret_values(self, values: object) -> None:
        """Also mask, at the gate, the values a session has seen as secrets (privacy.memory)."""
        self._secret_values = values

    @property
    def structured_mode(self) -> str:
        """The structured-output mode requests go out in now (the server's accepted one, once known)."""
        return self._mode.name

    # -- shared machinery -------------------------------------------------------------------------
    def _reply_limit(self, asked: int | None, default: int) -> int:
        return asked or min(self.limits.max_output_tokens, default)

    def _ask_structured(
        self,
        checked: list[ChatMessage],
        wanted: tuple[str, dict[str, Any]],
        *,
        purpose: str,
        max_tokens: int,
        on_text: Callable[[str], None] | None,
    ) -> tuple[ChatResult, list[ChatMessage]]:
        """The first answer, in the first mode the server accepts: a refusal that names the mode's
        field moves to the next mode at once, and the server's choice is remembered."""
        while True:
            mode = self._mode
            request = _with_json_instructions(checked, wanted[1], include_schema=not mode.enforced)
            try:
                answer = self._structured_call(
                    request, purpose=purpose, max_tokens=max_tokens, schema=wanted, on_text=on_text
                )
                return answer, request
            except StructuredModeRefused as err:
                if self._forced_mode:
                    raise ProviderResponseError(
                        f"{self.name} at {self.base_url} refuses structured output '{mode.name}' "
                        f"([llm] structured_output): set it to auto — {err}",
                        err.status,
                    ) from None
                self._mode = self._modes[self._modes.index(mode) + 1]
                log.info("%s at %s refused %s; using %s", self.name, self.base_url, mode.name, self._mode.name)
                self._mode_memory.set(self.name, self.base_url, self._mode.name)

    def _outbound(self, text: str) -> str:
        """The gate: every string of every request body passes here, in Transport, right before
        the HTTP request is built (whatever assembled it should have masked secrets already)."""
        from ..privacy.masking import mask

        if self._mask_secrets or self._extra_secret_patterns:
            text = mask(text, self._extra_secret_patterns, builtin=self._mask_secrets)
        if self._secret_values is not None:
            text = self._secret_values.mask(text)
        return text

    def _prepared(self, messages: Sequence[ChatMessage]) -> list[ChatMessage]:
        """Checked messages; nothing is dropped silently (masking happens at the gate, _outbound)."""
        return _checked(messages)

    def _structured_call(
        self,
        messages: list[ChatMessage],
        *,
        purpose: str,
        max_tokens: int,
        schema: tuple[str, dict[str, Any]],
        on_text: Callable[[str], None] | None,
    ) -> ChatResult:
        """One streamed request in the current mode. A server that ignores the length limit is
        cut off after far more text than it allows (the truncated end is mended by the parse)."""
        body = self._body(messages, max_tokens=max_tokens, stream=True)
        mode = self._mode
        refused = None
        if mode is not PROMPT:
            body = self._with_schema(body, mode, *schema)
            refused = functools.partial(refuses, mode)
        usage: list[TokenUsage] = []
        text = ""
        for delta in self._streamed(
            messages, body, purpose=purpose, refused=refused, max_chars=max_tokens * 8, usage_out=usage
        ):
            text += delta
            if on_text is not None:
                on_text(text)
        return ChatResult(text=text, usage=usage[0], model=self.model, provider=self.name)

    def _complete(self, messages: list[ChatMessage], *, purpose: str, max_tokens: int | None) -> ChatResult:
        body = self._body(messages, max_tokens=max_tokens, stream=False)
        data = self._transport.post_json(self._url(stream=False), self._headers(), body)
        try:
            text, usage = self._parse_reply(data)
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            raise ProviderResponseError(
                f"{self.name} sent a reply Parsec cannot read ({type(err).__name__}: {err}); "
                f"is [llm] base_url a {self.name}-compatible endpoint?"
            ) from None
        usage = usage or estimated_usage(messages, text)
        self._report(purpose, usage)
        return ChatResult(text=text, usage=usage, model=self.model, provider=self.name)

    def _report(self, purpose: str, usage: TokenUsage) -> None:
        if self._on_usage is None:
            return
        try:
            self._on_usage(UsageEvent(self.name, self.model, purpose, usage.input_tokens, usage.output_tokens))
        except Exception:  # accounting must never cost the user an answer they already paid for
            log.warning("recording LLM usage failed", exc_info=True)

    # -- what each wire format defines ------------------------------------------------------------
    @abstractmethod
    def _url(self, *, stream: bool) -> str: ...

    @abstractmethod
    def _headers(self) -> dict[str, str]: ...

    @abstractmethod
    def _body(self, messages: list[ChatMessage], *, max_tokens: int | None, stream: bool) -> dict[str, Any]: ...

    @abstractmethod
    def _parse_reply(self, data: dict[str, Any]) -> tuple[str, TokenUsage | None]: ...

    @abstractmethod
    def _parse_stream(self, response: httpx.Response) -> Iterator[StreamItem]: ...

    @abstractmethod
    def _models_url(self) -> str: ...

    @abstractmethod
    def _model_names(self, data: dict[str, Any]) -> list[str]: ...

    def _with_schema(self, body: dict[str, Any], mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """The body asking for JSON fitting `schema` in `mode` (one of the provider's LADDERS)."""
        return body


def _checked(messages: Sequence[Any]) -> list[ChatMessage]:
    """Messages as ChatMessage; anything an adapter could not send is an error, never dropped."""
    if not messages:
        raise UnknownMessagePart("a chat request needs at least one message")
    out: list[ChatMessage] = []
    for index, message in enumerate(messages):
        if isinstance(message, ChatMessage):
            out.append(message)
            continue
        try:
            out.append(ChatMessage.model_validate(message))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            raise UnknownMessagePart(
                f"message {index}: {where}: {first['msg'].lower()} — a message is a role "
                f"(system, user, assistant) and text content"
            ) from None
    return out


def system_and_rest(messages: list[ChatMessage]) -> tuple[str, list[ChatMessage]]:
    """For providers that take the system prompt apart: every system message, joined, and the rest."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    return system, [m for m in messages if m.role != "system"]


def _with_json_instructions(
    messages: list[ChatMessage], schema: dict[str, Any], *, include_schema: bool
) -> list[ChatMessage]:
    instruction = _json_instruction(schema, include_schema=include_schema)
    if messages[0].role == "system":
        return [ChatMessage(role="system", content=f"{messages[0].content}\n\n{instruction}"), *messages[1:]]
    return [ChatMessage(role="system", content=instruction), *messages]


@functools.cache  # a model's schema does not change; generating it costs pydantic ~10-90 ms
def reply_format_text(output_model: type[BaseModel]) -> str:
    """What a structured request adds for `output_model`: the JSON instruction and the schema (in
    the prompt, or in the request's own field: the model reads it either way). Whoever budgets a
    request's tokens (the context engine) leaves room for it."""
    return _json_instruction(output_model.model_json_schema(), include_schema=True)


def _json_instruction(schema: dict[str, Any], *, include_schema: bool) -> str:
    instruction = "Reply with only one JSON object, no prose and no code fences."
    if include_schema:
        instruction += f" It must match this JSON schema:\n{json.dumps(schema, separators=(',', ':'))}"
    return instruction
