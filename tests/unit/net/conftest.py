from __future__ import annotations

from collections.abc import Iterator

import pytest

from .netfixtures import Guard, Server, http_server, loopback_only


@pytest.fixture(autouse=True)
def guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    with loopback_only(monkeypatch) as g:
        yield g


@pytest.fixture
def server() -> Iterator[Server]:
    with http_server() as s:
        yield s
