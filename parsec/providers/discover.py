"""Local model servers running on this machine, and a one-token check of the one in use.

`find_local_servers` asks the usual local ports at once, with short timeouts: Ollama's `/api/tags`
on 11434, and `/v1/models` where OpenAI-compatible servers listen by default (llama.cpp's
llama-server 8080, llama-cpp-python's server and vLLM 8000, LM Studio 1234, KoboldCpp 5001,
text-generation-webui 5000). `parsec providers` lists what answers with the line that uses it.

`check_replies` is `parsec doctor`'s: one request for one token, then one tiny structured request
that finds (and remembers) the structured-output mode the server accepts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ..errors import ProviderError
from ..models.chat import ChatMessage
from ._httpx import httpx

if TYPE_CHECKING:
    from .provider import Provider

OLLAMA_PORTS = (11434,)
OPENAI_PORTS = (8080, 8000, 1234, 5001, 5000)
PROBE_TIMEOUT_S = 0.5


@dataclass(frozen=True)
class LocalServer:
    kind: str  # "ollama" or "openai" (OpenAI-compatible)
    base_url: str  # as Parsec's variables take it: Ollama's root, an OpenAI server's /v1
    models: tuple[str, ...]

    @property
    def how_to_use(self) -> str:
        model = self.models[0] if self.models else "MODEL"
        if self.kind == "ollama":
            return f"export OLLAMA_HOST={self.base_url} PARSEC_MODEL={model}"
        return f"export OPENAI_BASE_URL={self.base_url} PARSEC_MODEL={model}"


def find_local_servers(
    host: str = "127.0.0.1",
    ollama_ports: tuple[int, ...] = OLLAMA_PORTS,
    openai_ports: tuple[int, ...] = OPENAI_PORTS,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> list[LocalServer]:
    """The servers that answer, Ollama first, in port order. Nothing answering is no error."""
    probes = [("ollama", f"http://{host}:{port}") for port in ollama_ports]
    probes += [("openai", f"http://{host}:{port}/v1") for port in openai_ports]
    with (
        httpx.Client(timeout=timeout_s, trust_env=False, follow_redirects=False) as client,
        ThreadPoolExecutor(max_workers=len(probes) or 1) as pool,
    ):
        found = list(pool.map(lambda probe: _probe(client, *probe), probes))
    return [server for server in found if server is not None]


def _probe(client: httpx.Client, kind: str, base_url: str) -> LocalServer | None:
    url = f"{base_url}/api/tags" if kind == "ollama" else f"{base_url}/models"
    try:
        response = client.get(url)
        data = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if kind == "ollama" and isinstance(data.get("models"), list):
        names = [m.get("name", "") for m in data["models"] if isinstance(m, dict)]
    elif kind == "openai" and isinstance(data.get("data"), list):
        names = [m.get("id", "") for m in data["data"] if isinstance(m, dict)]
    else:
        return None  # something else listens there
    return LocalServer(kind, base_url, tuple(name for name in names if name))


class _Ready(BaseModel):
    ready: bool


@dataclass(frozen=True)
class ReplyCheck:
    answered: bool
    mode: str  # the structured-output mode the server accepted ("" when it did not answer)
    detail: str  # one line


def check_replies(provider: Provider) -> ReplyCheck:
    """One request for one token, then a tiny structured one: which mode the server accepts."""
    ask = [ChatMessage(role="user", content="Reply with the word OK.")]
    try:
        provider.chat(ask, purpose="doctor", max_tokens=1)
    except ProviderError as err:
        return ReplyCheck(False, "", f"a one-token request failed: {err}")
    question = [ChatMessage(role="user", content='Are you ready? Answer {"ready": true}.')]
    try:
        provider.structured(question, _Ready, purpose="doctor", max_tokens=16)
        fits = "and its reply fit the schema"
    except ProviderError as err:
        if "refuses structured output" in str(err):  # a forced mode the server does not speak
            return ReplyCheck(True, "", f"answers one token; structured output failed: {err}")
        fits = f"but its reply did not fit ({type(err).__name__})"  # a small model may write nonsense
    mode = getattr(provider, "structured_mode", "?")
    return ReplyCheck(True, mode, f"answers one token; structured output '{mode}' accepted, {fits}")
