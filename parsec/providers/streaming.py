"""Reading one streamed reply: text deltas under the first-token and idle deadlines (watch.py),
usage reported when it ends (also when it breaks off), a server that ignores `stream` read as one
JSON body. Mixed into providers.base.Provider, whose adapters parse their own stream format."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from ..errors import ProviderError
from ..models.chat import ChatMessage, TokenUsage
from ._httpx import httpx
from .provider_errors import ProviderResponseError, ProviderTimeout
from .watch import TokenWatch


class StreamedReplies:
    # What the provider supplies (providers.base.Provider).
    name: ClassVar[str]
    model: str
    _transport: Any
    _first_token_s: float
    _idle_s: float
    _url: Callable[..., str]
    _headers: Callable[[], dict[str, str]]
    _parse_reply: Callable[[Any], tuple[str, TokenUsage | None]]
    _parse_stream: Callable[[httpx.Response], Iterator[Any]]
    _report: Callable[[str, TokenUsage], None]

    def _streamed(
        self,
        checked: list[ChatMessage],
        body: dict[str, Any],
        *,
        purpose: str,
        refused: Callable[[int, str], bool] | None = None,
        max_chars: int | None = None,
        usage_out: list[TokenUsage] | None = None,
    ) -> Iterator[str]:
        """Text deltas of one streamed request, under the first-token and idle deadlines; the
        usage is reported (and appended to `usage_out`) when it ends, also when it breaks off."""
        usage: TokenUsage | None = None
        parts: list[str] = []
        received = 0
        watch: TokenWatch | None = None
        try:
            with self._transport.stream(self._url(stream=True), self._headers(), body, refused=refused) as response:
                watch = TokenWatch(response, first_token_s=self._first_token_s, idle_s=self._idle_s)
                items = self._stream_items(response)
                while not (watch.expired or (max_chars is not None and received > max_chars)):
                    try:
                        item = next(items)
                    except StopIteration:
                        break
                    except (ValueError, KeyError, TypeError, AttributeError) as err:
                        raise ProviderResponseError(
                            f"{self.name} sent a stream Parsec cannot read ({type(err).__name__})"
                        ) from None
                    if isinstance(item, TokenUsage):
                        usage = item
                    elif item:
                        watch.token()
                        parts.append(item)
                        received += len(item)
                        yield item
        except ProviderError:
            if watch is not None and watch.expired:
                raise self._stalled(watch.expired) from None
            raise
        finally:
            if watch is not None:
                watch.close()
                # Also when the reader stops early or the stream breaks: the tokens were spent anyway.
                usage = usage or estimated_usage(checked, "".join(parts))
                self._report(purpose, usage)
                if usage_out is not None:
                    usage_out.append(usage)
        if watch is not None and watch.expired:
            raise self._stalled(watch.expired)

    def _stream_items(self, response: httpx.Response) -> Iterator[str | TokenUsage]:
        """The stream's items; a server that ignored `stream` and answered in one JSON body is read as one."""
        if "json" in response.headers.get("content-type", "") and "ndjson" not in response.headers["content-type"]:
            text, usage = self._parse_reply(json.loads(response.read()))
            yield text
            if usage is not None:
                yield usage
            return
        yield from self._parse_stream(response)

    def _stalled(self, which: str) -> ProviderTimeout:
        if which == "idle":
            return ProviderTimeout(
                f"{self.name} ({self.model}) stopped sending for {self._idle_s:g}s in the middle of its reply: "
                f"try again, or raise [llm] idle_timeout_s"
            )
        return ProviderTimeout(
            f"{self.name} ({self.model}) sent no token within {self._first_token_s:g}s: the server may be busy "
            f"or slow on this prompt; try again, or raise [llm] first_token_timeout_s"
        )


def estimated_usage(messages: list[ChatMessage], reply: str) -> TokenUsage:
    """When a server reports no usage (some OpenAI-compatible ones): about four characters a token."""
    sent = sum(len(m.content) for m in messages)
    return TokenUsage(input_tokens=(sent + 3) // 4, output_tokens=(len(reply) + 3) // 4)
