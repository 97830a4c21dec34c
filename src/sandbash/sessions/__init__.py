"""Sessions that outlive a process: snapshots (save, restore, fork) and the stores that keep them.

`Session.snapshot()`, `Bash.restore(data)` and `Session.fork()` are the entry points; the format
is described in docs/snapshots.md. Stores (`open_store(url)`) keep snapshots for BashTool and the
MCP server, so any replica can serve any session.
"""

from __future__ import annotations

from .errors import SnapshotError, StoreConflict
from .snapshot import fork, restore, snapshot
from .stores import MemoryStore, PostgresStore, RedisStore, SessionStore, SqliteStore, open_store

__all__ = [
    "MemoryStore",
    "PostgresStore",
    "RedisStore",
    "SessionStore",
    "SnapshotError",
    "SqliteStore",
    "StoreConflict",
    "fork",
    "open_store",
    "restore",
    "snapshot",
]
