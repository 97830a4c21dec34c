"""Room on CPython's frame stack for a shell's run.

CPython (3.11 on) keeps the frames of running Python functions on a stack of chunks, one stack per
thread: a call that does not fit in the current chunk maps a new one (16 KiB, or the next power of
two that holds its frame), which is unmapped as soon as the frame at its start returns. A shell
function call is a few Python frames deep, so a script whose calls go back and forth across a
chunk's end pays an mmap and a munmap (and page faults) per crossing: a recursive function, or a
loop calling a function at just that depth. Where the chunks end depends only on how deep the
embedding program's stack is when it calls `exec`: measured in-process, the same fib of 20 ran in
0.58 to 1.03 s and 20,000 calls of a small function in 0.46 or 1.1 s, from eight stack depths.

`with_room(fn, ...)` calls fn from a frame whose declared value stack is _ROOM_SLOTS slots (64 KiB):
such a frame fits in no ordinary chunk, so it starts one of 128 KiB of its own, and the frames of
the run land in the ~60 KiB after it, about 60 levels of shell calls, whatever the caller's depth.
The declared stack is never written (a frame initialises its locals only), so its pages are never
touched. It wraps what runs once per run or thread (a script, a job's thread), never a command: a
frame of its size pushed per call would map a chunk per call."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import ParamSpec, TypeVar

    P = ParamSpec("P")
    T = TypeVar("T")

# 8 bytes each: with CPython's per-chunk overhead (1000 slots) the frame needs 73 KiB, so its chunk
# is 128 KiB and leaves ~60 KiB to the frames called from it
_ROOM_SLOTS = 8192


def with_room(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """fn(*args, **kwargs), its frames on a chunk of the frame stack with room for them."""
    return fn(*args, **kwargs)


def _declare_room() -> None:
    code = with_room.__code__
    try:
        with_room.__code__ = code.replace(co_stacksize=max(code.co_stacksize, _ROOM_SLOTS))
    except (AttributeError, TypeError, ValueError):  # (no CPython code objects: nothing to gain)
        pass


_declare_room()
