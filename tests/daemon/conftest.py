from __future__ import annotations

import pytest

from .harness import Sandbox


@pytest.fixture
def sandbox():
    box = Sandbox()
    yield box
    box.close()


@pytest.fixture
def make_sandbox():
    boxes: list[Sandbox] = []

    def make(**config: object) -> Sandbox:
        box = Sandbox(**config)
        boxes.append(box)
        return box

    yield make
    for box in boxes:
        box.close()
