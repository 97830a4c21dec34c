"""Real Redis and PostgreSQL servers for the store tests (servers.py), started once per test run;
where one cannot start, the tests that need it are skipped, saying why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .servers import Unavailable, postgres_server, redis_server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    try:
        with redis_server() as url:
            yield url
    except Unavailable as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        with postgres_server() as url:
            yield url
    except Unavailable as e:
        pytest.skip(str(e))
