"""Orderings for PROCINFO["sorted_in"], asort() and asorti().

gawk's predefined orderings compare one key (index or value, as number,
string or by type) and break ties by comparing the indexes as strings; a
descending order reverses the whole comparison.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ...textcache import TextCache
from .io import AwkFatal
from .values import Input, Uninit, Value, num_value, str2num, to_num

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .runtime import Runtime

_ORDERS = {"ind_str", "ind_num", "val_type", "val_str", "val_num"}


def _type_key(v: Value, rt: Runtime) -> tuple[int, float, str]:
    n = num_value(v)
    if n is not None and v.__class__ is not Uninit:
        return (0, n, "")
    if v.__class__ is Uninit:
        return (0, 0.0, "")
    return (1, 0.0, rt.to_str(v))


def _key_fn(order: str, rt: Runtime) -> Any:
    if order == "ind_str":
        return lambda kv: (kv[0], "")
    if order == "ind_num":
        return lambda kv: (str2num(kv[0]), kv[0])
    if order == "val_str":
        return lambda kv: (rt.to_str(kv[1]), kv[0])
    if order == "val_num":
        return lambda kv: (to_num(kv[1]), kv[0])
    return lambda kv: (_type_key(kv[1], rt), kv[0])


def sorted_items(items: list[tuple[str, Value]], how: str, rt: Runtime) -> list[tuple[str, Value]]:
    how = how.strip()
    if how.startswith("@"):
        name = how[1:]
        if name == "unsorted":
            return items
        order, _, direction = name.rpartition("_")
        if order not in _ORDERS or direction not in ("asc", "desc"):
            raise AwkFatal(f"`{how}' is not a valid sorting order")
        arrays: list[tuple[str, Value]] = []
        if order.startswith("val"):
            # subarrays come after every scalar (before, descending), in index order either way
            arrays = sorted((kv for kv in items if isinstance(kv[1], dict)), key=lambda kv: kv[0])
            if arrays:
                items = [kv for kv in items if not isinstance(kv[1], dict)]
        ordered = sorted(items, key=_key_fn(order, rt), reverse=direction == "desc")
        return arrays + ordered if direction == "desc" else ordered + arrays
    fn = rt.ns.get("F_" + how)
    if fn is None:
        raise AwkFatal(f"sort comparison function `{how}' is not defined")

    def compare(a: tuple[str, Value], b: tuple[str, Value]) -> int:
        r = to_num(fn(Input(a[0]), a[1], Input(b[0]), b[1]))
        return (r > 0) - (r < 0)

    return sorted(items, key=functools.cmp_to_key(compare))


def sorted_keys(arr: dict[str, Value], how: str, rt: Runtime) -> list[str]:
    return [k for k, _ in sorted_items(list(arr.items()), how, rt)]


def asort(
    rt: Runtime, src: dict[str, Value], dest: dict[str, Value] | None, how: Value, indices: bool
) -> float:
    items = list(src.items())
    if how is None:
        order = "@ind_str_asc" if indices else "@val_type_asc"
    else:
        order = rt.to_str(how)
    if indices:
        # the indexes are sorted as the values
        pairs: list[tuple[str, Value]] = [(k, Input(k)) for k, _ in items]
        result: list[Value] = [k for k, _ in sorted_items(pairs, order, rt)]
    else:
        result = [v for _, v in sorted_items(items, order, rt)]
    target = src if dest is None else dest
    target.clear()
    for i, v in enumerate(result, 1):
        if isinstance(v, dict) and dest is not None:
            # the source keeps its subarrays; gawk names a copy after the source array
            v = rt.subarrays.copy(v, src, str(i))
        target[str(i)] = v
    return float(len(result))


# ---------------------------------------------------------------- gawk's unsorted order
#
# Without sorted_in, gawk lists an array the way its storage holds it:
# strings first, in the bucket order of its string hash table (sdbm-style
# hash, 13 buckets growing through fixed primes, new entries at the head of
# their chain), then non-negative integer indexes in ascending order. We
# replay the surviving keys' insertions to get the same order.

_SIZES = (
    13,
    127,
    1021,
    8191,
    16381,
    32749,
    65497,
    131101,
    262147,
    524309,
    1048583,
    2097169,
    4194319,
    8388617,
    16777259,
    33554467,
    67108879,
    134217757,
    268435459,
    536870923,
    1073741827,
)
# shared by every run of the process: bounded in entries and text (T-TEN-5)
_HASH_CACHE: TextCache[str, int] = TextCache(entries=1 << 18, chars=1 << 22, longest=256)
_BATCH_MASK = 4095
Tick = Callable[[int], None]


def _awk_hash(key: str) -> int:
    h = _HASH_CACHE.get(key)
    if h is not None:
        return h
    h = 0
    for c in key.encode("utf-8", "surrogateescape"):
        t = (h << 6) & 0xFFFFFFFF
        h = (c + t + (t << 10) - h) & 0xFFFFFFFF
    _HASH_CACHE.put(key, key, h)
    return h


def _is_int(k: str) -> bool:
    """An index gawk stores as an integer: "0" or a 32-bit integer written plainly."""
    body = k[1:] if k[:1] == "-" else k
    if not body.isdigit() or not body.isascii() or (body[0] == "0" and (len(body) > 1 or k[0] == "-")):
        return False
    return len(body) < 10 or -0x80000000 <= int(k) <= 0x7FFFFFFF


def _is_cint(k: str) -> bool:
    return k[:1] != "-" and _is_int(k)


def _int_hash(k: int, size: int) -> int:
    h = k & 0xFFFFFFFF
    h ^= (h << 3) & 0xFFFFFFFF
    h = (h + (h >> 5)) & 0xFFFFFFFF
    h ^= (h << 4) & 0xFFFFFFFF
    h = (h + (h >> 17)) & 0xFFFFFFFF
    h ^= (h << 25) & 0xFFFFFFFF
    h = (h + (h >> 6)) & 0xFFFFFFFF
    return h % size


# Chains are kept oldest first and read backwards (gawk puts new entries at the head):
# appending is O(1) where inserting at the head of a long chain of colliding keys is not.


def _int_insert(buckets: list[list[list[str]]], size: int, k: str) -> None:
    chain = buckets[_int_hash(int(k), size)]
    if not chain or len(chain[-1]) == 2:
        chain.append([k])  # buckets of two entries, new ones at the head
    else:
        chain[-1].append(k)


def _int_order(keys: list[str], tick: Tick) -> list[str]:
    """gawk's integer array: its string indexes first, then the integer hash table."""
    ints = [k for k in keys if _is_int(k)]
    strs = [k for k in keys if not _is_int(k)]
    size = _SIZES[0]
    si = 0
    buckets: list[list[list[str]]] = [[] for _ in range(size)]
    for count, k in enumerate(ints, 1):
        if count // size > 2 and si + 1 < len(_SIZES):
            si += 1
            new_size = _SIZES[si]
            new: list[list[list[str]]] = [[] for _ in range(new_size)]
            for chain in buckets:
                for node in reversed(chain):
                    for old in node:
                        _int_insert(new, new_size, old)
            tick(count)
            buckets, size = new, new_size
        _int_insert(buckets, size, k)
        if not count & _BATCH_MASK:
            tick(_BATCH_MASK + 1)
    return _str_order(strs, tick) + [k for chain in buckets for node in reversed(chain) for k in node]


def gawk_order(keys: list[str], tick: Tick = lambda work: None) -> list[str]:
    """The array type comes from the first index stored in it: non-negative
    integers (listed in order, after the other indexes), integers, or strings.
    `tick(work)` is the run's checkpoint, called every few thousand keys."""
    if not keys:
        return []
    if _is_cint(keys[0]):
        rest = [k for k in keys if not _is_cint(k)]
        cints = sorted((k for k in keys if _is_cint(k)), key=int)
        tick(len(cints))
        if rest and _is_int(rest[0]):
            return _int_order(rest, tick) + cints
        return _str_order(rest, tick) + cints
    if _is_int(keys[0]):
        return _int_order(keys, tick)
    return _str_order(keys, tick)


def _str_order(strs: list[str], tick: Tick) -> list[str]:
    if len(strs) < 2:
        return list(strs)
    size = _SIZES[0]
    si = 0
    buckets: list[list[str]] = [[] for _ in range(size)]
    hashes: dict[str, int] = {}  # each key hashed once per listing, however often the table grows
    work = 0
    for count, k in enumerate(strs, 1):
        if count // size > 2 and si + 1 < len(_SIZES):
            si += 1
            new_size = _SIZES[si]
            new: list[list[str]] = [[] for _ in range(new_size)]
            for chain in buckets:
                for old in reversed(chain):
                    new[hashes[old] % new_size].append(old)
            tick(count)
            buckets, size = new, new_size
        h = hashes[k] = _awk_hash(k)
        buckets[h % size].append(k)
        work += 1 + len(k) // 64
        if work > _BATCH_MASK:
            tick(work)
            work = 0
    return [k for chain in buckets for k in reversed(chain)]
