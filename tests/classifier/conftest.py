from __future__ import annotations

import pytest

from parsec.routing import Classifier


@pytest.fixture(scope="session")
def classifier() -> Classifier:
    return Classifier()
