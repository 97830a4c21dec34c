"""What a jq run holds, charged to the run's memory budget.

Values are plain Python data shared freely between results, so nothing knows
when one is freed. The places that build values in bulk (array collection,
concatenation, repetition, flattening, paths) charge an estimate of what they
build, and the charges add up. When they reach the budget, or pile up far past
what was last measured, the charge is set to what the values the run is
really holding come to: the arrays being collected, the states of `reduce`
and `foreach`, bound variables and the current input, walked once with
sharing counted once. Only when those do not fit either is it a limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextvars import ContextVar
from itertools import islice

from ...limits import LimitExceeded, MemoryHold

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# charges collected before they go to the budget (keeps the common path cheap)
BATCH = 256 * 1024
# elements an array collects before it charges the run's memory
COLLECT_BATCH = 1024

# rough CPython sizes: object header plus a pointer per slot
_LIST = 56
_SLOT = 8
_STR = 49
_DICT = 64
_ENTRY = 48  # an entry and its share of the hash table (keys are mostly shared)
_NUM = 32
# a dict's header and the hash table a small one starts with ({"a": 1} is 184 bytes, not 64 + 48)
_SMALL_DICT = _DICT + 72
# what the decoder's values hold, measured with tracemalloc (text_cost): a list the C scanner built
# by appending (its header, the collector's link and four slots), a small dict, an element's slot
# and a float or large int in it, a string's header
_LIST_HELD = 88
_DICT_HELD = _SMALL_DICT + _ENTRY
_ITEM_HELD = _SLOT + 24
_STRING_HELD = _STR


def text_cost(text: str) -> int:
    """Bytes the values a JSON text decodes to may hold, read from the text alone (a few counts in C,
    no parse): a `[` is a list with its spare slots, a `{` a small dict, a `,` a slot and the
    number it may hold, a `:` an entry's slot (its value is counted by the `,` after it), a pair of quotes a string, each character its share of a string. It
    stays within about twice what CPython holds for the dense shapes (`[[[[1]]]]`, `[1.5,...]`,
    `{"a":1,"b":[1,2],"c":"xyz"}`): the decoded values of a text are charged before they are made."""
    count = text.count
    return (
        _LIST_HELD * count("[")
        + _DICT_HELD * count("{")
        + _ITEM_HELD * count(",")
        + _SLOT * count(":")
        + _STRING_HELD * (count('"') >> 1)
        + len(text)
    )


def shallow(x: Any) -> int:
    """Bytes of one value without what its elements hold."""
    t = type(x)
    if t is str:
        return _STR + len(x)
    if t is list:
        return _LIST + _SLOT * len(x)
    if t is dict:
        return _SMALL_DICT + _ENTRY * len(x) if x else _DICT
    if t is int or t is float:
        return _NUM
    return 0


_SCALARS = frozenset((int, float, bool, type(None)))


def _slots_cost(items: list[Any]) -> int:
    return 2 * _SLOT * len(items)


def chunk_cost(items: list[Any]) -> int:
    """Bytes a batch of new array elements adds: two slots (a growing list
    briefly holds its old and new slots) plus the element itself."""
    n = (2 * _SLOT + _NUM) * len(items)
    kinds = set(map(type, items))
    if kinds <= _SCALARS:
        return n
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind is str or kind is list or kind is dict:
            # one kind of container (the common case), summed in C: its header and its slots
            each, head = (
                (1, _STR) if kind is str else (_ENTRY, _SMALL_DICT) if kind is dict else (_SLOT, _LIST)
            )
            return n + head * len(items) + each * sum(map(len, items))
    for x in items:
        t = type(x)
        if t is str:
            n += len(x)
        elif t is list:
            n += _LIST + _SLOT * len(x)
        elif t is dict:
            n += _SMALL_DICT + _ENTRY * len(x)
    return n


class JqMemory:
    """The memory one jq run holds (see the module notes)."""

    __slots__ = ("hold", "pending", "roots", "checkpoint", "measured", "since", "settled", "streams")

    def __init__(self, hold: MemoryHold, checkpoint: Callable[[int], None]) -> None:
        self.hold = hold
        self.pending = 0
        # values known to be live: lists being collected, reduce/foreach state
        # cells, bound variables, the current input
        self.roots: list[Any] = []
        self.checkpoint = checkpoint
        self.measured = 0  # what the last measurement found
        self.since = 0  # bytes charged since then
        self.settled = 0  # of those, what was charged before the current input was read
        # the input parsers: what the text they hold will decode to is live (text_cost)
        self.streams: list[Any] = []

    def charge(self, n: int) -> None:
        self.pending += n
        if self.pending >= BATCH:
            self.flush()

    def flush(self) -> None:
        n = self.pending
        self.pending = 0
        self.since += n
        # charges far past the last measurement prompt a new one before the
        # budget is reached, so an estimate does not crowd out the rest of the run
        if self.since > max(self.hold.budget.limits.max_memory // 4, 2 * self.measured):
            self.measure()
        try:
            self.hold.charge(n)
        except LimitExceeded:
            if self.since < self.measured // 2:
                raise  # measured moments ago: measuring again would not help
            self.measure()
            self.hold.charge(n)

    def collect(self, it: Iterator[Any], decoded: bool = False) -> list[Any]:
        """The outputs of `it` as a new array (`[f]`, `map(f)`), in batches (growing to
        COLLECT_BATCH), each charged as it is taken: `[range(1e8)]` stops at the memory budget,
        and the list is live (among the values a measurement counts) while it grows, so what
        its elements hold is not forgotten when a measurement resets the charge. `decoded`: the
        elements are input values, charged by their text (JsonStream.take_cost): only the slots."""
        out: list[Any] = list(islice(it, 8))
        if len(out) < 8:
            # a small array (the common case): its slots, at a flat rate (its
            # elements' own bulk was charged when they were built)
            self.pending += 48 * len(out) + 56
            if self.pending >= BATCH:
                self.flush()
            return out
        cost = _slots_cost if decoded else chunk_cost
        self.charge(cost(out))
        roots = self.roots
        roots.append(out)
        try:
            n = 16
            while True:
                more = list(islice(it, n))
                self.charge(cost(more))
                out += more
                if len(more) < n:
                    return out
                n = min(2 * n, COLLECT_BATCH)
        finally:
            drop_root(roots, out)

    def measure(self) -> None:
        """Set the charge to what the live values come to."""
        self.since = self.settled = 0
        self.measured = deep_size(self.roots, self.checkpoint) + sum(s.held for s in self.streams)
        self.hold.set(self.measured)


def deep_size(roots: list[Any], checkpoint: Callable[[int], None]) -> int:
    """Bytes the values reachable from `roots` hold, each container once."""
    seen: set[int] = set()
    stack = list(roots)
    total = 0
    steps = 0
    while stack:
        x = stack.pop()
        t = type(x)
        if t is list or t is dict or t is tuple:
            if id(x) in seen:
                continue
            seen.add(id(x))
            steps += 1
            if steps & 4095 == 0:
                checkpoint(1)
            items = x.values() if t is dict else x
            total += _SMALL_DICT + _ENTRY * len(x) if t is dict else _LIST + _SLOT * len(x)
            kinds = set(map(type, items))
            if kinds <= _SCALARS:
                total += _NUM * len(x)  # no containers inside: counted in C
            elif len(kinds) == 1 and str in kinds and t is not dict:
                total += _STR * len(x) + sum(map(len, items))
            else:
                stack.extend(items)
        elif t is str and len(x) > 256:
            # a long string shared by many values is held once
            if id(x) not in seen:
                seen.add(id(x))
                total += _STR + len(x)
        else:
            total += shallow(x)
    return total


def expanded_size(value: Any, checkpoint: Callable[[int], None]) -> int:
    """Bytes `value` comes to as a tree, a shared sub-value counted as often
    as it is reached (a YAML alias bomb's real cost once printed or copied);
    each container is visited once, so the sum is cheap on any graph."""
    sizes: dict[int, int] = {}
    keep: list[Any] = []  # the ids in `sizes` stay valid while this runs
    stack: list[tuple[Any, bool]] = [(value, False)]
    steps = 0
    while stack:
        x, done = stack.pop()
        t = type(x)
        if t is not list and t is not dict:
            continue
        if id(x) in sizes and not done:
            continue
        children = list(x.values()) if t is dict else x
        if not done:
            sizes[id(x)] = 0
            keep.append(x)
            stack.append((x, True))
            stack.extend((c, False) for c in children if type(c) is list or type(c) is dict)
            steps += 1
            if not steps & 1023:
                checkpoint(1)
            continue
        total = shallow(x)
        for c in children:
            tc = type(c)
            total += sizes.get(id(c), 0) if tc is list or tc is dict else shallow(c) + _SLOT
        sizes[id(x)] = total
    t = type(value)
    return sizes.get(id(value), 0) if t is list or t is dict else shallow(value)


def drop_root(roots: list[Any], x: Any) -> None:
    """Take `x` (by identity) off the live values: usually the last one."""
    for i in range(len(roots) - 1, -1, -1):
        if roots[i] is x:
            del roots[i]
            return


class live:
    """`with live(x):` counts `x` (a list being built) among the live values."""

    __slots__ = ("x", "roots")

    def __init__(self, x: Any) -> None:
        self.x = x
        mem = MEM.get()
        self.roots = mem.roots if mem is not None else []

    def __enter__(self) -> None:
        self.roots.append(self.x)

    def __exit__(self, *exc: object) -> None:
        drop_root(self.roots, self.x)


# the memory of the jq run on this thread (None: nothing is charged)
MEM: ContextVar[JqMemory | None] = ContextVar("jq_memory", default=None)


def charge(n: int) -> None:
    """Charge `n` bytes to the running program, if one is charging."""
    mem = MEM.get()
    if mem is not None:
        mem.charge(n)
