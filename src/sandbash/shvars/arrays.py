"""Bash's two array types.

`IndexedArray` is sparse (a dict) but appends in O(1) and iterates in index
order without sorting while indexes only grow. `AssocArray` iterates in the
order bash's hash table gives (FNV-1 buckets, newest first in a bucket), so
`${!a[@]}` prints keys in the same order as real bash.
"""

from __future__ import annotations

from collections.abc import Iterator

# What one element costs beyond its text (str header, dict slot, key): the memory
# budget charges `nbytes`, kept up to date on every change so a whole array is
# accounted in O(1). Measured with tracemalloc (200,000 elements of 6 characters, made by
# a=($(seq N)), mapfile, a[i]=$i, m[k$i]=$i): 133-141 bytes an element beyond its text are
# kept (96 was charged: a million-element array held ~40 MB more than max_memory saw).
ELEMENT_OVERHEAD = 136


def text_bytes(value: str) -> int:
    """Bytes a str holds, conservatively: 1 per character for ASCII, 4 otherwise."""
    return len(value) if value.isascii() else 4 * len(value)


def elements_bytes(values: list[str]) -> int:
    """What storing `values` as new elements adds to `nbytes` (text_bytes and ELEMENT_OVERHEAD each)."""
    n = sum(map(len, values))  # (the lengths and the test of every value in C)
    if not all(map(str.isascii, values)):
        n = sum([len(v) if v.isascii() else 4 * len(v) for v in values])
    return n + ELEMENT_OVERHEAD * len(values)


class IndexedArray:
    __slots__ = ("_d", "_ordered", "_max", "nbytes")

    def __init__(self, values: list[str] | None = None, nbytes: int = -1) -> None:
        """`nbytes`: elements_bytes(values) when the caller has it (it charged them first)."""
        if values:
            self._d: dict[int, str] = dict(enumerate(values))
            self._max = len(values) - 1
            self.nbytes = elements_bytes(values) if nbytes < 0 else nbytes
        else:
            self._d = {}
            self._max = -1
            self.nbytes = 0
        self._ordered = True

    def copy(self) -> IndexedArray:
        new = IndexedArray.__new__(IndexedArray)
        new._d = dict(self._d)
        new._ordered = self._ordered
        new._max = self._max
        new.nbytes = self.nbytes
        return new

    def __len__(self) -> int:
        return len(self._d)

    def __bool__(self) -> bool:
        return bool(self._d)

    def _sort(self) -> None:
        if not self._ordered:
            self._d = dict(sorted(self._d.items()))
            self._ordered = True

    def get(self, index: int) -> str | None:
        return self._d.get(index)

    def set(self, index: int, value: str) -> None:
        d = self._d
        n = len(value) if value.isascii() else 4 * len(value)
        if index > self._max:
            self._max = index
            n += ELEMENT_OVERHEAD
        else:
            old = d.get(index)
            if old is None:
                self._ordered = False
                n += ELEMENT_OVERHEAD
            else:
                n -= text_bytes(old)
        self.nbytes += n
        d[index] = value

    def append(self, value: str) -> None:
        self._max += 1
        self._d[self._max] = value
        self.nbytes += text_bytes(value) + ELEMENT_OVERHEAD

    def extend(self, values: list[str], nbytes: int) -> None:
        """`values` after the highest index (`a+=(x y)`); `nbytes` is elements_bytes(values),
        which the caller charged before."""
        d = self._d
        top = self._max
        for v in values:
            top += 1
            d[top] = v
        self._max = top
        self.nbytes += nbytes

    def unset(self, index: int) -> None:
        d = self._d
        old = d.pop(index, None)
        if old is not None:
            self.nbytes -= text_bytes(old) + ELEMENT_OVERHEAD
            if index == self._max:
                self._max = max(d) if d else -1

    def max_index(self) -> int:
        return self._max

    def keys(self) -> list[int]:
        self._sort()
        return list(self._d)

    def values(self) -> list[str]:
        self._sort()
        return list(self._d.values())

    def items(self) -> list[tuple[int, str]]:
        self._sort()
        return list(self._d.items())

    def __contains__(self, index: int) -> bool:
        return index in self._d

    def __iter__(self) -> Iterator[str]:
        return iter(self.values())


_FNV_OFFSET = 2166136261
_FNV_PRIME = 16777619
ASSOC_BUCKETS = 1024  # bash's ASSOC_HASH_BUCKETS
CONVERTED_BUCKETS = 128  # hash_create(0)'s default: a scalar `declare -A` converts (convert_var_to_assoc)
FILENAME_BUCKETS = 256  # the command hash table's (hashcmd.h)
ALIAS_BUCKETS = 64  # the alias table's (alias.h)


def _bucket(key: str, buckets: int) -> int:
    """bash's hash_string (FNV-1) over the key's bytes as C's signed chars."""
    h = _FNV_OFFSET
    for byte in key.encode("utf-8", "surrogateescape"):
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
        h ^= byte if byte < 0x80 else byte | 0xFFFFFF00
    return h & (buckets - 1)


def hash_order(keys: list[str], buckets: int) -> list[str]:
    """`keys` (oldest first) in the order a bash hash table of `buckets` buckets lists them:
    buckets in ascending order, the newest first within a bucket."""
    n = len(keys)
    return [k for _, _, k in sorted((_bucket(k, buckets), n - i, k) for i, k in enumerate(keys))]


class AssocArray:
    __slots__ = ("_d", "_order", "nbytes", "buckets")

    def __init__(self, buckets: int = ASSOC_BUCKETS) -> None:
        self._d: dict[str, str] = {}
        self._order: list[str] | None = None
        self.nbytes = 0
        # a copy of the alias or command hash table (BASH_ALIASES, BASH_CMDS) has that table's
        self.buckets = buckets

    def copy(self) -> AssocArray:
        new = AssocArray(self.buckets)
        new._d = dict(self._d)
        new.nbytes = self.nbytes
        return new

    def __len__(self) -> int:
        return len(self._d)

    def __bool__(self) -> bool:
        return bool(self._d)

    def get(self, key: str) -> str | None:
        return self._d.get(key)

    def set(self, key: str, value: str) -> None:
        old = self._d.get(key)
        if old is None:
            self._order = None
            self.nbytes += text_bytes(key) + text_bytes(value) + ELEMENT_OVERHEAD
        else:
            self.nbytes += text_bytes(value) - text_bytes(old)
        self._d[key] = value

    def unset(self, key: str) -> None:
        old = self._d.pop(key, None)
        if old is not None:
            self._order = None
            self.nbytes -= text_bytes(key) + text_bytes(old) + ELEMENT_OVERHEAD

    def __contains__(self, key: str) -> bool:
        return key in self._d

    def keys(self) -> list[str]:
        if self._order is None:
            self._order = hash_order(list(self._d), self.buckets)
        return list(self._order)

    def values(self) -> list[str]:
        d = self._d
        return [d[k] for k in self.keys()]

    def items(self) -> list[tuple[str, str]]:
        d = self._d
        return [(k, d[k]) for k in self.keys()]
