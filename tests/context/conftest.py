"""Fixtures for the context engine tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """No personal PARSEC.md or config from the machine running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))  # the trust list (project PARSEC.md)
    return tmp_path


@pytest.fixture
def workdir(tmp_path):
    """A project directory that is not a git repository (so no git subprocess runs)."""
    path = tmp_path / "project"
    path.mkdir()
    (path / "Cargo.toml").write_text("[package]\nname = 'demo'\n")
    return path
