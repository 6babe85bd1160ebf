"""Configuration: built-in defaults ← ~/.config/parsec/config.toml ← ./.parsec.toml (once trusted,
see trust.py) ← PARSEC_* env ← command-line flags. Every key and its default is documented in the
repo's `config.toml`.

Each error names the file (or variable), the key and what was expected, in one line.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo

from . import paths, trust
from .config_merge import merge_layer
from .errors import ConfigError
from .models.limits import MAX_PLAN_STEPS
from .models.retention import RetentionPolicy


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# Passed to validators by load_config, whose errors then name the file or variable (see _config_error).
_LOADING = {"load_config": True}


def _valid_regex(value: str, info: ValidationInfo) -> str:
    """A regex setting must compile here, so `config show` and `doctor` report it, not the daemon later."""
    from .privacy.matcher import RegexError, compile_re2

    try:
        re.compile(value)
        if info.field_name == "extra_patterns":  # masking runs them on RE2: linear time, no look-around
            compile_re2(value)
    except (re.error, RegexError) as err:
        if info.context is None:  # a model built directly (a tool, a test): no file to name
            raise ConfigError(f"[privacy] {info.field_name}: invalid regex {value!r}: {err}") from None
        raise ValueError(f"expected a valid regular expression ({err})") from None
    return value


Regex = Annotated[str, AfterValidator(_valid_regex)]  # the privacy section's regex lists


class ContextManagement(_Section):
    max_conversation_history: int = Field(50, ge=0)
    history_retention_days: int = Field(0, ge=0)
    session_retention_days: int = Field(30, ge=0)
    conversation_retention_days: int = Field(90, ge=0)
    max_sessions: int = Field(0, ge=0)
    enable_cross_conversation_learning: bool = True
    context_compression_threshold: float = Field(0.8, gt=0.0, le=1.0)
    privacy_mode: bool = False

    def retention_policy(self) -> RetentionPolicy:
        """What `parsec prune` and the daemon's scheduled prune apply."""
        return RetentionPolicy(
            history_retention_days=self.history_retention_days,
            session_retention_days=self.session_retention_days,
            conversation_retention_days=self.conversation_retention_days,
            max_conversation_history=self.max_conversation_history,
            max_sessions=self.max_sessions,
            keep_achievements=self.enable_cross_conversation_learning,  # for cross-conversation learning
        )


class ContextPruning(_Section):
    max_command_output_length: int = Field(1024, ge=64)
    preserve_error_context_steps: int = Field(5, ge=0)
    importance_decay_factor: float = Field(0.9, gt=0.0, le=1.0)


class StoreConfig(_Section):
    url: str = ""  # empty: sqlite at $XDG_DATA_HOME/parsec/parsec.db
    busy_timeout_ms: int = Field(5000, ge=0)
    connect_timeout_s: float = Field(5.0, gt=0)


class DaemonConfig(_Section):
    socket_dir: str = ""  # empty: $XDG_RUNTIME_DIR/parsec or <tmp>/parsec-<uid>
    max_message_bytes: int = Field(1_048_576, ge=1024)
    max_pending_output_bytes: int = Field(64 * 1024 * 1024, ge=1024)
    max_held_journal_bytes: int = Field(4 * 1024 * 1024, ge=0)
    client_timeout_s: float = Field(30.0, gt=0)
    flush_interval_ms: int = Field(50, ge=1)
    batch_size: int = Field(500, ge=1)
    prune_interval_hours: float = Field(24.0, ge=0)  # 0 disables the scheduled prune
    session_check_interval_s: float = Field(60.0, gt=0)
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    log_max_bytes: int = Field(5_000_000, ge=10_000)
    log_backups: int = Field(3, ge=0)


class ModelOverride(_Section):
    context_window: int | None = Field(None, gt=0)
    max_output_tokens: int | None = Field(None, gt=0)


class LLMConfig(_Section):
    provider: str = ""  # openai | anthropic | gemini | ollama; empty: auto-detect
    model: str = ""
    base_url: str = ""
    api_key: str = ""  # prefer the environment; a config file holding a key must be private
    connect_timeout_s: float = Field(5.0, gt=0)
    read_timeout_s: float = Field(120.0, gt=0)
    first_token_timeout_s: float = Field(120.0, gt=0)
    idle_timeout_s: float = Field(30.0, gt=0)
    max_retries: int = Field(3, ge=0)
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    structured_output: str = "auto"  # auto, or one mode of the provider's (providers/dialects.py)
    models: dict[str, ModelOverride] = Field(default_factory=dict)


class ClassifierConfig(_Section):
    enabled: bool = True
    learn_from_corrections: bool = True
    # Below `command_threshold` of prose evidence a line is a command; above `prompt_threshold`
    # a prompt; in between it is ambiguous and the hook asks one key.
    command_threshold: float = Field(0.35, ge=0.0, le=1.0)
    prompt_threshold: float = Field(0.65, ge=0.0, le=1.0)


class PrivacyConfig(_Section):
    mask_secrets: bool = True
    exclude_commands: list[Regex] = Field(default_factory=list)  # regexes, never stored
    exclude_dirs: list[Regex] = Field(default_factory=list)  # regexes on the cwd, never stored
    extra_patterns: list[Regex] = Field(default_factory=list)  # more secret regexes to mask
    environment_allowlist: list[str] = Field(
        default_factory=lambda: [
            "SHELL",
            "TERM",
            "LANG",
            "LC_ALL",
            "EDITOR",
            "VISUAL",
            "PAGER",
            "VIRTUAL_ENV",
            "CONDA_DEFAULT_ENV",
            "NODE_ENV",
            "GOPATH",
            "CARGO_HOME",
            "RUSTUP_TOOLCHAIN",
            "KUBECONFIG",
            "AWS_PROFILE",
            "AWS_REGION",
            "DOCKER_HOST",
            "TERM_PROGRAM",
        ]
    )


class WorkflowConfig(_Section):
    max_retries: int = Field(2, ge=0)
    max_plan_steps: int = Field(MAX_PLAN_STEPS, ge=1, le=MAX_PLAN_STEPS)
    max_commands_per_step: int = Field(10, ge=1)  # then retry / skip / abort (abort under --yes)
    command_timeout_s: float = Field(0, ge=0)  # 0: no timeout
    # Under --yes nobody is there to press Ctrl-C: `tail -f` would hold the workflow forever.
    unattended_timeout_s: float = Field(600, ge=0)  # used when command_timeout_s is 0; 0: none
    truncation_strategy: Literal["oldest_first", "middle_out"] = "middle_out"
    # Confine the workflow's commands (workflow/execution/sandbox.py): under --yes only, always, or never.
    sandbox: Literal["unattended", "always", "never"] = "unattended"
    sandbox_network: bool = True  # false: no network inside the sandbox


class HooksConfig(_Section):
    route_prompts: bool = True
    offer_prompt_on_127: bool = True
    autostart_daemon: bool = True


class SearchConfig(_Section):
    """The interactive search (Ctrl-R); read fast by parsec/cli/history/search/settings.py, whose defaults
    a test keeps equal to these."""

    filter: Literal["everywhere", "directory", "tree", "repo", "session", "host", "failed"] = "everywhere"
    mode: Literal["fuzzy", "prefix", "fulltext"] = "fuzzy"
    inline_height: int = Field(16, ge=5, le=200)  # lines below the prompt; 0 is not allowed: use full_screen
    full_screen: bool = False
    bind_ctrl_r: bool = True  # false: Ctrl-R keeps the shell's own search, `key` opens Parsec's
    key: str = Field("", max_length=16)  # another key for the search, in `bind` notation, e.g. "\\es"
    bind_up_arrow: bool = False


class ContextCommand(_Section):
    name: str = Field(min_length=1)
    command: str = Field(min_length=1)
    timeout: float = Field(5.0, gt=0)
    on_error: Literal["warn", "ignore", "fail"] = "warn"
    dynamic: bool = False


class Settings(_Section):
    context_management: ContextManagement = Field(default_factory=ContextManagement)
    context_pruning: ContextPruning = Field(default_factory=ContextPruning)
    store: StoreConfig = Field(default_factory=StoreConfig)
    daemon: DaemonConfig = Field(default_factory=DaemonConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    classifier: ClassifierConfig = Field(default_factory=ClassifierConfig)
    privacy: PrivacyConfig = Field(default_factory=PrivacyConfig)
    workflow: WorkflowConfig = Field(default_factory=WorkflowConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    context_commands: list[ContextCommand] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)  # explicit preferences for prompts

    def store_url(self) -> str:
        return self.store.url or f"sqlite:///{paths.default_db_path()}"


# Environment variables outside the PARSEC_<SECTION>_<KEY> scheme.
_ENV_ALIASES = {"PARSEC_PROVIDER": ("llm", "provider"), "PARSEC_MODEL": ("llm", "model")}
# PARSEC_* variables that belong to the hooks or the CLI, not to the config.
_ENV_IGNORED = {"PARSEC_DISABLE", "PARSEC_DEBUG", "PARSEC_SESSION", "PARSEC_CONFIG"}


@dataclass
class LoadedConfig:
    settings: Settings
    sources: dict[str, str] = field(default_factory=dict)  # "section.key" -> where it came from
    files: list[Path] = field(default_factory=list)  # config files that were read
    ignored: dict[str, str] = field(default_factory=dict)  # "section.key" a project file may not set -> that file

    def source_of(self, dotted: str) -> str:
        return self.sources.get(dotted, "default")


def load_config(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    user_file: Path | None = None,
) -> LoadedConfig:
    """Merge every layer and validate. `overrides` are dotted keys from command-line flags.

    The project's `.parsec.toml` counts only when the user trusts it (trust.py), never sets the
    user-only keys (config_merge.USER_ONLY_KEYS), and one that is wrong is reported and left out,
    never fatal: a file someone else put in the directory must not stop Parsec there."""
    env = os.environ if env is None else env
    explicit = env.get("PARSEC_CONFIG")
    user_path = user_file or (Path(explicit) if explicit else paths.user_config_file())
    layers: list[tuple[str, dict[str, Any]]] = []
    files: list[Path] = []
    if user_path.is_file():
        layers.append((str(user_path), _read_toml(user_path)))
        files.append(user_path)
    elif explicit:
        raise ConfigError(f"{user_path}: PARSEC_CONFIG names a file that does not exist")
    project = trust.project_config(cwd)
    if project is not None:
        try:
            _check_keys(project.data, str(project.path))
        except ConfigError as err:
            trust.warn(f"ignoring {project.path}: {str(err).removeprefix(f'{project.path}: ')}")
            project = None
    tail = [*_from_env(env), ("command line", _nest(overrides or {}, "command line"))]
    for origin, data in layers + tail:
        _check_keys(data, origin)
    if project is not None:
        try:
            return _loaded(layers + [(str(project.path), project.data)] + tail, files + [project.path], project)
        except ConfigError as err:
            try:
                loaded = _loaded(layers + tail, files, None)
            except ConfigError:
                raise err from None
            trust.warn(f"ignoring {project.path}: {str(err).removeprefix(f'{project.path}: ')}")
            return loaded
    return _loaded(layers + tail, files, None)


def _loaded(
    layers: list[tuple[str, dict[str, Any]]], files: list[Path], project: trust.ProjectConfig | None
) -> LoadedConfig:
    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for origin, data in layers:
        merge_layer(merged, data, origin, sources)
    try:
        settings = Settings.model_validate(merged, context=_LOADING)
    except ValidationError as err:
        raise _config_error(err, sources) from None
    from .privacy.masking import configure_store_gate

    configure_store_gate(settings.privacy.mask_secrets, settings.privacy.extra_patterns)
    ignored = {key: str(project.path) for key in project.dropped} if project is not None else {}
    return LoadedConfig(settings=settings, sources=sources, files=files, ignored=ignored)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read: {err.strerror}") from None


def _sections() -> dict[str, type[BaseModel] | None]:
    out: dict[str, type[BaseModel] | None] = {}
    for name, info in Settings.model_fields.items():
        ann = info.annotation
        out[name] = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None
    return out


def _from_env(env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """PARSEC_<SECTION>_<KEY>=value, e.g. PARSEC_STORE_URL or PARSEC_CONTEXT_PRUNING_MAX_COMMAND_OUTPUT_LENGTH.

    One layer per variable, so an error or `config show` names the variable itself.
    """
    result: list[tuple[str, dict[str, Any]]] = []
    sections = {name: model for name, model in _sections().items() if model is not None}
    for var, raw in env.items():
        if not var.startswith("PARSEC_") or var in _ENV_IGNORED:
            continue
        if var in _ENV_ALIASES:
            section, key = _ENV_ALIASES[var]
        else:
            rest = var[len("PARSEC_") :].lower()
            match = next((s for s in sorted(sections, key=len, reverse=True) if rest.startswith(s + "_")), None)
            if match is None:
                continue  # not a config variable (the hooks use a few PARSEC_* names of their own)
            section, key = match, rest[len(match) + 1 :]
            if key not in sections[section].model_fields:
                raise ConfigError(f"environment: {var}: [{section}] has no key '{key}'")
        value = _parse_env_value(raw, sections[section], key, var)
        result.append((f"environment {var}", {section: {key: value}}))
    return sorted(result)


def _parse_env_value(raw: str, model: type[BaseModel], key: str, var: str) -> object:
    """Lists and tables are given as TOML values; scalars as plain text (pydantic converts)."""
    annotation = str(model.model_fields[key].annotation)
    if annotation.startswith(("list", "dict")):
        try:
            return tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            raise ConfigError(f"environment: {var}: expected a TOML list or table, got {raw!r}") from None
    return raw


def _nest(flat: Mapping[str, Any], origin: str) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for dotted, value in flat.items():
        if value is None:
            continue
        section, _, key = dotted.partition(".")
        if not key:
            raise ConfigError(f"{origin}: '{dotted}' must be written section.key")
        nested.setdefault(section, {})[key] = value
    return nested


def _check_keys(data: Mapping[str, Any], origin: str) -> None:
    sections = _sections()
    for name, value in data.items():
        if name not in sections:
            known = ", ".join(sorted(sections))
            raise ConfigError(f"{origin}: unknown section or key '{name}' (known: {known})")
        model = sections[name]
        if model is None:
            continue
        if not isinstance(value, Mapping):
            raise ConfigError(f"{origin}: '{name}' must be a table [{name}], got {type(value).__name__}")
        for key in value:
            if key not in model.model_fields:
                raise ConfigError(f"{origin}: [{name}] unknown key '{key}'")


def _config_error(err: ValidationError, sources: Mapping[str, str]) -> ConfigError:
    first = err.errors()[0]
    loc = [str(part) for part in first["loc"]]
    section = loc[0] if loc else "?"
    key = ".".join(loc[1:]) if len(loc) > 1 else ""
    dotted = f"{section}.{loc[1]}" if len(loc) > 1 else section
    origin = sources.get(dotted) or sources.get(section) or "config"
    where = f"[{section}] {key}" if key else f"'{section}'"
    got = first.get("input")
    message = first["msg"].lower()
    if first["type"] == "value_error":  # our own validators, without pydantic's "Value error, "
        message = str(first.get("ctx", {}).get("error", message))
    return ConfigError(f"{origin}: {where}: {message} (got {got!r})")


def flatten(settings: Settings) -> dict[str, Any]:
    """`section.key` → value, for `parsec config show`."""
    out: dict[str, Any] = {}
    for section, value in settings.model_dump(mode="json").items():
        if isinstance(value, dict):
            for key, inner in value.items():
                out[f"{section}.{key}"] = inner
        else:
            out[section] = value
    if out.get("llm.api_key"):  # a key is never shown
        out["llm.api_key"] = "***"
    if out.get("store.url"):  # nor a PostgreSQL password
        out["store.url"] = url_without_password(out["store.url"])
    return out


def url_password(url: str) -> str | None:
    """The password in a URL's `user:password@`, else None."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).password
    except ValueError:  # a malformed port: still no password to show
        return None


def url_without_password(url: str) -> str:
    """`url` with its password shown as ***, for output and logs."""
    password = url_password(url)
    if not password:
        return url
    scheme, _, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    user = netloc.rpartition("@")[0].split(":", 1)[0]
    host = netloc.rpartition("@")[2]
    return f"{scheme}://{user}:***@{host}{slash}{path}"


def private_file_problem(path: Path) -> str | None:
    """Why a config file that holds a key is unsafe (readable by others), or None if it is fine."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if mode & 0o077:
        return f"{path} holds an API key but is readable by others: run `chmod 600 {path}`"
    return None
