import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from parsec.config import Settings, load_config
from parsec.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the trust list
    monkeypatch.chdir(tmp_path)
    for var in list(os.environ):
        if var.startswith("PARSEC_"):
            monkeypatch.delenv(var)
    (tmp_path / "config" / "parsec").mkdir(parents=True)
    return tmp_path


def write_user(home: Path, text: str) -> Path:
    path = home / "config" / "parsec" / "config.toml"
    path.write_text(text)
    return path


def write_project(home: Path, text: str) -> Path:
    """A project file the user trusts (trust.py): only then does the loader read it."""
    from parsec import trust

    path = home / ".parsec.toml"
    path.write_text(text)
    path.chmod(0o644)
    trust.trust(path)
    return path


def test_defaults_match_the_seed():
    settings = load_config(env={}, cwd=Path("/nonexistent"), user_file=Path("/nonexistent")).settings
    assert settings.context_management.max_conversation_history == 50
    assert settings.context_management.session_retention_days == 30
    assert settings.context_management.context_compression_threshold == 0.8
    assert settings.context_pruning.max_command_output_length == 1024
    assert settings.context_pruning.preserve_error_context_steps == 5
    assert settings.context_pruning.importance_decay_factor == 0.9


def test_reference_config_is_complete_and_valid():
    """The repo's config.toml documents every key with its default value."""
    reference = tomllib.loads((REPO / "config.toml").read_text())
    assert Settings.model_validate(reference) == Settings()
    for section, model in Settings.model_fields.items():
        fields = getattr(model.annotation, "model_fields", None)
        if fields is None:
            continue
        text = (REPO / "config.toml").read_text()
        for key in fields:
            if key == "models":
                continue  # an open table, documented as a comment
            documented = f"\n{key} =" in text or f"\n# {key} =" in text  # optional keys are commented
            assert documented, f"[{section}] {key} is not documented in config.toml"


def test_layers_and_sources(home):
    write_user(home, "[store]\nbusy_timeout_ms = 100\nurl = 'sqlite:///user.db'\n")
    write_project(home, "[store]\nbusy_timeout_ms = 200\n")
    loaded = load_config(
        {"llm.model": "flag-model"}, env={"PARSEC_MODEL": "env-model", "PARSEC_STORE_URL": "sqlite:///env.db"}
    )
    settings = loaded.settings
    assert settings.store.busy_timeout_ms == 200
    assert loaded.source_of("store.busy_timeout_ms").endswith(".parsec.toml")
    assert settings.store.url == "sqlite:///env.db"
    assert loaded.source_of("store.url") == "environment PARSEC_STORE_URL"
    assert settings.llm.model == "flag-model"
    assert loaded.source_of("llm.model") == "command line"
    assert loaded.source_of("daemon.batch_size") == "default"


def test_env_lists_are_toml(home):
    loaded = load_config(env={"PARSEC_PRIVACY_EXCLUDE_COMMANDS": '["^vault ", "secret"]'})
    assert loaded.settings.privacy.exclude_commands == ["^vault ", "secret"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[store\nurl=1", "not valid TOML"),
        ("[store]\nbogus = 1\n", "[store] unknown key 'bogus'"),
        ("[nosuch]\na = 1\n", "unknown section or key 'nosuch'"),
        ("[daemon]\nbatch_size = 'many'\n", "[daemon] batch_size"),
        ("[context_pruning]\nimportance_decay_factor = 3\n", "importance_decay_factor"),
        ("store = 5\n", "must be a table"),
    ],
)
def test_config_errors_name_the_file_and_key(home, text, expected):
    path = write_user(home, text)
    with pytest.raises(ConfigError) as err:
        load_config(env={})
    message = str(err.value)
    assert str(path) in message and expected in message
    assert "\n" not in message


def test_unknown_env_key_is_named(home):
    with pytest.raises(ConfigError, match="PARSEC_DAEMON_NOPE"):
        load_config(env={"PARSEC_DAEMON_NOPE": "1"})


def test_hook_variables_are_not_config(home):
    loaded = load_config(env={"PARSEC_DISABLE": "1", "PARSEC_SESSION": "x", "PARSEC_SOMETHING_ELSE": "y"})
    assert loaded.sources == {} and loaded.settings == Settings()


def test_cli_reports_config_errors_in_one_line(home):
    write_user(home, "[daemon]\nlog_level = 'loud'\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config")}
    result = subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "config", "show"], capture_output=True, text=True, env=env, cwd=home
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "log_level" in lines[0] and "Traceback" not in result.stderr


@pytest.mark.parametrize("key", ["exclude_commands", "exclude_dirs", "extra_patterns"])
def test_invalid_regex_is_a_config_error(home, key):
    path = write_user(home, f'[privacy]\n{key} = ["^ok$", "("]\n')
    with pytest.raises(ConfigError) as err:
        load_config(env={})
    message = str(err.value)
    assert message.startswith(f"{path}: [privacy] {key}.1: expected a valid regular expression (")
    assert message.endswith("(got '(')") and "\n" not in message
    assert "value error" not in message.lower()


def test_invalid_regex_from_the_environment_names_the_variable(home):
    with pytest.raises(
        ConfigError,
        match=r"^environment PARSEC_PRIVACY_EXCLUDE_DIRS: \[privacy\] exclude_dirs\.0: "
        r"expected a valid regular expression",
    ):
        load_config(env={"PARSEC_PRIVACY_EXCLUDE_DIRS": '["[a-"]'})


def test_valid_regexes_are_accepted(home):
    write_user(
        home,
        '[privacy]\nexclude_commands = ["^vault ", "(?i)secret"]\nexclude_dirs = ["^/srv/(a|b)(/|$)"]\n'
        'extra_patterns = ["pin=(?P<s>\\\\d+)"]\n',
    )
    privacy = load_config(env={}).settings.privacy
    assert privacy.exclude_commands == ["^vault ", "(?i)secret"]
    assert privacy.extra_patterns == ["pin=(?P<s>\\d+)"]


def test_doctor_reports_an_invalid_regex(home):
    from parsec.cli.admin.doctor_checks import run_checks

    path = write_user(home, '[privacy]\nexclude_commands = ["("]\n')
    check = next(run_checks())
    assert (check.name, check.status) == ("config", "fail")
    assert str(path) in check.detail and "[privacy] exclude_commands" in check.detail


def test_invalid_regex_in_a_model_built_directly_is_a_config_error():
    from parsec.config import PrivacyConfig

    with pytest.raises(ConfigError, match=r"^\[privacy\] exclude_dirs: invalid regex '\('"):
        PrivacyConfig(exclude_dirs=["("])
    privacy = PrivacyConfig()
    with pytest.raises(ConfigError, match=r"^\[privacy\] extra_patterns: invalid regex"):
        privacy.extra_patterns = ["[a-"]


def test_tables_merge_across_layers_at_every_depth(home):
    # A project's [llm.models."b"] used to drop the user's [llm.models."a"] (issue 17).
    write_user(home, '[llm.models."a"]\ncontext_window = 1000\n[llm.models."b"]\nmax_output_tokens = 50\n')
    write_project(home, '[llm.models."b"]\ncontext_window = 2000\n')
    loaded = load_config(env={})
    models = loaded.settings.llm.models
    assert models["a"].context_window == 1000
    assert (models["b"].context_window, models["b"].max_output_tokens) == (2000, 50)
    assert loaded.source_of("llm.models").endswith("config.toml, " + str(home / ".parsec.toml"))


def test_lists_and_scalars_are_replaced_not_merged(home):
    write_user(home, "[[context_commands]]\nname = 'a'\ncommand = 'echo a'\n[store]\nbusy_timeout_ms = 100\n")
    write_project(home, "[[context_commands]]\nname = 'b'\ncommand = 'echo b'\n")
    settings = load_config(env={}).settings
    assert [c.name for c in settings.context_commands] == ["b"]
    assert settings.store.busy_timeout_ms == 100


PROJECT = "[store]\nbusy_timeout_ms = 200\nurl = 'sqlite:///planted.db'\n[search]\ninline_height = 12\n"


@pytest.mark.parametrize("section", ["store", "search"])
@pytest.mark.parametrize("project", ["trusted", "untrusted", "changed", "group-writable", "not TOML", "none"])
def test_the_fast_config_reader_agrees_with_the_full_loader(home, section, project):
    # `parsec history` and Ctrl-R read their section without pydantic; same files, same values,
    # the same trust rule and the same user-only keys left out (a planted store.url is not taken).
    from parsec.cli.history.history_common import config_section

    write_user(home, "[store]\nbusy_timeout_ms = 100\nurl = 'sqlite:///user.db'\n[search]\nfilter = 'directory'\n")
    if project != "none":
        path = write_project(home, PROJECT)
        if project == "untrusted":
            path.write_text(PROJECT)
            from parsec import trust

            trust.revoke(path)
        elif project == "changed":
            path.write_text(PROJECT.replace("200", "300"))
        elif project == "group-writable":
            path.chmod(0o664)
        elif project == "not TOML":
            path.write_text("[store\n")
            from parsec import trust

            trust.trust(path)
    fast = config_section(section)
    full = getattr(load_config(env={}).settings, section).model_dump()
    assert fast and {key: full[key] for key in fast} == fast
    assert full.get("url", "sqlite:///user.db") == "sqlite:///user.db"
    if section == "store":
        assert full["busy_timeout_ms"] == (200 if project == "trusted" else 100)
