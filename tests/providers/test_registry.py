"""The provider table (providers/registry.py) is the one description of each provider: every entry
has its adapter, and selection, keys and URLs read it."""

from __future__ import annotations

import importlib

import pytest

from parsec.privacy.scrub import LLM_KEY_VARIABLES
from parsec.providers.keys import KEY_VARIABLES
from parsec.providers.provider import Provider
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


def test_every_key_the_table_names_is_scrubbed_from_the_commands_parsec_runs():
    # privacy/scrub.py cannot read this table (a lower layer): a new provider's key is added there too.
    named = {variable for spec in SPECS.values() for variable in spec.key_variables}
    assert named <= LLM_KEY_VARIABLES
