"""PrivacyFilter against the real config model (parsec.config.PrivacyConfig)."""

from __future__ import annotations

import pytest

from parsec.config import PrivacyConfig, load_config
from parsec.errors import ConfigError, ParsecError
from parsec.privacy.filters import PrivacyFilter


def make(privacy_mode: bool = False, **fields) -> PrivacyFilter:
    return PrivacyFilter(PrivacyConfig(**fields), privacy_mode)


def test_leading_space_and_blank_lines_are_not_recorded() -> None:
    f = make()
    assert f.should_record("ls -la", "/home/me")
    assert not f.should_record(" ls -la", "/home/me")
    assert not f.should_record("\tsecret-thing", "/home/me")
    assert not f.should_record("   ", "/home/me")
    assert not f.should_record("", "/home/me")


def test_excluded_commands_and_dirs() -> None:
    f = make(exclude_commands=[r"^pass\b", r"vault (read|write)"], exclude_dirs=[r"^/home/me/secret(/|$)"])
    assert not f.should_record("pass show github", "/tmp")
    assert not f.should_record("vault read secret/x", "/tmp")
    assert f.should_record("password-reset --help", "/tmp")
    assert not f.should_record("ls", "/home/me/secret")
    assert not f.should_record("ls", "/home/me/secret/deeper")
    assert f.should_record("ls", "/home/me/secretary")


@pytest.mark.parametrize("key", ["exclude_commands", "exclude_dirs", "extra_patterns"])
def test_invalid_regex_fails_at_construction_with_the_key_named(key: str) -> None:
    with pytest.raises(ConfigError, match=rf"\[privacy\] {key}: invalid regex '\(unclosed'") as err:
        make(**{key: ["(unclosed"]})
    assert isinstance(err.value, ParsecError) and "\n" not in str(err.value)


def test_mask_uses_builtin_and_extra_patterns() -> None:
    f = make(extra_patterns=[r"INTERNAL-\d{4}"])
    assert f.mask("export DB_PASSWORD=x1y2 INTERNAL-1234") == (
        "export DB_PASSWORD=[REDACTED:credential] [REDACTED:custom]"
    )


def test_mask_secrets_off_keeps_only_extra_patterns() -> None:
    f = make(mask_secrets=False, extra_patterns=[r"INTERNAL-\d{4}"])
    assert f.mask("export DB_PASSWORD=x1y2 INTERNAL-1234") == "export DB_PASSWORD=x1y2 [REDACTED:custom]"
    assert make(mask_secrets=False).mask("DB_PASSWORD=x") == "DB_PASSWORD=x"


def test_environment_allowlist_drops_secret_names_and_masks_values() -> None:
    f = make(environment_allowlist=["SHELL", "LC_*", "GITHUB_TOKEN", "DOCKER_HOST", "MY_API_KEY"])
    env = {
        "SHELL": "/bin/bash",
        "LC_TIME": "C",
        "GITHUB_TOKEN": "ghp_" + "a" * 36,  # allow-listed by mistake: still dropped
        "MY_API_KEY": "x",
        "DOCKER_HOST": "tcp://admin:hunter2@docker.internal:2376",
        "HOME": "/home/me",  # not allow-listed
    }
    assert f.filter_environment(env) == {
        "SHELL": "/bin/bash",
        "LC_TIME": "C",
        "DOCKER_HOST": "tcp://admin:[REDACTED:url_credentials]@docker.internal:2376",
    }


def test_default_allowlist_keeps_the_useful_variables() -> None:
    f = PrivacyFilter(load_config(env={}).settings.privacy, False)
    kept = f.filter_environment(
        {"VIRTUAL_ENV": "/venv", "AWS_PROFILE": "dev", "AWS_SECRET_ACCESS_KEY": "x", "PATH": "/bin"}
    )
    assert kept == {"VIRTUAL_ENV": "/venv", "AWS_PROFILE": "dev"}


def test_privacy_mode_keeps_commands_only() -> None:
    f = make(privacy_mode=True)
    assert f.record_output is False
    assert f.filter_environment({"SHELL": "/bin/bash"}) == {}
    assert f.should_record("make test", "/src")
    assert f.mask("curl -u a:b x") == "curl -u a:[REDACTED:basic_auth] x"
    assert make().record_output is True


def test_accepts_any_object_with_the_attributes() -> None:
    class Plain:
        mask_secrets = True
        exclude_commands = ("^secret-tool",)
        exclude_dirs = ()
        extra_patterns = ()
        environment_allowlist = ("TERM",)

    f = PrivacyFilter(Plain())
    assert not f.should_record("secret-tool lookup x", "/")
    assert f.filter_environment({"TERM": "xterm"}) == {"TERM": "xterm"}
