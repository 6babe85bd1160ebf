from __future__ import annotations

import shutil

import pytest

from .harness import Daemon, Sandbox


@pytest.fixture
def sandbox(tmp_path):
    return Sandbox.create(tmp_path)


@pytest.fixture
def daemon(sandbox):
    running = Daemon(sandbox).start()
    yield running
    running.stop()


@pytest.fixture
def fake_daemon(sandbox):
    from .fake_daemon import FakeDaemon

    fake = FakeDaemon(sandbox.runtime).start()
    yield fake
    fake.stop()


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (apt-get install {program})")
