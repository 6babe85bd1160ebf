from __future__ import annotations

import pytest

from parsec.workflow.classify import Classifier


@pytest.fixture(scope="session")
def classifier() -> Classifier:
    return Classifier()
