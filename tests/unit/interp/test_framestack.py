"""interp/framestack.with_room: a call that runs from a frame with room after it on CPython's frame
stack. Its effect (no chunk mapped and unmapped per crossing) shows only in system calls and CPU
time, which tests do not assert; these pin its contract and that runs and threads go through it."""

from __future__ import annotations

import sys
import threading

import pytest

from sandbash import Bash
from sandbash.interp import framestack
from sandbash.interp.control import ExitShell


def test_calls_through_with_arguments_and_result() -> None:
    assert framestack.with_room(divmod, 17, 5) == (3, 2)
    assert framestack.with_room(sorted, [3, 1, 2], reverse=True) == [3, 2, 1]
    assert framestack.with_room(framestack.with_room, max, 4, 9) == 9  # (nested: fits in the chunk)


@pytest.mark.parametrize("exc", [ValueError("v"), ExitShell(3), KeyboardInterrupt()])
def test_exceptions_pass_through(exc: BaseException) -> None:
    def boom() -> None:
        raise exc

    with pytest.raises(type(exc)) as info:
        framestack.with_room(boom)
    assert info.value is exc


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's frame stack")
def test_frame_declares_the_room() -> None:
    assert framestack.with_room.__code__.co_stacksize >= framestack._ROOM_SLOTS


def test_deep_python_recursion_inside() -> None:
    def down(n: int) -> int:
        return 0 if n == 0 else 1 + down(n - 1)

    assert framestack.with_room(down, 600) == 600


def test_runs_and_threads_start_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """A script (exec) and a job's thread each start from with_room, once: not per command."""
    seen: list[str] = []
    original = framestack.with_room

    def spy(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(threading.current_thread().name)
        return original(fn, *args, **kwargs)

    from sandbash.interp import runtime, shell

    monkeypatch.setattr(shell, "with_room", spy)
    monkeypatch.setattr(runtime, "with_room", spy)
    import sandbash.api as api

    monkeypatch.setattr(api, "with_room", spy)
    script = "f() { (( $1 < 3 )) && f $(( $1 + 1 )); echo $1; }; f 0; f 1 & wait; for i in 1 2 3; do :; done"
    result = Bash().exec(script)
    assert result.stdout == "3\n2\n1\n0\n3\n2\n1\n"
    main = threading.current_thread().name
    assert seen.count(main) == 1
    assert len(seen) >= 2  # the job's thread too
