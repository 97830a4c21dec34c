"""Shells forked for pipeline stages, background jobs and process substitutions are freed when they
end (processes.release_ended breaks their reference cycles), not by a gen-2 collection: on loaded
hosts those collections stalled runs for seconds. A shell that a process it started still refers to
(SIGCHLD, its job table, `$!`, a coprocess) is freed only when the last of them ends."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbash import Bash, Limits
from sandbash.errors import ExecutionLimitError
from sandbash.interp.shell import Shell

SPEC = Path(__file__).resolve().parents[2] / "spec"
sys.path.insert(0, str(SPEC))

from spec_loader import Case, parse  # type: ignore[import-not-found]  # noqa: E402

# the cases of tests/spec/cases/fx_gc.txt (recorded from bash 5.2) use a shell after it ended
CASES: list[Case] = parse(SPEC / "cases" / "fx_gc.txt").cases


@pytest.fixture
def thread_errors() -> Iterator[list[BaseException]]:
    """Exceptions raised in the run's threads (a freed shell used by a process it started)."""
    errors: list[BaseException] = []
    old = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        errors.append(args.exc_value if args.exc_value is not None else RuntimeError(str(args.exc_type)))

    threading.excepthook = hook
    try:
        yield errors
    finally:
        threading.excepthook = old


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_shell_is_freed_only_after_the_processes_it_started(
    case: Case, thread_errors: list[BaseException]
) -> None:
    r = Bash().exec(case.script)
    assert (r.stdout, r.exit_code) == (case.stdout, case.status)
    assert not thread_errors


# loop bodies of builtins only (an external command's PATH lookup leaves a cycle of its own, in vfs)
_BODIES = [
    "echo $i | read x",
    "{ echo $i; echo b; } | while read l; do :; done",
    "echo $i | f | { read w; }",
    "echo $i | { read x; } | { read y; echo $y; } >/dev/null",
    "{ x=$i; } & wait",
    "echo $i | { read x; } & wait",
    ": | { : & wait; }",
    ": | { : & }; wait",
    "{ : & wait; } & wait",
    "read v < <(echo $i)",
    "coproc { read l; echo $l; }; echo $i >&${COPROC[1]}; read r <&${COPROC[0]}; wait",
    "echo $i | { read x; echo $(echo $x | { read y; echo $y; }); } >/dev/null",
]


def _shells_left(bash: Bash, body: str, times: int) -> int:
    """How many shells the run left to the collector (in reference cycles)."""
    script = f"f() {{ read v; echo $v; }}; for ((i = 0; i < {times}; i++)); do {body}; done"
    gc.collect()
    gc.disable()
    try:
        assert bash.exec(script).exit_code == 0
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return sum(isinstance(o, Shell) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("body", _BODIES)
def test_ended_stages_and_jobs_leave_no_shell_to_the_collector(body: str) -> None:
    bash = Bash()
    _shells_left(bash, body, 1)  # (warm: parse caches, lazy imports)
    few, many = _shells_left(bash, body, 2), _shells_left(bash, body, 8)
    # (each iteration left every shell it forked: 1-4 of them, with ~100 objects each)
    assert many == few, (few, many)


@pytest.mark.parametrize(
    ("script", "limit"),
    [
        ("f() { f | f; }; f", "max_threads"),
        (":(){ :|:& };:", "max_threads"),
        ("f() { f & f & wait; }; f", "max_threads"),
        ("f() { { f; } | { f; }; }; f", "max_threads"),
        ("f() { read x < <(f); }; f", "max_threads"),
    ],
)
def test_a_fork_bomb_leaves_no_shell_to_the_collector(script: str, limit: str) -> None:
    """Shells forked for a stage, job or substitution whose thread could not start (max_threads) are
    freed too: a bomb left one per thread (~128 at the bashbox profile, ~100 objects each)."""
    bash = Bash(limits=Limits(max_threads=24, timeout=30))
    gc.collect()
    gc.disable()
    try:
        with pytest.raises(ExecutionLimitError) as got:
            bash.exec(script)
        assert got.value.limit == limit
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        # (a freed shell holds nothing: one the collector finds emptied is no cost)
        left = [o for o in gc.garbage if isinstance(o, Shell) and o.__dict__]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not left
