"""A `store` fixture that runs each test against SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from parsec.store import open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request) -> str:
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return request.getfixturevalue(fixture)


@pytest.fixture
def store(store_url):
    opened = open_store(store_url)
    yield opened
    opened.close()
