"""Fixtures shared by the interpreter's tests."""

from __future__ import annotations

import pytest

from sandbash.interp import compiler


@pytest.fixture
def compilers(monkeypatch: pytest.MonkeyPatch) -> list[compiler.Compiler]:
    """Every Compiler made while the test runs, in order (the first is the run's main shell's)."""
    made: list[compiler.Compiler] = []
    original = compiler.Compiler.__init__

    def spy(self: compiler.Compiler, ev: object) -> None:
        original(self, ev)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(compiler.Compiler, "__init__", spy)
    return made
