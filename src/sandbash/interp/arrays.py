"""The interpreter's import path for the array types, which live below expansion in
sandbash/shvars/arrays.py (expansion uses them too)."""

from __future__ import annotations

from ..shvars.arrays import ELEMENT_OVERHEAD, AssocArray, IndexedArray

__all__ = ["ELEMENT_OVERHEAD", "AssocArray", "IndexedArray"]
