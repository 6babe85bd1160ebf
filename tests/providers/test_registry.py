"""The provider table (providers/registry.py) is the one description of each provider: every entry
has its adapter, and selection, keys and URLs read it."""

from __future__ import annotations

import importlib

import pytest

from parsec.providers.base import Provider
from parsec.providers.keys import KEY_VARIABLES
from parsec.providers.registry import SPECS
from parsec.providers.select import PROVIDERS, provider_for_model
from parsec.providers.transport import BASE_URL_VARIABLES


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_entry_names_its_adapter(name):
    spec = SPECS[name]
    adapter = getattr(importlib.import_module(f"parsec.providers.{name}"), spec.adapter)
    assert issubclass(adapter, Provider) and adapter.name == name


def test_selection_keys_and_urls_come_from_the_table():
    assert tuple(SPECS) == PROVIDERS
    assert {name: spec.key_variables for name, spec in SPECS.items()} == KEY_VARIABLES
    assert {name: spec.base_url_variable for name, spec in SPECS.items()} == BASE_URL_VARIABLES
    for name, spec in SPECS.items():
        for prefix in spec.model_prefixes:
            assert provider_for_model(prefix + "x") == name
