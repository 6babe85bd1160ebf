"""Choosing a provider: command-line flag ← PARSEC_PROVIDER / PARSEC_MODEL ← config [llm] ←
auto-detection (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY / GOOGLE_API_KEY, then
OPENAI_BASE_URL alone (a local OpenAI-compatible server), OLLAMA_HOST, then an Ollama answering on
localhost:11434).

PARSEC_PROVIDER / PARSEC_MODEL are already folded into `settings.llm` by the config loader, with
precedence over the config files. OPENAI_BASE_URL, ANTHROPIC_BASE_URL and OLLAMA_HOST are honoured
as the official clients honour them; `[llm] base_url` wins over them.

`[llm] api_key` and `[llm] base_url` belong to the provider the config names (`[llm] provider`, or
the one its model or base_url implies): another provider, chosen by a flag or probed by `parsec
providers`, never gets them and uses its own variables instead. Every base URL is checked before
use, so a malformed one is an `InvalidEndpoint` that names the variable it came from.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import paths
from ..config import LoadedConfig, Settings, private_file_problem
from ..errors import ConfigError
from .dialects import ModeMemory, default_memory_path, find_mode
from .keys import KEY_VARIABLES, Secret, key_from_environment, redact
from .models_meta import model_limits
from .provider import Provider, ProviderOptions, UsageEvent
from .provider_errors import InvalidEndpoint, NoProviderConfigured, ProviderAuthError
from .registry import SPECS
from .transport import BASE_URL_VARIABLES, URL_EXAMPLES, RetryPolicy

if TYPE_CHECKING:
    import httpx

PROVIDERS = tuple(SPECS)
OLLAMA_PROBE_TIMEOUT_S = 0.3
_KEY_WITHOUT_PROVIDER = (
    "[llm] api_key is set but [llm] provider is empty: set provider to openai, anthropic, gemini or ollama"
)

HOW_TO_CONFIGURE = (
    "no LLM provider configured: export OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, OPENAI_BASE_URL "
    "for a local OpenAI-compatible server, start Ollama (`ollama serve`) or set OLLAMA_HOST, or set [llm] "
    "provider and model in ~/.config/parsec/config.toml"
)

# A model name says which provider serves it when none is named.
_MODEL_PREFIXES = {prefix: name for name, spec in SPECS.items() for prefix in spec.model_prefixes}


@dataclass(frozen=True)
class Choice:
    """What was chosen and why (for `parsec providers` and error messages)."""

    provider: str
    model: str
    base_url: str
    api_key: Secret | None
    key_hint: str  # where the key came from or should come from
    reason: str  # "flag", "PARSEC_PROVIDER / [llm]", "OPENAI_API_KEY is set", ...


def resolve_provider(
    settings: Settings | LoadedConfig,
    *,
    provider: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    on_usage: Callable[[UsageEvent], None] | None = None,
    retry: RetryPolicy | None = None,
) -> Provider:
    """The provider to talk to, ready to use. Raises NoProviderConfigured (one line) if there is none."""
    choice = choose(settings, provider=provider, model=model, env=env)
    return build_provider(choice, _settings(settings), on_usage=on_usage, retry=retry)


def choose(
    settings: Settings | LoadedConfig,
    *,
    provider: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    probe_ollama: bool = True,
) -> Choice:
    env = os.environ if env is None else env
    llm = _settings(settings).llm
    name = (provider or llm.provider or "").strip().lower()
    model = (model or llm.model or "").strip()
    reason = "--provider" if provider else ("PARSEC_PROVIDER / [llm] provider" if name else "")
    if not name and model:
        name = provider_for_model(model)
        reason = reason or f"model {model}"
    if not name and llm.api_key:
        raise ConfigError(_KEY_WITHOUT_PROVIDER)
    if not name and llm.base_url:
        name, reason = "openai", "[llm] base_url (an OpenAI-compatible server)"
    ollama_models: list[str] | None = None
    if not name:
        name, reason, ollama_models = _auto_detect(env, probe_ollama=probe_ollama)
    if name not in PROVIDERS:
        raise ConfigError(f"unknown LLM provider '{name}': use one of {', '.join(PROVIDERS)}")
    owner = _config_owner(settings, env)
    base_url = _base_url(name, settings, env, owns_config=name == owner)
    key, key_hint = _api_key(name, settings, env, owner)
    if name == "ollama" and not model and ollama_models is None and probe_ollama:
        ollama_models = probe_ollama_models(base_url)  # use a model that is pulled, not a guess
    if not model:
        model = _default_model(name, ollama_models)
    return Choice(name, model, base_url, key, key_hint, reason)


def build_provider(
    choice: Choice,
    settings: Settings,
    *,
    on_usage: Callable[[UsageEvent], None] | None = None,
    retry: RetryPolicy | None = None,
    http_transport: httpx.BaseTransport | None = None,
) -> Provider:
    llm = settings.llm
    if choice.api_key is None and needs_key(choice):
        raise ProviderAuthError(f"{choice.provider} needs an API key: export {choice.key_hint}")
    if llm.structured_output != "auto":
        try:
            find_mode(choice.provider, llm.structured_output)
        except ValueError as err:
            raise ConfigError(f"[llm] structured_output: {err}") from None
    options = ProviderOptions(
        model=choice.model,
        base_url=choice.base_url,
        limits=model_limits(choice.provider, choice.model, llm.models),
        api_key=choice.api_key,
        key_hint=choice.key_hint,
        connect_timeout_s=llm.connect_timeout_s,
        read_timeout_s=llm.read_timeout_s,
        first_token_timeout_s=llm.first_token_timeout_s,
        idle_timeout_s=llm.idle_timeout_s,
        retry=retry or RetryPolicy(max_retries=llm.max_retries),
        temperature=llm.temperature,
        on_usage=on_usage,
        http_transport=http_transport,
        mask_secrets=settings.privacy.mask_secrets,
        extra_secret_patterns=tuple(settings.privacy.extra_patterns),
        structured_output=llm.structured_output,
        mode_memory=ModeMemory(default_memory_path()),
    )
    return _provider_class(choice.provider)(options)


# -- the pieces -------------------------------------------------------------------------------------
def _settings(settings: Settings | LoadedConfig) -> Settings:
    return settings.settings if isinstance(settings, LoadedConfig) else settings


def _auto_detect(env: Mapping[str, str], *, probe_ollama: bool) -> tuple[str, str, list[str] | None]:
    for name in ("openai", "anthropic", "gemini"):
        key, variable = key_from_environment(name, env)
        if key:
            return name, f"{variable} is set", None
    # A local OpenAI-compatible server (llama.cpp, vLLM, LM Studio) needs no key: its URL is enough.
    if env.get(BASE_URL_VARIABLES["openai"], "").strip():
        return "openai", f"{BASE_URL_VARIABLES['openai']} is set (an OpenAI-compatible server)", None
    if env.get(BASE_URL_VARIABLES["ollama"], "").strip():  # named on purpose: used even if it is down now
        return "ollama", f"{BASE_URL_VARIABLES['ollama']} is set", None
    if probe_ollama:
        url = _base_url_from_env("ollama", env) or _default_base_url("ollama")  # a malformed OLLAMA_HOST says so
        models = probe_ollama_models(url)
        if models is not None:
            return "ollama", f"Ollama answers at {url}", models
    raise NoProviderConfigured(HOW_TO_CONFIGURE)


def probe_ollama_models(base_url: str, timeout_s: float = OLLAMA_PROBE_TIMEOUT_S) -> list[str] | None:
    """The models of an Ollama answering at `base_url`, or None when nothing answers quickly."""
    from ._httpx import httpx

    try:
        response = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=timeout_s, trust_env=False)
        if response.status_code != 200:
            return None
        return [item["name"] for item in response.json().get("models", [])]
    except (httpx.HTTPError, httpx.InvalidURL, ValueError, KeyError, TypeError, AttributeError):
        return None


def _base_url(name: str, settings: Settings | LoadedConfig, env: Mapping[str, str], *, owns_config: bool) -> str:
    """[llm] base_url (only for the provider the config names) ← the provider's variable ← its default."""
    configured = _settings(settings).llm.base_url.strip()
    if configured and owns_config:
        return checked_url(configured, _config_source(settings, "llm.base_url", "[llm] base_url"), URL_EXAMPLES[name])
    return _base_url_from_env(name, env) or _default_base_url(name)


def _base_url_from_env(name: str, env: Mapping[str, str]) -> str:
    """The provider's base URL from its variable ("" when unset); InvalidEndpoint when malformed."""
    variable = BASE_URL_VARIABLES[name]
    raw = env.get(variable, "").strip()
    if not raw:
        return ""
    if name == "ollama":
        return checked_url(
            ollama_host_url(raw),
            variable,
            "localhost:11434 or http://gpu-box:11434",
            shown=raw,
            what="a host[:port] or http(s) URL",
        )
    return checked_url(raw, variable, URL_EXAMPLES[name])


def checked_url(url: str, source: str, example: str, *, shown: str | None = None, what: str = "an http(s) URL") -> str:
    """`url` if it is an http(s) URL with a host (and a numeric port, if any); else InvalidEndpoint,
    one line naming `source` (the variable or config key it came from) and an `example` to follow."""
    problem = _url_problem(url)
    if problem is not None:
        value = _printable(url if shown is None else shown)
        raise InvalidEndpoint(f"{source} '{value}' is not {what}{problem}: set it like {example}")
    return url


def _url_problem(url: str) -> str | None:
    """None for a usable URL, else what is wrong with it ("" when it simply is not an http(s) URL)."""
    from urllib.parse import urlsplit

    if any(c.isspace() or not c.isprintable() for c in url):
        return " (it holds a space or a control character)"
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    if not parts.hostname:
        return " (no host name)"
    try:
        port = parts.port  # ValueError for a port that is not a number from 0 to 65535
    except ValueError:
        port = 0
    if port == 0:
        return " (the port must be a number from 1 to 65535)"
    from ._httpx import httpx  # what the adapters will use must accept it too

    try:
        httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return ""
    return None


def _printable(value: str, limit: int = 120) -> str:
    """A value for a one-line message: keys masked, control characters escaped, long ones cut."""
    text = redact(value)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _config_source(settings: Settings | LoadedConfig, dotted: str, default: str) -> str:
    """How to name a config value in a message: its variable (PARSEC_LLM_BASE_URL) when it came from one."""
    if isinstance(settings, LoadedConfig):
        origin = settings.source_of(dotted)
        if origin.startswith("environment "):
            return origin[len("environment ") :]
        if origin not in ("default", "command line"):
            return f"{default} in {origin}"
    return default


def ollama_host_url(host: str) -> str:
    """OLLAMA_HOST as the ollama client reads it: `host`, `host:port`, or a URL; 0.0.0.0 means here."""
    if not host:
        return ""
    scheme, sep, rest = host.partition("://")
    if not sep:
        scheme, rest = "http", host
    hostport, _, path = rest.partition("/")
    if hostport.startswith("["):  # IPv6 literal
        name, _, port = hostport[1:].partition("]")
        port = port.lstrip(":")
        name = f"[{name}]"
    else:
        name, _, port = hostport.partition(":")
    if name in ("", "0.0.0.0"):
        name = "127.0.0.1"
    port = port or ("443" if scheme == "https" else "11434")
    return f"{scheme}://{name}:{port}" + (f"/{path.rstrip('/')}" if path.strip("/") else "")


def _default_base_url(name: str) -> str:
    return SPECS[name].default_base_url


def _default_model(name: str, ollama_models: list[str] | None) -> str:
    default = SPECS[name].default_model
    if name == "ollama" and ollama_models:
        return next((m for m in ollama_models if m.split(":")[0] == default), ollama_models[0])
    return default


def _config_owner(settings: Settings | LoadedConfig, env: Mapping[str, str]) -> str:
    """The provider `[llm] api_key` and `[llm] base_url` belong to ("" when the config names none).

    A key written in a file belongs to what that file says, never to the effective settings: a
    file with `model = "gpt-4o"` and a key, run with PARSEC_PROVIDER=anthropic, must not hand the
    OpenAI key to Anthropic. Otherwise (no key, a key from PARSEC_LLM_API_KEY, or a file that
    names no provider, model or base_url) it is the effective settings' provider.
    """
    llm = _settings(settings).llm
    effective = _owner_named_by({"provider": llm.provider, "model": llm.model, "base_url": llm.base_url})
    if llm.api_key.strip():
        holders = _files_holding_key(settings, env)
        if holders:  # user file first, project file last: the last wins
            return _owner_named_by(_llm_table(holders[-1])) or effective
    return effective


def provider_for_model(model: str) -> str:
    """The provider a model name implies (`gpt-4o` → openai), or ""."""
    return next((p for prefix, p in _MODEL_PREFIXES.items() if model.startswith(prefix)), "") if model else ""


def _owner_named_by(llm: Mapping[str, Any]) -> str:
    """[llm] provider, else the provider its model implies, else openai for a bare base_url."""

    def text(key: str) -> str:
        value = llm.get(key, "")
        return value.strip() if isinstance(value, str) else ""

    return text("provider").lower() or provider_for_model(text("model")) or ("openai" if text("base_url") else "")


def _llm_table(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle).get("llm") or {}
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return {}
    return table if isinstance(table, dict) else {}


def _api_key(
    name: str, settings: Settings | LoadedConfig, env: Mapping[str, str], owner: str
) -> tuple[Secret | None, str]:
    """[llm] api_key (only from a private file) for `owner`, the provider the config names; else
    the provider's own variable. A key in the config never goes to another provider."""
    configured = _settings(settings).llm.api_key.strip()
    if configured and not owner:
        raise ConfigError(_KEY_WITHOUT_PROVIDER)
    if configured and name == owner:
        for path in _files_holding_key(settings, env):
            problem = private_file_problem(path)
            if problem:
                raise ConfigError(f"{problem}; refusing to use the key until then")
        return Secret(configured), "[llm] api_key"
    key, variable = key_from_environment(name, env)
    variables = KEY_VARIABLES.get(name, ())
    return key, variable or " or ".join(variables) or "[llm] api_key"


def _files_holding_key(settings: Settings | LoadedConfig, env: Mapping[str, str]) -> list[Path]:
    """The config files that set [llm] api_key."""
    if isinstance(settings, LoadedConfig):
        origin = settings.source_of("llm.api_key")
        return [path for path in settings.files if str(path) == origin]
    explicit = env.get("PARSEC_CONFIG")
    candidates = [Path(explicit) if explicit else paths.user_config_file()]  # never from a project file
    found = []
    for path in candidates:
        try:
            with path.open("rb") as handle:
                if "api_key" in (tomllib.load(handle).get("llm") or {}):
                    found.append(path)
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return found


def needs_key(choice: Choice) -> bool:
    """Whether this provider, at this base URL, cannot work without an API key."""
    if choice.provider == "ollama":
        return False
    if choice.provider == "openai":  # local OpenAI-compatible servers take none
        return choice.base_url.rstrip("/") == _default_base_url("openai")
    return True


def _provider_module(name: str):
    import importlib

    return importlib.import_module(f"parsec.providers.{name}")


def _provider_class(name: str) -> type[Provider]:
    return getattr(_provider_module(name), SPECS[name].adapter)
