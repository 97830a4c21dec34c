"""`SqliteFs`: a persistent workspace in one SQLite file.

Inodes, directory entries and 64 KiB content chunks live in three tables;
every mutating operation (each `write` included) is one `BEGIN IMMEDIATE`
transaction, so a process killed at any point leaves the store as of its
last committed operation, and several processes (WAL mode) see each other's
committed changes. Quota usage is kept in the store itself, so it is shared
by every process and survives restarts; the limits are those of each opener.
"""

from __future__ import annotations

import errno
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .base import (
    NS,
    S_IFDIR,
    S_IFLNK,
    S_IFMT,
    S_IFREG,
    Stat,
    check_replace,
    ns_clock,
    seconds_to_ns,
    split_path,
)
from .errors import FsError
from .quota import DiskQuota

CHUNK = 1 << 16
ROOT = 1
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS inode(ino INTEGER PRIMARY KEY, mode INTEGER NOT NULL, uid INTEGER NOT NULL,"
    " gid INTEGER NOT NULL, nlink INTEGER NOT NULL, size INTEGER NOT NULL DEFAULT 0, atime INTEGER NOT NULL,"
    " mtime INTEGER NOT NULL, ctime INTEGER NOT NULL, target BLOB)",
    "CREATE TABLE IF NOT EXISTS dentry(parent INTEGER NOT NULL, name BLOB NOT NULL, ino INTEGER NOT NULL,"
    " PRIMARY KEY(parent, name)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS dentry_ino ON dentry(ino)",
    "CREATE TABLE IF NOT EXISTS chunk(ino INTEGER NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY(ino, idx)) WITHOUT ROWID",
)
Row = tuple[int, int]  # (ino, mode)


def _b(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


class SqlHandle:
    def __init__(self, fs: SqliteFs, ino: int, readable: bool, writable: bool, append: bool) -> None:
        self.fs = fs
        self.ino = ino
        fs._opened(ino)
        self.readable = readable
        self.writable = writable
        self.append = append
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        if not self.readable:
            raise FsError(errno.EBADF)
        with self.fs._txn(write=False) as cur:
            data = self.fs._read(cur, self.ino, self.pos, n)
        self.pos += len(data)
        return data

    def write(self, data: bytes) -> int:
        if not self.writable:
            raise FsError(errno.EBADF)
        with self.fs._txn() as cur:
            if self.append:
                self.pos = self.fs._size(cur, self.ino)
            self.fs._write(cur, self.ino, self.pos, bytes(data))
        self.pos += len(data)
        return len(data)

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 1:
            pos += self.pos
        elif whence == 2:
            with self.fs._txn(write=False) as cur:
                pos += self.fs._size(cur, self.ino)
        self.pos = max(pos, 0)
        return self.pos

    def truncate(self, size: int) -> None:
        if not self.writable:
            raise FsError(errno.EINVAL)
        with self.fs._txn() as cur:
            self.fs._truncate(cur, self.ino, size)

    def close(self) -> None:
        if self.ino:
            self.fs._closed(self.ino)
            self.ino = 0


class SqliteFs:
    fstype = "sqlitefs"

    def __init__(
        self,
        path: str,
        *,
        quota: DiskQuota | None = None,
        clock: Callable[[], float] = time.time,
        uid: int = 1000,
        gid: int = 1000,
    ) -> None:
        self.path = path
        self.source_name = self.fstype  # `df`/`mount` show no host path (the store's file)
        self.quota = quota or DiskQuota()
        self.clock = clock
        self.clock_ns = ns_clock(clock)
        self._lock = threading.RLock()
        self._open: dict[int, int] = {}  # inode -> handles open in this process
        # inodes whose last handle closed inside another transaction on this thread (a
        # generator finalised by the collector): purged when that transaction commits
        self._purge_later: set[int] = set()
        self._shut = False
        try:
            self._db = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a killed process loses nothing committed; only power loss can drop the last commits
            self._db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as e:
            raise FsError(errno.EIO, f"{path}: {e}")
        with self._txn() as cur:
            for stmt in _SCHEMA:
                cur.execute(stmt)
            # a store made before times were nanoseconds keeps REAL seconds: its columns would
            # turn an integer back into a float, so it goes on in seconds (read and written as such)
            kinds = {row[1]: str(row[2]).upper() for row in cur.execute("PRAGMA table_info(inode)")}
            self._seconds = kinds.get("atime") != "INTEGER"
            if cur.execute("SELECT 1 FROM inode WHERE ino=?", (ROOT,)).fetchone() is None:
                now = self._now()
                cur.execute(
                    "INSERT INTO inode VALUES(?,?,?,?,2,0,?,?,?,NULL)",
                    (ROOT, S_IFDIR | 0o755, uid, gid, now, now, now),
                )
                cur.executemany("INSERT OR IGNORE INTO meta VALUES(?, 0)", (("bytes",), ("files",)))
            # files removed while open when their process ended
            for (ino,) in cur.execute("SELECT ino FROM inode WHERE nlink = 0").fetchall():
                self._purge(cur, ino)

    def close(self) -> None:
        with self._lock:
            self._shut = True
            self._db.close()

    # ------------------------------------------------------------ plumbing

    @contextmanager
    def _txn(self, write: bool = True) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._db.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.Error:
                raise FsError(errno.EIO)
            try:
                yield cur
                while self._purge_later:
                    self._purge(cur, self._purge_later.pop())
                cur.execute("COMMIT")
            except BaseException as e:
                if self._db.in_transaction:
                    cur.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error):
                    raise FsError(errno.EIO, str(e))
                raise
            if write:
                self._sync_usage(cur)

    def _sync_usage(self, cur: sqlite3.Cursor) -> None:
        meta = dict(cur.execute("SELECT key, value FROM meta").fetchall())
        self.quota.used_bytes = meta.get("bytes", 0)
        self.quota.used_files = meta.get("files", 0)

    def _charge(self, cur: sqlite3.Cursor, nbytes: int, nfiles: int = 0) -> None:
        """Signed change of usage, refused with ENOSPC (the transaction rolls back)."""
        if nbytes > 0 or nfiles > 0:
            meta = dict(cur.execute("SELECT key, value FROM meta").fetchall())
            q = self.quota
            if (nbytes > 0 and meta["bytes"] + nbytes > q.max_bytes) or (
                nfiles > 0 and meta["files"] + nfiles > q.max_files
            ):
                raise FsError(errno.ENOSPC)
        cur.execute("UPDATE meta SET value = value + ? WHERE key = 'bytes'", (nbytes,))
        if nfiles:
            cur.execute("UPDATE meta SET value = value + ? WHERE key = 'files'", (nfiles,))

    def _child(self, cur: sqlite3.Cursor, parent: int, name: str) -> Row | None:
        row = cur.execute(
            "SELECT d.ino, i.mode FROM dentry d JOIN inode i ON i.ino = d.ino"
            " WHERE d.parent = ? AND d.name = ?",
            (parent, _b(name)),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def _walk(self, cur: sqlite3.Cursor, parts: list[str]) -> Row:
        row: Row = (ROOT, S_IFDIR)
        for name in parts:
            if row[1] & S_IFMT != S_IFDIR:
                raise FsError(errno.ELOOP if row[1] & S_IFMT == S_IFLNK else errno.ENOTDIR)
            found = self._child(cur, row[0], name)
            if found is None:
                raise FsError(errno.ENOENT)
            row = found
        return row

    def _parent(self, cur: sqlite3.Cursor, path: str) -> tuple[int, str, Row | None]:
        """(parent inode, name, the entry if it exists)."""
        parts = split_path(path)
        if not parts:
            raise FsError(errno.EEXIST)
        ino, mode = self._walk(cur, parts[:-1])
        if mode & S_IFMT != S_IFDIR:
            raise FsError(errno.ELOOP if mode & S_IFMT == S_IFLNK else errno.ENOTDIR)
        return ino, parts[-1], self._child(cur, ino, parts[-1])

    def _size(self, cur: sqlite3.Cursor, ino: int) -> int:
        row = cur.execute("SELECT size FROM inode WHERE ino = ?", (ino,)).fetchone()
        if row is None:
            raise FsError(errno.ENOENT)  # removed while open
        return int(row[0])

    def _touch(self, cur: sqlite3.Cursor, ino: int, *cols: str) -> None:
        now = self._now()
        cur.execute(
            f"UPDATE inode SET {', '.join(c + ' = ?' for c in cols)} WHERE ino = ?",
            (*([now] * len(cols)), ino),
        )

    def _new(
        self,
        cur: sqlite3.Cursor,
        parent: int,
        name: str,
        mode: int,
        uid: int,
        gid: int,
        target: str | None = None,
    ) -> int:
        now = self._now()
        tb = _b(target) if target is not None else None
        size = len(tb) if tb is not None else 0
        self._charge(cur, len(_b(name)) + size, 1)
        cur.execute(
            "INSERT INTO inode(mode, uid, gid, nlink, size, atime, mtime, ctime, target)"
            " VALUES(?,?,?,?,?,?,?,?,?)",
            (mode, uid, gid, 2 if mode & S_IFMT == S_IFDIR else 1, size, now, now, now, tb),
        )
        ino = int(cur.lastrowid or 0)
        cur.execute("INSERT INTO dentry VALUES(?,?,?)", (parent, _b(name), ino))
        self._touch(cur, parent, "mtime", "ctime")
        return ino

    def _drop(self, cur: sqlite3.Cursor, parent: int, name: str, row: Row) -> None:
        """Remove one name; the inode and its content go with its last link."""
        ino, mode = row
        cur.execute("DELETE FROM dentry WHERE parent = ? AND name = ?", (parent, _b(name)))
        freed = len(_b(name))
        if mode & S_IFMT == S_IFDIR:
            cur.execute("UPDATE inode SET nlink = nlink - 1 WHERE ino = ?", (parent,))
            cur.execute("DELETE FROM inode WHERE ino = ?", (ino,))
        else:
            cur.execute("UPDATE inode SET nlink = nlink - 1 WHERE ino = ?", (ino,))
            self._touch(cur, ino, "ctime")
            # the content lives on while a handle is open (read after unlink/rename over it)
            if ino not in self._open:
                self._purge(cur, ino)
        self._charge(cur, -freed, -1)
        self._touch(cur, parent, "mtime", "ctime")

    def _purge(self, cur: sqlite3.Cursor, ino: int) -> None:
        """Delete an inode that has no name left."""
        row = cur.execute("SELECT size FROM inode WHERE ino = ? AND nlink <= 0", (ino,)).fetchone()
        if row is not None:
            cur.execute("DELETE FROM inode WHERE ino = ?", (ino,))
            cur.execute("DELETE FROM chunk WHERE ino = ?", (ino,))
            self._charge(cur, -row[0])

    def _opened(self, ino: int) -> None:
        with self._lock:
            self._open[ino] = self._open.get(ino, 0) + 1

    def _closed(self, ino: int) -> None:
        with self._lock:
            left = self._open.pop(ino, 1) - 1
            if left > 0:
                self._open[ino] = left
                return
            if self._shut:
                return  # an unlinked inode left behind is purged when the store is next opened
            if self._db.in_transaction:
                self._purge_later.add(ino)
                return
            with self._txn() as cur:
                self._purge(cur, ino)

    def _empty(self, cur: sqlite3.Cursor, ino: int) -> bool:
        return cur.execute("SELECT 1 FROM dentry WHERE parent = ? LIMIT 1", (ino,)).fetchone() is None

    # ------------------------------------------------------------ content

    def _read(self, cur: sqlite3.Cursor, ino: int, pos: int, n: int) -> bytes:
        row = cur.execute("SELECT size FROM inode WHERE ino = ?", (ino,)).fetchone()
        size = row[0] if row else 0
        end = size if n < 0 else min(size, pos + n)
        if pos >= end:
            return b""
        buf = bytearray(end - pos)  # holes read as zeros
        for idx, data in cur.execute(
            "SELECT idx, data FROM chunk WHERE ino = ? AND idx BETWEEN ? AND ?",
            (ino, pos // CHUNK, (end - 1) // CHUNK),
        ):
            start = idx * CHUNK
            a, b = max(start, pos), min(start + len(data), end)
            if a < b:
                buf[a - pos : b - pos] = data[a - start : b - start]
        return bytes(buf)

    def _write(self, cur: sqlite3.Cursor, ino: int, pos: int, data: bytes) -> None:
        if not data:
            return
        size = self._size(cur, ino)
        end = pos + len(data)
        self._charge(cur, max(0, end - size))
        for idx in range(pos // CHUNK, (end - 1) // CHUNK + 1):
            start = idx * CHUNK
            a, b = max(pos, start), min(end, start + CHUNK)
            piece = data[a - pos : b - pos]
            if a > start or (b < start + CHUNK and b < size):
                old = cur.execute("SELECT data FROM chunk WHERE ino = ? AND idx = ?", (ino, idx)).fetchone()
                buf = bytearray(old[0] if old else b"")
                if len(buf) < a - start:
                    buf.extend(bytes(a - start - len(buf)))
                buf[a - start : b - start] = piece
                piece = bytes(buf)
            cur.execute("INSERT OR REPLACE INTO chunk VALUES(?,?,?)", (ino, idx, piece))
        now = self._now()
        cur.execute(
            "UPDATE inode SET size = max(size, ?), mtime = ?, ctime = ? WHERE ino = ?", (end, now, now, ino)
        )

    def _truncate(self, cur: sqlite3.Cursor, ino: int, size: int) -> None:
        old = self._size(cur, ino)
        self._charge(cur, size - old)
        if size < old:
            keep = (size + CHUNK - 1) // CHUNK
            cur.execute("DELETE FROM chunk WHERE ino = ? AND idx >= ?", (ino, keep))
            if size % CHUNK:
                cur.execute(
                    "UPDATE chunk SET data = substr(data, 1, ?) WHERE ino = ? AND idx = ?",
                    (size % CHUNK, ino, size // CHUNK),
                )
        now = self._now()
        cur.execute("UPDATE inode SET size = ?, mtime = ?, ctime = ? WHERE ino = ?", (size, now, now, ino))

    # ------------------------------------------------------------ protocol

    def lstat(self, path: str) -> Stat:
        with self._txn(write=False) as cur:
            ino, _ = self._walk(cur, split_path(path))
            mode, uid, gid, nlink, size, atime, mtime, ctime = cur.execute(
                "SELECT mode, uid, gid, nlink, size, atime, mtime, ctime FROM inode WHERE ino = ?", (ino,)
            ).fetchone()
        if mode & S_IFMT == S_IFDIR:
            size = 4096
        return Stat(
            mode, size, ino, nlink, uid, gid, self._loaded(atime), self._loaded(mtime), self._loaded(ctime)
        )

    def readlink(self, path: str) -> str:
        with self._txn(write=False) as cur:
            ino, mode = self._walk(cur, split_path(path))
            if mode & S_IFMT != S_IFLNK:
                raise FsError(errno.EINVAL)
            target = cur.execute("SELECT target FROM inode WHERE ino = ?", (ino,)).fetchone()[0]
        return bytes(target).decode("utf-8", "surrogateescape")

    def listdir(self, path: str) -> list[str]:
        with self._txn(write=False) as cur:
            ino, mode = self._walk(cur, split_path(path))
            if mode & S_IFMT != S_IFDIR:
                raise FsError(errno.ENOTDIR)
            rows = cur.execute("SELECT name FROM dentry WHERE parent = ? ORDER BY name", (ino,)).fetchall()
        return [bytes(r[0]).decode("utf-8", "surrogateescape") for r in rows]

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> SqlHandle:
        with self._txn(write=flags != "r") as cur:
            parent, name, row = self._parent(cur, path)
            if row is None:
                if flags == "r":
                    raise FsError(errno.ENOENT)
                ino = self._new(cur, parent, name, S_IFREG | mode, uid, gid)
            else:
                ino, kind = row[0], row[1] & S_IFMT
                if flags == "x":
                    raise FsError(errno.EEXIST)
                if kind == S_IFDIR:
                    raise FsError(errno.EISDIR)
                if kind == S_IFLNK:
                    raise FsError(errno.ELOOP)
                if flags == "w":
                    self._truncate(cur, ino, 0)
            # registered inside the transaction, so no rename can purge it first
            return SqlHandle(self, ino, flags in ("r", "rw"), flags != "r", flags == "a")

    def truncate(self, path: str, size: int) -> None:
        with self._txn() as cur:
            ino, mode = self._walk(cur, split_path(path))
            if mode & S_IFMT != S_IFREG:
                raise FsError(errno.EISDIR if mode & S_IFMT == S_IFDIR else errno.EINVAL)
            self._truncate(cur, ino, size)

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        with self._txn() as cur:
            parent, name, row = self._parent(cur, path)
            if row is not None:
                raise FsError(errno.EEXIST)
            self._new(cur, parent, name, S_IFDIR | mode, uid, gid)
            cur.execute("UPDATE inode SET nlink = nlink + 1 WHERE ino = ?", (parent,))

    def rmdir(self, path: str) -> None:
        with self._txn() as cur:
            parent, name, row = self._parent(cur, path)
            if row is None:
                raise FsError(errno.ENOENT)
            if row[1] & S_IFMT != S_IFDIR:
                raise FsError(errno.ENOTDIR)
            if not self._empty(cur, row[0]):
                raise FsError(errno.ENOTEMPTY)
            self._drop(cur, parent, name, row)

    def unlink(self, path: str) -> None:
        with self._txn() as cur:
            parent, name, row = self._parent(cur, path)
            if row is None:
                raise FsError(errno.ENOENT)
            if row[1] & S_IFMT == S_IFDIR:
                raise FsError(errno.EISDIR)
            self._drop(cur, parent, name, row)

    def rename(self, src: str, dst: str) -> None:
        with self._txn() as cur:
            sparent, sname, srow = self._parent(cur, src)
            dparent, dname, drow = self._parent(cur, dst)
            if srow is None:
                raise FsError(errno.ENOENT)
            if drow is not None and drow[0] == srow[0]:
                return
            is_dir = srow[1] & S_IFMT == S_IFDIR
            if is_dir and dst.startswith(src.rstrip("/") + "/"):
                raise FsError(errno.EINVAL)
            if drow is not None:
                check_replace(Stat(srow[1]), Stat(drow[1]), self._empty(cur, drow[0]))
                self._drop(cur, dparent, dname, drow)
            self._charge(cur, len(_b(dname)) - len(_b(sname)))
            cur.execute(
                "UPDATE dentry SET parent = ?, name = ? WHERE parent = ? AND name = ?",
                (dparent, _b(dname), sparent, _b(sname)),
            )
            if is_dir and sparent != dparent:
                cur.execute("UPDATE inode SET nlink = nlink - 1 WHERE ino = ?", (sparent,))
                cur.execute("UPDATE inode SET nlink = nlink + 1 WHERE ino = ?", (dparent,))
            for ino in {sparent, dparent}:
                self._touch(cur, ino, "mtime", "ctime")
            self._touch(cur, srow[0], "ctime")

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        with self._txn() as cur:
            parent, name, row = self._parent(cur, path)
            if row is not None:
                raise FsError(errno.EEXIST)
            self._new(cur, parent, name, S_IFLNK | 0o777, uid, gid, target)

    def link(self, src: str, dst: str) -> None:
        with self._txn() as cur:
            ino, mode = self._walk(cur, split_path(src))
            if mode & S_IFMT == S_IFDIR:
                raise FsError(errno.EPERM)
            parent, name, row = self._parent(cur, dst)
            if row is not None:
                raise FsError(errno.EEXIST)
            self._charge(cur, len(_b(name)), 1)
            cur.execute("INSERT INTO dentry VALUES(?,?,?)", (parent, _b(name), ino))
            cur.execute("UPDATE inode SET nlink = nlink + 1 WHERE ino = ?", (ino,))
            self._touch(cur, ino, "ctime")
            self._touch(cur, parent, "mtime", "ctime")

    def _set(self, path: str, sql: str, args: tuple[object, ...]) -> None:
        with self._txn() as cur:
            ino, _ = self._walk(cur, split_path(path))
            cur.execute(f"UPDATE inode SET {sql}, ctime = ? WHERE ino = ?", (*args, self._now(), ino))

    def chmod(self, path: str, mode: int) -> None:
        self._set(path, "mode = (mode & ?) | ?", (S_IFMT, mode & 0o7777))

    def chown(self, path: str, uid: int, gid: int) -> None:
        self._set(
            path,
            "uid = CASE WHEN ? >= 0 THEN ? ELSE uid END, gid = CASE WHEN ? >= 0 THEN ? ELSE gid END",
            (uid, uid, gid, gid),
        )

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        self._set(path, "atime = ?, mtime = ?", (self._stored(atime_ns), self._stored(mtime_ns)))

    def _stored(self, ns: int) -> int | float:
        """A time as this store's columns keep it."""
        return ns / NS if self._seconds else ns

    def _loaded(self, value: int | float) -> int:
        """A stored time as nanoseconds."""
        return seconds_to_ns(value) if self._seconds else int(value)

    def _now(self) -> int | float:
        return self._stored(self.clock_ns())

    # ------------------------------------------------------------ checking

    def check(self) -> list[str]:
        """Consistency problems in the store (an fsck); empty when sound."""
        problems: list[str] = []
        with self._txn(write=False) as cur:
            q = cur.execute
            for (ino,) in q("SELECT ino FROM dentry WHERE ino NOT IN (SELECT ino FROM inode)"):
                problems.append(f"entry for missing inode {ino}")
            for (ino,) in q(
                "SELECT ino FROM inode WHERE ino != ? AND nlink > 0 AND ino NOT IN (SELECT ino FROM dentry)",
                (ROOT,),
            ):
                problems.append(f"orphan inode {ino}")
            for ino, nlink, links in q(
                "SELECT i.ino, i.nlink, count(d.ino) FROM inode i JOIN dentry d ON d.ino = i.ino"
                " WHERE i.mode & ? != ? GROUP BY i.ino",
                (S_IFMT, S_IFDIR),
            ):
                if nlink != links:
                    problems.append(f"inode {ino}: nlink {nlink}, {links} names")
            for ino, size, top in q(
                "SELECT i.ino, i.size, max(c.idx * ? + length(c.data)) FROM inode i"
                " JOIN chunk c ON c.ino = i.ino GROUP BY i.ino",
                (CHUNK,),
            ):
                if top > size:
                    problems.append(f"inode {ino}: chunks beyond size {size}")
            names, files = q("SELECT coalesce(sum(length(name)), 0), count(*) FROM dentry").fetchone()
            held = q(
                "SELECT coalesce(sum(size), 0) FROM inode WHERE mode & ? IN (?, ?)",
                (S_IFMT, S_IFREG, S_IFLNK),
            ).fetchone()[0]
            meta = dict(q("SELECT key, value FROM meta").fetchall())
            if meta.get("bytes") != names + held or meta.get("files") != files:
                problems.append(f"usage {meta} != bytes {names + held}, files {files}")
        return problems
