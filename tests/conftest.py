"""Test-wide setup: makes tests/ importable (`from realtools import real_command, have`)."""

from collections.abc import Generator

import pytest

from oracle import OracleUnavailable


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A test whose real-program oracle cannot be sandboxed here (tests/oracle.py: no bwrap, or no
    right to build its namespaces) is skipped with the reason: never run unsandboxed on the host."""
    try:
        return (yield)
    except OracleUnavailable as e:
        pytest.skip(str(e))
