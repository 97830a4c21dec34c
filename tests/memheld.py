"""What a shell's variables hold, for tests that compare max_memory's account across runs."""

from __future__ import annotations

from sandbash.shvars.vars import VarStore, value_size


def vars_held(store: VarStore) -> int:
    """`store.held()` less the last run's own text: BASH_EXECUTION_STRING holds each run's script
    and is charged as any variable, so two runs of different texts differ by their lengths."""
    var = store.globals.get("BASH_EXECUTION_STRING")
    return store.held() - (value_size(var.value) if var is not None else 0)
