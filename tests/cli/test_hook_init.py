"""`parsec init`: what it puts before the hook from the user's config file."""

from __future__ import annotations

import subprocess
import sys


def _init(shell: str, tmp_path, config: str) -> str:
    (tmp_path / "config.toml").write_text(config)
    env = {"PARSEC_CONFIG": str(tmp_path / "config.toml"), "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "parsec.cli.entry", "init", shell], env=env, capture_output=True, text=True, check=True
    ).stdout


CONFIG = '[privacy]\nexclude_commands = ["^vault ", "secret[0-9]+", "\\\\btoken\\\\b", "it\'s", "(?i)pass"]\n'


def test_bash_and_zsh_get_the_patterns_an_extended_regex_reads_alike(tmp_path):
    for shell in ("bash", "zsh"):
        first = _init(shell, tmp_path, CONFIG).splitlines()[0]
        assert first == "__parsec_exclude=('^vault ' 'secret[0-9]+' 'it'\\''s')"
        # The shell reads back exactly the strings of the config file.
        out = subprocess.run(
            [shell, "-c", first + "; printf '%s\\n' \"${__parsec_exclude[@]}\""],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert out.splitlines() == ["^vault ", "secret[0-9]+", "it's"]


def test_fish_gets_every_pattern(tmp_path):
    first = _init("fish", tmp_path, CONFIG).splitlines()[0]
    out = subprocess.run(
        ["fish", "-c", first + "; printf '%s\\n' $__parsec_exclude"], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == ["^vault ", "secret[0-9]+", "\\btoken\\b", "it's", "(?i)pass"]


def test_a_broken_or_missing_config_still_gives_a_working_hook(tmp_path):
    for config in ("[privacy\n", "[privacy]\nexclude_commands = 3\n", ""):
        out = _init("bash", tmp_path, config)
        assert out.splitlines()[0] == "__parsec_exclude=()" and "__parsec_route" in out
