"""A process-wide cache of what was parsed from text (arithmetic, subscripts), shared by every run.

No run is charged for what such a cache keeps, and a parse can hold far more memory than its text
(an arithmetic tree costs about 100 bytes a character). So the cache is bounded in entries and in
the total text behind them, and keeps nothing parsed from a long text: one run must not be able to
make the process hold memory that outlives it (T-TEN-5). Long texts are parsed each time, which
costs no more than evaluating them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TextCache(Generic[K, V]):
    """get/put by key; `put` names the text the value was parsed from."""

    __slots__ = ("entries", "chars", "longest", "_data", "_held")

    def __init__(self, entries: int = 4096, chars: int = 1 << 18, longest: int = 1024) -> None:
        self.entries = entries
        self.chars = chars
        self.longest = longest
        self._data: dict[K, V] = {}
        self._held = 0  # characters of text behind the entries

    def get(self, key: K) -> V | None:
        return self._data.get(key)

    def put(self, key: K, text: str, value: V) -> None:
        size = len(text)
        if size > self.longest:
            return
        if len(self._data) >= self.entries or self._held + size > self.chars:
            # start over (a fresh dict: another thread may be reading the old one)
            self._data = {}
            self._held = 0
        self._data[key] = value
        self._held += size

    def __len__(self) -> int:
        return len(self._data)

    def held(self) -> int:
        """Characters of text behind the entries."""
        return self._held

    def keys(self) -> list[K]:
        return list(self._data)
