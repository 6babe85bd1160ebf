"""Fixtures: a live stub LLM server and providers of each wire format pointed at it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # `tests.stubs` importable however pytest was started
    sys.path.insert(0, str(REPO))

from parsec.config import Settings  # noqa: E402
from parsec.providers.provider import Provider, UsageEvent  # noqa: E402
from parsec.providers.select import resolve_provider  # noqa: E402
from parsec.providers.transport import RetryPolicy  # noqa: E402
from tests.stubs.llm_server import LLMStub  # noqa: E402

KEY = "sk-test-Zq8VfR2mXk41pLsT9wYc"  # a fake key; tests assert it never leaks
PROVIDERS = ["openai", "anthropic", "gemini", "ollama"]


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch) -> None:
    """The structured-output mode each server accepted is remembered in the cache: per test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def stub() -> Iterator[LLMStub]:
    with LLMStub(api_key=KEY) as server:
        yield server


def stub_env(name: str, stub: LLMStub) -> dict[str, str]:
    """The environment a user would set to point `name` at the stub."""
    return {
        "openai": {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": stub.openai_base_url},
        "anthropic": {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": stub.url},
        "gemini": {"GEMINI_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": stub.url},
        "ollama": {"OLLAMA_HOST": stub.url},
    }[name]


class Sleeps(list):
    """Records backoff waits instead of sleeping, so retry tests are fast and exact."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def usage_events() -> list[UsageEvent]:
    return []


@pytest.fixture
def make_provider(stub: LLMStub, sleeps: Sleeps, usage_events: list[UsageEvent]) -> Iterator[Callable[..., Provider]]:
    made: list[Provider] = []

    def make(name: str, *, settings: Settings | None = None, max_retries: int = 2, **kwargs) -> Provider:
        provider = resolve_provider(
            settings or Settings(),
            provider=name,
            env=stub_env(name, stub),
            on_usage=usage_events.append,
            retry=RetryPolicy(max_retries=max_retries, sleep=sleeps),
            **kwargs,
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.close()
