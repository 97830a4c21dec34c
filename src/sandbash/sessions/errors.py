"""The one error a snapshot or a store raises for bad input."""

from __future__ import annotations

from ..errors import SandbashError


class SnapshotError(SandbashError):
    """A snapshot that cannot be restored here: damaged, too large, of another format version,
    or needing a mount this sandbox does not have. Nothing was changed."""


class StoreConflict(SandbashError):
    """A session was saved by someone else since it was loaded (compare-and-swap lost)."""
