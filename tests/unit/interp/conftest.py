"""Fixtures shared by the interpreter's tests."""

from __future__ import annotations

import pytest

from sandbash.expand import arith
from sandbash.interp import compiler


@pytest.fixture(autouse=True)
def _room_to_generate() -> None:
    """Each test starts with room in the process-wide arithmetic cache: in its generation budget
    (arith.GEN_CHARS) and in its own bounds. Tests that count what generated code does assume
    their texts are generated and stay in the cache while they run; in a long test worker other
    tests' texts fill the budget (the cache then rightly keeps closures: 37 such tests failed with
    it full) or its entries, and the cache starting over mid-test drops a text a generated loop
    waits for (it then goes on without it: two CI runs failed on one or the other)."""
    cache = arith._COMPILED
    if (
        cache.generated > arith.GEN_CHARS // 2
        or len(cache) > cache.entries // 2
        or cache.held() > cache.chars // 2
    ):
        cache.clear()


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
