"""Fixtures shared by the interpreter's tests."""

from __future__ import annotations

import pytest

from sandbash.expand import arith
from sandbash.interp import compiler


@pytest.fixture(autouse=True)
def _room_to_generate() -> None:
    """Each test starts with room in the process-wide arithmetic cache's generation budget
    (arith.GEN_CHARS). Tests that count what generated code does assume their texts can be
    generated; a long test worker fills the budget with other tests' texts, and the cache then
    rightly keeps closures (37 such tests failed with it full, one of them in a CI run)."""
    if arith._COMPILED.generated > arith.GEN_CHARS // 2:
        arith._COMPILED.clear()


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
