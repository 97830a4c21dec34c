"""Session stores: where snapshots live between calls, shared by every replica of a service.

Every store keeps, per key, the snapshot bytes and a version number. `save(key, data, version)`
is a compare-and-swap: it writes only if the stored version is still `version` (None: the key
must not exist yet) and returns the new version; otherwise it raises `StoreConflict`, and the
caller loads again and retries on the new state. Entries expire after their TTL; a store refuses
an entry larger than its `max_bytes`.

Built in: `MemoryStore` (one process), `SqliteStore` (one file in WAL mode: the embedded
default, shared by processes on one machine), `RedisStore` (`redis`, extra `sandbash[redis]`)
and `PostgresStore` (`psycopg` 3, extra `sandbash[postgres]`). `open_store(url)` picks one from
`memory://`, `sqlite:///path/to/file.db`, `redis://host:port/db` or `postgresql://...`.
These modules reach the host (a file, a socket) on the embedder's behalf, never a script's.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import SnapshotError, StoreConflict

DEFAULT_MAX_BYTES = 64 << 20


class SessionStore(Protocol):
    """What BashTool and the MCP server need of a store."""

    def load(self, key: str) -> tuple[bytes, int] | None:
        """(snapshot, version), or None when the key is absent or expired."""

    def save(self, key: str, data: bytes, version: int | None, ttl: float | None = None) -> int:
        """Write if the stored version is still `version` (None: absent); the new version.
        StoreConflict when someone saved since; SnapshotError when `data` is over the size limit."""

    def delete(self, key: str) -> None: ...

    def keys(self, prefix: str = "") -> list[str]:
        """The live keys starting with `prefix`, sorted."""

    def close(self) -> None: ...


def _check_size(data: bytes, max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise SnapshotError(f"session snapshot of {len(data)} bytes is over the store's limit of {max_bytes}")


@dataclass
class _Entry:
    data: bytes
    version: int
    expires: float | None


class MemoryStore:
    """A store in this process's memory (tests, one-process servers)."""

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES, clock: Callable[[], float] = time.time) -> None:
        self.max_bytes = max_bytes
        self._clock = clock
        self._data: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def _live(self, key: str) -> _Entry | None:
        e = self._data.get(key)
        if e is not None and e.expires is not None and e.expires <= self._clock():
            del self._data[key]
            return None
        return e

    def load(self, key: str) -> tuple[bytes, int] | None:
        with self._lock:
            e = self._live(key)
            return None if e is None else (e.data, e.version)

    def save(self, key: str, data: bytes, version: int | None, ttl: float | None = None) -> int:
        _check_size(data, self.max_bytes)
        with self._lock:
            e = self._live(key)
            if (e.version if e is not None else None) != version:
                raise StoreConflict(f"session {key!r} changed since it was loaded")
            new = (version or 0) + 1
            self._data[key] = _Entry(bytes(data), new, None if ttl is None else self._clock() + ttl)
            return new

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def keys(self, prefix: str = "") -> list[str]:
        with self._lock:
            return sorted(k for k in list(self._data) if k.startswith(prefix) and self._live(k) is not None)

    def close(self) -> None:
        pass


class SqliteStore:
    """Sessions in one SQLite file (WAL), safe for several processes on one machine."""

    def __init__(
        self,
        path: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], float] = time.time,
        timeout: float = 30.0,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._clock = clock
        self._local = threading.local()
        self._timeout = timeout
        with self._tx() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS sandbash_sessions (key TEXT PRIMARY KEY, version INTEGER NOT NULL,"
                " data BLOB NOT NULL, expires REAL)"
            )

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            # one connection per thread, in autocommit: _tx opens each transaction itself
            db = sqlite3.connect(
                self.path, timeout=self._timeout, isolation_level=None, check_same_thread=True
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before the first read (BEGIN IMMEDIATE): a compare and
        its swap cannot interleave with another process's."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def load(self, key: str) -> tuple[bytes, int] | None:
        row = (
            self._db()
            .execute("SELECT data, version, expires FROM sandbash_sessions WHERE key = ?", (key,))
            .fetchone()
        )
        if row is None or (row[2] is not None and row[2] <= self._clock()):
            return None
        return bytes(row[0]), int(row[1])

    def save(self, key: str, data: bytes, version: int | None, ttl: float | None = None) -> int:
        _check_size(data, self.max_bytes)
        now = self._clock()
        expires = None if ttl is None else now + ttl
        with self._tx() as db:
            row = db.execute(
                "SELECT version, expires FROM sandbash_sessions WHERE key = ?", (key,)
            ).fetchone()
            current = None if row is None or (row[1] is not None and row[1] <= now) else int(row[0])
            if current != version:
                raise StoreConflict(f"session {key!r} changed since it was loaded")
            new = (version or 0) + 1
            db.execute(
                "INSERT INTO sandbash_sessions (key, version, data, expires) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET version = excluded.version, data = excluded.data, "
                "expires = excluded.expires",
                (key, new, sqlite3.Binary(data), expires),
            )
            return new

    def delete(self, key: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM sandbash_sessions WHERE key = ?", (key,))

    def keys(self, prefix: str = "") -> list[str]:
        rows = (
            self._db()
            .execute(
                "SELECT key, expires FROM sandbash_sessions WHERE substr(key, 1, ?) = ?",
                (len(prefix), prefix),
            )
            .fetchall()
        )
        now = self._clock()
        return sorted(k for k, exp in rows if exp is None or exp > now)

    def purge(self) -> int:
        """Remove expired entries; how many."""
        with self._tx() as db:
            return db.execute(
                "DELETE FROM sandbash_sessions WHERE expires IS NOT NULL AND expires <= ?", (self._clock(),)
            ).rowcount

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


# Redis: the version and the data in one hash; a server-side script makes the check and the write atomic
_REDIS_CAS = """
local cur = redis.call('HGET', KEYS[1], 'v')
if (cur or '') ~= ARGV[1] then return -1 end
local new = tonumber(ARGV[1] ~= '' and ARGV[1] or '0') + 1
redis.call('HSET', KEYS[1], 'v', new, 'd', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
return new
"""


class RedisStore:
    """Sessions in Redis (`pip install 'sandbash[redis]'`); TTL is Redis's own expiry."""

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "sandbash:session:",
        max_bytes: int = DEFAULT_MAX_BYTES,
        client: Any = None,
    ) -> None:
        if client is None:
            try:
                import redis
            except ImportError:
                raise SnapshotError(
                    "the Redis store needs the redis package: pip install 'sandbash[redis]'"
                ) from None
            client = redis.Redis.from_url(url)
        self._r = client
        self.prefix = prefix
        self.max_bytes = max_bytes
        self._cas = client.register_script(_REDIS_CAS)

    def load(self, key: str) -> tuple[bytes, int] | None:
        got = self._r.hmget(self.prefix + key, "d", "v")
        if got[0] is None or got[1] is None:
            return None
        return bytes(got[0]), int(got[1])

    def save(self, key: str, data: bytes, version: int | None, ttl: float | None = None) -> int:
        _check_size(data, self.max_bytes)
        ms = "" if ttl is None else str(max(1, int(ttl * 1000)))
        new = int(
            self._cas(keys=[self.prefix + key], args=["" if version is None else str(version), data, ms])
        )
        if new < 0:
            raise StoreConflict(f"session {key!r} changed since it was loaded")
        return new

    def delete(self, key: str) -> None:
        self._r.delete(self.prefix + key)

    def keys(self, prefix: str = "") -> list[str]:
        n = len(self.prefix)
        return sorted(
            k.decode()[n:] for k in self._r.scan_iter(match=_redis_glob(self.prefix + prefix) + "*")
        )

    def close(self) -> None:
        self._r.close()


def _redis_glob(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


class PostgresStore:
    """Sessions in PostgreSQL (`pip install 'sandbash[postgres]'`, psycopg 3)."""

    def __init__(
        self,
        url: str,
        *,
        table: str = "sandbash_sessions",
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        try:
            import psycopg
        except ImportError:
            raise SnapshotError(
                "the PostgreSQL store needs psycopg: pip install 'sandbash[postgres]'"
            ) from None
        if not table.replace("_", "").isalnum():
            raise ValueError(f"PostgresStore: bad table name {table!r}")
        self._psycopg = psycopg
        self._url = url
        self.table = table
        self.max_bytes = max_bytes
        self._clock = clock
        self._local = threading.local()
        c = self._conn()
        with c.transaction():
            c.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, version BIGINT NOT NULL, "
                "data BYTEA NOT NULL, expires DOUBLE PRECISION)"
            )

    def _conn(self) -> Any:
        c = getattr(self._local, "conn", None)
        if c is None or c.closed:
            c = self._psycopg.connect(self._url, autocommit=True)
            self._local.conn = c
        return c

    def load(self, key: str) -> tuple[bytes, int] | None:
        c = self._conn()
        with c.transaction():
            row = c.execute(
                f"SELECT data, version, expires FROM {self.table} WHERE key = %s", (key,)
            ).fetchone()
        if row is None or (row[2] is not None and row[2] <= self._clock()):
            return None
        return bytes(row[0]), int(row[1])

    def save(self, key: str, data: bytes, version: int | None, ttl: float | None = None) -> int:
        _check_size(data, self.max_bytes)
        now = self._clock()
        expires = None if ttl is None else now + ttl
        new = (version or 0) + 1
        c = self._conn()
        with c.transaction():
            if version is None:
                # absent, or present but expired: replaced; a live row makes the insert do nothing
                cur = c.execute(
                    f"INSERT INTO {self.table} (key, version, data, expires) VALUES (%s, %s, %s, %s) "
                    f"ON CONFLICT (key) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, "
                    f"expires = EXCLUDED.expires WHERE {self.table}.expires IS NOT NULL AND "
                    f"{self.table}.expires <= %s",
                    (key, new, data, expires, now),
                )
            else:
                cur = c.execute(
                    f"UPDATE {self.table} SET version = %s, data = %s, expires = %s WHERE key = %s AND "
                    "version = %s AND (expires IS NULL OR expires > %s)",
                    (new, data, expires, key, version, now),
                )
            if cur.rowcount != 1:
                raise StoreConflict(f"session {key!r} changed since it was loaded")
        return new

    def delete(self, key: str) -> None:
        c = self._conn()
        with c.transaction():
            c.execute(f"DELETE FROM {self.table} WHERE key = %s", (key,))

    def keys(self, prefix: str = "") -> list[str]:
        c = self._conn()
        with c.transaction():
            rows = c.execute(
                f"SELECT key FROM {self.table} WHERE left(key, %s) = %s AND "
                "(expires IS NULL OR expires > %s) ORDER BY key",
                (len(prefix), prefix, self._clock()),
            ).fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()


def open_store(url: str, **kw: Any) -> SessionStore:
    """A store from a URL: memory://, sqlite:///path, redis://host:port/db, postgresql://..."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme == "memory":
        return MemoryStore(**kw)
    if scheme == "sqlite":
        path = url[len("sqlite://") :]
        if not path.startswith("/") or path == "/":
            raise ValueError(
                f"sqlite store URL needs an absolute file path: sqlite:///path/to/file.db, not {url!r}"
            )
        return SqliteStore(path, **kw)
    if scheme in ("redis", "rediss", "unix"):
        return RedisStore(url, **kw)
    if scheme in ("postgres", "postgresql"):
        return PostgresStore(url, **kw)
    raise ValueError(
        f"unknown session store URL {url!r} (memory://, sqlite:///path, redis://, postgresql://)"
    )
