"""Security suite setup: a canary in the host environment (inherited by every
forked case) and command modules imported once before the first fork."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from secharness import ENV_CANARY, ENV_CANARY_NAME, warm_up


@pytest.fixture(scope="session", autouse=True)
def _host_canary_env() -> Iterator[None]:
    old = os.environ.get(ENV_CANARY_NAME)
    os.environ[ENV_CANARY_NAME] = ENV_CANARY
    warm_up()
    yield
    if old is None:
        os.environ.pop(ENV_CANARY_NAME, None)
    else:
        os.environ[ENV_CANARY_NAME] = old
