"""gawk's arrays of arrays at run time: an array element may hold a subarray.

Only programs that can make a subarray (the analysis sets `Symbols.nested`) use
the checked element helpers here; others keep plain dict operations. A
subarray is an `AwkArray` that knows its name (`a["1"]["x"]`) for gawk's
fatal errors, and is tracked weakly so the run's memory check counts it
wherever it hangs (globals, locals, other subarrays) and forgets it once freed.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from itertools import islice

from .io import AwkFatal
from .values import ASSIGNED_UNINIT, UNINIT, ArrayName, AwkArray, Value, str2num

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Array = dict[str, "Any"]  # (a string: typing is not imported at run time)


def _elem(d: Array, k: str, owner: str) -> str:
    """gawk's name of an element: the array's name (a global array's, or the
    subarray's path) and the index quoted."""
    return f'{d.spelled() if isinstance(d, AwkArray) else owner}["{k}"]'


def _child(d: Array, k: str, owner: str) -> ArrayName:
    return (d.name if isinstance(d, AwkArray) else owner, k)


def _scalar_as_array(d: Array, k: str, owner: str) -> AwkFatal:
    return AwkFatal(f"attempt to use scalar `{_elem(d, k, owner)}' as an array")


def _array_as_scalar(v: AwkArray) -> AwkFatal:
    # gawk names the subarray itself, which is the element's name unless an argument made it
    return AwkFatal(f"attempt to use array `{v.spelled()}' in a scalar context")


class Subarrays:
    """The helpers generated code calls, and the set of live subarrays for the memory check."""

    def __init__(self, tick: Callable[[int], None]) -> None:
        self.tick = tick  # the run's checkpoint
        # by id: a dict is unhashable; an entry goes when its array is freed
        self.live: weakref.WeakValueDictionary[int, AwkArray] = weakref.WeakValueDictionary()

    def new(self, name: ArrayName) -> AwkArray:
        a = AwkArray(name)
        self.live[id(a)] = a
        return a

    def sub(self, d: Array, k: str, owner: str, scalar_msg: str = "", by_arg: bool = False) -> AwkArray:
        """The subarray d[k], made when the element is missing or only referenced.
        `scalar_msg`: the error when d[k] is a scalar, for contexts gawk words their own way;
        `by_arg`: the subarray is made by passing d[k] as an array argument, which gawk
        leaves unnamed (its messages say `(null)`)."""
        v = d.get(k)
        if v.__class__ is AwkArray:
            return v  # type: ignore[return-value]
        if v is None or v is UNINIT:
            a = self.new("(null)" if by_arg else _child(d, k, owner))
            d[k] = a
            return a
        raise AwkFatal(scalar_msg) if scalar_msg else _scalar_as_array(d, k, owner)

    @staticmethod
    def find(d: Array | None, k: str, owner: str) -> AwkArray | None:
        """The subarray d[k] if it exists (`delete a[1][2]` makes nothing; an element only
        referenced is a scalar to delete, as gawk has it)."""
        if d is None:
            return None
        v = d.get(k)
        if v.__class__ is AwkArray:
            return v  # type: ignore[return-value]
        if v is None:
            return None
        raise _scalar_as_array(d, k, owner)

    @staticmethod
    def get(d: Array, k: str) -> Value:
        """d[k] in a scalar context (referencing an element creates it)."""
        v = d.get(k)
        if v is None:
            d[k] = UNINIT
            return UNINIT
        if v.__class__ is AwkArray:
            raise _array_as_scalar(v)  # type: ignore[arg-type]
        return v  # type: ignore[no-any-return]

    @staticmethod
    def value(d: Array, k: str) -> Any:
        """d[k] as isarray(), length(), typeof() and an untyped parameter see it: a scalar or an array."""
        return d.setdefault(k, UNINIT)

    @staticmethod
    def num(d: Array, k: str) -> float:
        v = d.get(k, 0.0)
        if v.__class__ is float:
            return v  # type: ignore[no-any-return]
        if v.__class__ is AwkArray:
            raise _array_as_scalar(v)  # type: ignore[arg-type]
        return str2num(v)

    @staticmethod
    def set(d: Array, k: str, v: Value) -> Value:
        old = d.get(k)
        if old.__class__ is AwkArray:
            raise _array_as_scalar(old)  # type: ignore[arg-type]
        # an element assigned the uninitialized value is a scalar from now on
        d[k] = ASSIGNED_UNINIT if v is UNINIT else v
        return v

    @staticmethod
    def scalar_param(v: Any, param: str) -> Value:
        """A read of a scalar parameter that was given an element f(a[k]), which may be a subarray."""
        if v.__class__ is AwkArray:
            raise AwkFatal(f"attempt to use array `{param} (from {v.spelled()})' in a scalar context")
        return v  # type: ignore[no-any-return]

    def copy(self, src: Array, named_in: Array, k: str) -> AwkArray:
        """A deep copy of src, named as named_in[k] (asort's destination), level by level
        (a recursive copy would fail on deep nesting), checking the deadline per level."""
        top = self.new(_child(named_in, k, "(null)"))
        work: list[tuple[Array, AwkArray]] = [(src, top)]
        while work:
            old, new = work.pop()
            self.tick(len(old) + 1)
            for key, v in old.items():
                if isinstance(v, dict):
                    child = self.new((new.name, key))
                    new[key] = child
                    work.append((v, child))
                else:
                    new[key] = v
        return top

    def install(self, ns: dict[str, Any]) -> None:
        ns.update(
            {
                "_sub": self.sub,
                "_subq": self.find,
                "_aget": self.get,
                "_aval": self.value,
                "_anum": self.num,
                "_aset2": self.set,
                "_pscal": self.scalar_param,
                "_newarr": self.new,
            }
        )

    def measure(self, sizer: Callable[[Array], int]) -> tuple[int, int]:
        """(elements, bytes) the live subarrays hold, estimated from a sample: walking
        every subarray at each check would make a loop that adds them quadratic."""
        n = len(self.live)
        if not n:
            return 0, 0
        sample = list(islice(self.live.values(), 32))
        if not sample:
            return 0, 0
        elements = sum(len(a) for a in sample)
        nbytes = sum(sizer(a) for a in sample)
        return elements * n // len(sample), nbytes * n // len(sample)
