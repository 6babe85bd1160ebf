"""The `[search]` keys: read fast (tomllib) by the search, validated by the config model."""

from __future__ import annotations

from parsec.cli.history.search.settings import SearchSettings, load
from parsec.config import SearchConfig


def test_fast_defaults_equal_the_config_model() -> None:
    model = SearchConfig()
    for name in SearchSettings._fields:
        assert getattr(SearchSettings(), name) == getattr(model, name), name


def test_config_file_sets_the_default_filter_and_height(tmp_path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[search]\nfilter = "directory"\nmode = "prefix"\ninline_height = 9\n')
    monkeypatch.setenv("PARSEC_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)
    assert load() == SearchSettings(filter="directory", mode="prefix", inline_height=9)
    config.write_text('[search]\nfilter = "nowhere"\ninline_height = 2\n')  # invalid: the defaults
    assert load() == SearchSettings()


def test_environment_variables_win_over_the_file_as_in_parsec_config(tmp_path, monkeypatch) -> None:
    """PARSEC_SEARCH_* are config variables like any other: Ctrl-R must see what `parsec config
    show` sees (the fast reader leaves them to the full loader)."""
    from parsec.config import load_config

    config = tmp_path / "config.toml"
    config.write_text('[search]\nfilter = "directory"\n')
    monkeypatch.setenv("PARSEC_CONFIG", str(config))
    monkeypatch.setenv("PARSEC_SEARCH_MODE", "prefix")
    monkeypatch.setenv("PARSEC_SEARCH_INLINE_HEIGHT", "20")
    monkeypatch.chdir(tmp_path)
    full = load_config().settings.search
    assert (full.mode, full.inline_height, full.filter) == ("prefix", 20, "directory")
    assert load() == SearchSettings(filter="directory", mode="prefix", inline_height=20)
