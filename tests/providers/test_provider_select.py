"""Choosing a provider: flag ← PARSEC_PROVIDER/PARSEC_MODEL ← [llm] ← auto-detect; base URLs from
the environment; keys from the environment or a private config file; model metadata."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from parsec.config import ModelOverride, Settings, load_config
from parsec.errors import ConfigError
from parsec.models.chat import ChatMessage
from parsec.privacy.scrub import scrubbed_environment
from parsec.providers.keys import Secret, redact
from parsec.providers.models_meta import DEFAULT_LIMITS, model_limits
from parsec.providers.provider_errors import NoProviderConfigured, ProviderAuthError
from parsec.providers.select import choose, ollama_host_url, resolve_provider

from .conftest import KEY

NOTHING = {"OLLAMA_HOST": "127.0.0.1:9"}  # no keys, and no Ollama answering (port 9 is closed)


def test_a_base_url_or_ollama_host_alone_configures_a_provider():
    """Issue 14 item 10: a local OpenAI-compatible server needs no key; OLLAMA_HOST names Ollama."""
    local = choose(Settings(), env={"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})
    assert (local.provider, local.base_url, local.api_key) == ("openai", "http://127.0.0.1:8080/v1", None)
    ollama = choose(Settings(), env=NOTHING)
    assert (ollama.provider, ollama.base_url) == ("ollama", "http://127.0.0.1:9")


def _settings(tmp_path: Path, env: dict[str, str], toml: str = "", mode: int = 0o600):
    """What `load_settings()` would give with this environment and user config file."""
    config = tmp_path / "config.toml"
    config.write_text(toml)
    config.chmod(mode)
    return load_config(env=env, cwd=tmp_path, user_file=config)


def test_nothing_configured_says_how_in_one_line():
    with pytest.raises(NoProviderConfigured) as caught:
        choose(Settings(), env={})  # no key, no URL, no OLLAMA_HOST; nothing answers on localhost:11434
    text = str(caught.value)
    assert "\n" not in text
    for hint in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "ollama serve", "[llm] provider"):
        assert hint in text


@pytest.mark.parametrize(
    "env,expected",
    [
        ({"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2", "GEMINI_API_KEY": "g"}, ("openai", "OPENAI_API_KEY")),
        ({"ANTHROPIC_API_KEY": "sk-2", "GEMINI_API_KEY": "g"}, ("anthropic", "ANTHROPIC_API_KEY")),
        ({"GEMINI_API_KEY": "g", "GOOGLE_API_KEY": "g2"}, ("gemini", "GEMINI_API_KEY")),
        ({"GOOGLE_API_KEY": "g2"}, ("gemini", "GOOGLE_API_KEY")),
    ],
)
def test_auto_detection_order(env, expected):
    choice = choose(Settings(), env={**NOTHING, **env})
    assert (choice.provider, choice.key_hint) == expected
    assert choice.reason == f"{expected[1]} is set"


def test_auto_detection_falls_back_to_an_ollama_that_answers(stub):
    stub.models = ["qwen2.5-coder:7b", "llama3.2:latest"]
    choice = choose(Settings(), env={"OLLAMA_HOST": stub.url})
    assert choice.provider == "ollama" and choice.model == "llama3.2:latest"  # the default, since it is pulled
    assert choice.base_url == stub.url and stub.requests[-1].path == "/api/tags"


def test_precedence_flag_over_environment_over_config_over_detection(tmp_path):
    env = {**NOTHING, "OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2", "GEMINI_API_KEY": "g"}
    toml = '[llm]\nprovider = "gemini"\nmodel = "gemini-2.0-flash"\n'
    from_config = choose(_settings(tmp_path, env, toml), env=env)
    assert (from_config.provider, from_config.model) == ("gemini", "gemini-2.0-flash")

    env_over = {**env, "PARSEC_PROVIDER": "anthropic", "PARSEC_MODEL": "claude-3-5-haiku-latest"}
    from_env = choose(_settings(tmp_path, env_over, toml), env=env_over)
    assert (from_env.provider, from_env.model) == ("anthropic", "claude-3-5-haiku-latest")

    flagged = choose(_settings(tmp_path, env_over, toml), provider="openai", model="gpt-4.1", env=env_over)
    assert (flagged.provider, flagged.model, flagged.reason) == ("openai", "gpt-4.1", "--provider")


def test_a_model_name_alone_picks_its_provider():
    env = {**NOTHING, "OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2"}
    assert choose(Settings(), model="claude-sonnet-4-5", env=env).provider == "anthropic"


def test_base_urls_from_the_environment_and_config(tmp_path):
    env = {**NOTHING, "OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://localhost:8080/v1"}
    assert choose(Settings(), env=env).base_url == "http://localhost:8080/v1"
    settings = Settings()
    settings.llm.base_url = "http://gpu-box:8000/v1"
    assert choose(settings, env=env).base_url == "http://gpu-box:8000/v1"  # [llm] wins over the variable
    assert choose(Settings(), provider="ollama", env={"OLLAMA_HOST": "gpu-box"}).base_url == "http://gpu-box:11434"


@pytest.mark.parametrize(
    "host,url",
    [
        ("", ""),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("example.com:8080", "http://example.com:8080"),
        ("https://ollama.example.com", "https://ollama.example.com:443"),
        ("http://10.0.0.2:11434/", "http://10.0.0.2:11434"),
        ("[::1]:9999", "http://[::1]:9999"),
        (":1234", "http://127.0.0.1:1234"),
    ],
)
def test_ollama_host_is_read_like_the_ollama_client(host, url):
    assert ollama_host_url(host) == url


def test_a_base_url_without_a_provider_means_an_openai_compatible_server_without_key(stub):
    settings = Settings()
    settings.llm.base_url = stub.openai_base_url
    settings.llm.model = "local-llama"
    stub.api_key = None
    provider = resolve_provider(settings, env=NOTHING)
    assert provider.name == "openai" and provider.chat([ChatMessage(role="user", content="hi")]).text == "ok"
    assert "authorization" not in stub.requests[-1].headers
    provider.close()


def test_a_hosted_provider_without_a_key_is_a_one_line_error():
    with pytest.raises(ProviderAuthError, match="export ANTHROPIC_API_KEY"):
        resolve_provider(Settings(), provider="anthropic", env=NOTHING)
    with pytest.raises(ProviderAuthError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve_provider(Settings(), provider="gemini", env=NOTHING)


def test_an_unknown_provider_name_is_a_config_error():
    with pytest.raises(ConfigError, match="use one of openai, anthropic, gemini, ollama"):
        choose(Settings(), provider="openia", env=NOTHING)


def test_a_config_key_is_used_only_from_a_private_file(tmp_path):
    toml = f'[llm]\nprovider = "anthropic"\napi_key = "{KEY}"\n'
    private = _settings(tmp_path, NOTHING, toml, mode=0o600)
    choice = choose(private, env=NOTHING)
    assert choice.api_key.reveal() == KEY and choice.key_hint == "[llm] api_key"

    shared = _settings(tmp_path, NOTHING, toml, mode=0o644)
    with pytest.raises(ConfigError) as caught:
        choose(shared, env=NOTHING)
    text = str(caught.value)
    assert "chmod 600" in text and "refusing" in text and KEY not in text
    # The same check when only the Settings (not where they came from) are passed.
    with pytest.raises(ConfigError, match="chmod 600"):
        choose(shared.settings, env={**NOTHING, "PARSEC_CONFIG": str(tmp_path / "config.toml")})


def test_a_config_key_without_a_provider_is_ambiguous(tmp_path):
    with pytest.raises(ConfigError, match="set provider"):
        choose(_settings(tmp_path, NOTHING, f'[llm]\napi_key = "{KEY}"\n'), env=NOTHING)


def test_scrubbed_environment_drops_provider_keys_only():
    env = {
        "PATH": "/bin",
        "HOME": "/root",
        "OPENAI_API_KEY": "sk-1",
        "ANTHROPIC_API_KEY": "sk-2",
        "GEMINI_API_KEY": "g",
        "GOOGLE_API_KEY": "g2",
        "OPENROUTER_API_KEY": "or",
        "PARSEC_LLM_API_KEY": "p",
        "MY_LLM_TOKEN": KEY,
        "AWS_PROFILE": "dev",
    }
    clean = scrubbed_environment(env, secrets=[Secret(KEY)])
    assert clean == {"PATH": "/bin", "HOME": "/root", "AWS_PROFILE": "dev"}
    assert env["OPENAI_API_KEY"] == "sk-1"  # a copy: the original is untouched
    assert "PATH" in scrubbed_environment()  # defaults to os.environ
    assert scrubbed_environment(env)["MY_LLM_TOKEN"] == KEY  # unknown names stay unless their value is given


def test_a_command_run_with_the_scrubbed_environment_cannot_see_the_key():
    import subprocess

    env = {**os.environ, "OPENAI_API_KEY": KEY}
    out = subprocess.run(["env"], env=scrubbed_environment(env), capture_output=True, text=True, check=True).stdout
    assert KEY not in out and "PATH=" in out


def test_redact_masks_key_shapes_and_the_given_key():
    assert redact(f"bad key {KEY} here") == "bad key *** here"
    assert redact("token AIzaSyA1234567890abcdefg ok") == "token *** ok"
    assert redact("value hunter2hunter2", Secret("hunter2hunter2")) == "value ***"
    assert repr(Secret(KEY)) == str(Secret(KEY)) == "Secret('***')"


def test_model_limits_known_overridden_and_default():
    assert model_limits("openai", "gpt-4o-2024-08-06").context_window == 128_000
    assert model_limits("anthropic", "claude-sonnet-4-5-20250929").max_output_tokens == 64_000
    assert model_limits("gemini", "models/gemini-2.5-pro").context_window == 1_048_576
    assert model_limits("openai", "openrouter/some-new-thing") == DEFAULT_LIMITS
    assert model_limits("ollama", "llama3.1:8b").context_window == 16_384  # capped: Ollama allocates it
    overrides = {"my-model": ModelOverride(context_window=32_768), "gpt-4o": ModelOverride(max_output_tokens=1000)}
    assert model_limits("openai", "my-model", overrides).context_window == 32_768
    assert model_limits("openai", "my-model", overrides).max_output_tokens == DEFAULT_LIMITS.max_output_tokens
    assert model_limits("openai", "gpt-4o", overrides).max_output_tokens == 1000
    assert model_limits("openai", "gpt-4o", overrides).context_window == 128_000


def test_config_overrides_reach_the_provider(tmp_path):
    toml = '[llm]\nprovider = "ollama"\nmodel = "tiny"\n[llm.models."tiny"]\ncontext_window = 2048\n'
    provider = resolve_provider(_settings(tmp_path, NOTHING, toml), env=NOTHING)
    assert provider.limits.context_window == 2048 and provider.model == "tiny"
    provider.close()


def test_ollama_named_without_a_model_uses_one_that_is_pulled(stub):
    stub.models = ["mistral:7b", "llama3.2:latest"]
    assert choose(Settings(), provider="ollama", env={"OLLAMA_HOST": stub.url}).model == "llama3.2:latest"
    stub.models = ["mistral:7b"]
    assert choose(Settings(), provider="ollama", env={"OLLAMA_HOST": stub.url}).model == "mistral:7b"


# -- [llm] api_key / base_url belong to the provider the config names --------------------------------
OPENAI_CONFIG = f'[llm]\nprovider = "openai"\napi_key = "{KEY}"\n'
ANTHROPIC_KEY = "sk-ant-own-key-Hq2mV81xLc0"


def test_a_config_key_goes_only_to_the_provider_the_config_names(tmp_path):
    env = {**NOTHING, "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    loaded = _settings(tmp_path, env, OPENAI_CONFIG)
    openai = choose(loaded, env=env)
    assert (openai.provider, openai.api_key.reveal(), openai.key_hint) == ("openai", KEY, "[llm] api_key")
    anthropic = choose(loaded, provider="anthropic", env=env)  # `parsec ask --provider anthropic`
    assert (anthropic.api_key.reveal(), anthropic.key_hint) == (ANTHROPIC_KEY, "ANTHROPIC_API_KEY")
    gemini = choose(loaded, provider="gemini", env=env)
    assert gemini.api_key is None and gemini.key_hint == "GEMINI_API_KEY or GOOGLE_API_KEY"
    with pytest.raises(ProviderAuthError, match="export GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve_provider(loaded, provider="gemini", env=env)
    # `parsec ask` passes the Settings alone: the same answer.
    assert choose(loaded.settings, provider="anthropic", env=env).api_key.reveal() == ANTHROPIC_KEY
    assert choose(loaded.settings, provider="ollama", env=env).api_key is None


def test_parsec_provider_does_not_take_the_key_of_the_provider_in_the_file(tmp_path):
    env = {**NOTHING, "PARSEC_PROVIDER": "anthropic", "PARSEC_CONFIG": str(tmp_path / "config.toml")}
    loaded = _settings(tmp_path, env, OPENAI_CONFIG)
    for settings in (loaded, loaded.settings):
        choice = choose(settings, env=env)
        assert choice.provider == "anthropic" and choice.api_key is None and choice.key_hint == "ANTHROPIC_API_KEY"
        assert choose(settings, provider="openai", env=env).api_key.reveal() == KEY


def test_a_config_key_whose_provider_follows_from_the_model_is_still_used(tmp_path):
    loaded = _settings(tmp_path, NOTHING, f'[llm]\nmodel = "claude-sonnet-4-5"\napi_key = "{KEY}"\n')
    assert choose(loaded, env=NOTHING).api_key.reveal() == KEY
    assert choose(loaded, provider="openai", env=NOTHING).api_key is None


def test_a_key_whose_file_implies_openai_by_its_model_never_goes_to_parsec_provider(tmp_path):
    env = {**NOTHING, "PARSEC_PROVIDER": "anthropic", "PARSEC_CONFIG": str(tmp_path / "config.toml")}
    loaded = _settings(tmp_path, env, f'[llm]\nmodel = "gpt-4o"\napi_key = "{KEY}"\n')
    choice = choose(loaded, env=env)
    assert choice.provider == "anthropic" and choice.api_key is None
    assert choose(loaded, provider="openai", env=env).api_key.reveal() == KEY


def test_a_config_key_without_any_provider_is_refused_even_with_a_flag(tmp_path):
    loaded = _settings(tmp_path, NOTHING, f'[llm]\napi_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match="set provider"):
        choose(loaded, provider="anthropic", env=NOTHING)


def test_a_shared_config_file_blocks_only_the_provider_its_key_belongs_to(tmp_path):
    env = {**NOTHING, "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    shared = _settings(tmp_path, env, OPENAI_CONFIG, mode=0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        choose(shared, provider="openai", env=env)
    assert choose(shared, provider="anthropic", env=env).api_key.reveal() == ANTHROPIC_KEY


def test_a_config_base_url_goes_only_to_the_provider_the_config_names(tmp_path):
    env = {**NOTHING, "ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": "sk-1"}
    loaded = _settings(tmp_path, env, '[llm]\nprovider = "openai"\nbase_url = "http://gpu-box:8000/v1"\n')
    assert choose(loaded, env=env).base_url == "http://gpu-box:8000/v1"
    assert choose(loaded, provider="anthropic", env=env).base_url == "https://api.anthropic.com"
    assert choose(loaded, provider="ollama", env={"OLLAMA_HOST": "gpu-box"}).base_url == "http://gpu-box:11434"


def test_the_provider_gets_its_own_key_on_the_wire(tmp_path, stub):
    """`parsec ask --provider anthropic` with an OpenAI key in the config sends ANTHROPIC_API_KEY."""
    stub.api_key = None
    env = {
        **NOTHING,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "ANTHROPIC_BASE_URL": stub.url,
        "GEMINI_API_KEY": "AIzaGeminiOwnKey0123456789",
        "GOOGLE_GEMINI_BASE_URL": stub.url,
        "PARSEC_CONFIG": str(tmp_path / "config.toml"),
    }
    settings = _settings(tmp_path, env, OPENAI_CONFIG).settings
    for name in ("anthropic", "gemini"):
        with resolve_provider(settings, provider=name, env=env) as provider:
            provider.chat([ChatMessage(role="user", content="hi")])
    anthropic, gemini = stub.model_requests()
    assert anthropic.api == "anthropic" and anthropic.headers["x-api-key"] == ANTHROPIC_KEY
    assert gemini.api == "gemini" and gemini.headers["x-goog-api-key"] == "AIzaGeminiOwnKey0123456789"
    for request in stub.requests:
        assert KEY not in repr((request.headers, request.query, request.path))


# -- malformed base URLs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "provider,env,expected",
    [
        (
            "openai",
            {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "notaurl"},
            "OPENAI_BASE_URL 'notaurl' is not an http(s) URL: set it like http://localhost:8080/v1",
        ),
        (
            "openai",
            {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "localhost:8080/v1"},
            "OPENAI_BASE_URL 'localhost:8080/v1'",
        ),
        ("openai", {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://host:port/v1"}, "the port must be a number"),
        ("openai", {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://exa mple.com/v1"}, "a space"),
        (
            "anthropic",
            {"ANTHROPIC_API_KEY": "sk-2", "ANTHROPIC_BASE_URL": "ftp://proxy"},
            "ANTHROPIC_BASE_URL 'ftp://proxy' is not an http(s) URL: set it like https://api.anthropic.com",
        ),
        ("gemini", {"GEMINI_API_KEY": "g", "GOOGLE_GEMINI_BASE_URL": "http://"}, "GOOGLE_GEMINI_BASE_URL 'http://'"),
        (
            "ollama",
            {"OLLAMA_HOST": "garbage:::"},
            "OLLAMA_HOST 'garbage:::' is not a host[:port] or http(s) URL (the port must be a number from 1 to 65535): "
            "set it like localhost:11434",
        ),
        ("ollama", {"OLLAMA_HOST": "gpu box"}, "OLLAMA_HOST 'gpu box'"),
    ],
)
def test_a_malformed_base_url_names_its_variable(provider, env, expected):
    from parsec.providers.provider_errors import InvalidEndpoint

    for named in (None, provider):  # auto-detected, and named by a flag
        with pytest.raises(InvalidEndpoint) as caught:
            choose(Settings(), provider=named, env=env)
        text = str(caught.value)
        assert expected in text and "\n" not in text
        assert isinstance(caught.value, ConfigError) and caught.value.exit_code == 2


def test_a_malformed_config_base_url_names_where_it_was_set(tmp_path):
    from parsec.providers.provider_errors import InvalidEndpoint

    loaded = _settings(tmp_path, NOTHING, '[llm]\nprovider = "openai"\nbase_url = "gpu-box:8000"\n')
    with pytest.raises(InvalidEndpoint, match=r"^\[llm\] base_url in .*config\.toml 'gpu-box:8000' is not an http"):
        choose(loaded, env=NOTHING)
    env = {**NOTHING, "PARSEC_LLM_BASE_URL": "nope"}
    with pytest.raises(InvalidEndpoint, match="^PARSEC_LLM_BASE_URL 'nope' is not an http"):
        choose(_settings(tmp_path, env), env=env)


def test_a_key_inside_a_malformed_url_is_not_shown():
    from parsec.providers.provider_errors import InvalidEndpoint

    with pytest.raises(InvalidEndpoint) as caught:
        choose(Settings(), env={"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": f"{KEY}@notaurl"})
    assert KEY not in str(caught.value)


def test_the_transport_turns_a_url_httpx_refuses_into_a_one_line_error():
    """A last line of defence behind `choose`: no `internal error: InvalidURL` / `UnsupportedProtocol`."""
    from parsec.providers.provider_errors import InvalidEndpoint
    from parsec.providers.select import Choice, build_provider

    for url in ("notaurl", "http://garbage:::"):
        choice = Choice("openai", "gpt-4o-mini", url, Secret(KEY), "OPENAI_API_KEY", "test")
        with build_provider(choice, Settings()) as provider, pytest.raises(InvalidEndpoint) as caught:
            provider.list_models()
        text = str(caught.value)
        assert "OPENAI_BASE_URL" in text and "set it like" in text and "\n" not in text and KEY not in text
