"""SqliteFs: persistence, crash safety, sharing between processes."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import time
from pathlib import Path

from sandbash.vfs import DiskQuota, SqliteFs, Vfs

CTX = mp.get_context("fork")


def content(i: int) -> bytes:
    return (f"file {i} ".encode() * 5000)[: 30_000 + i]


def writer(path: str, started: mp.synchronize.Event) -> None:
    """Publish files forever: write a temporary name in pieces, then rename."""
    fs = Vfs(SqliteFs(path)).view("/")
    fs.mkdir("/out", parents=True)
    i = 0
    while True:
        data = content(i)
        s = fs.open(f"/out/tmp.{i}", "w")
        for k in range(0, len(data), 7000):
            s.write(data[k : k + 7000])
        s.close()
        fs.rename(f"/out/tmp.{i}", f"/out/f.{i}")
        if i % 3 == 0 and i:
            fs.unlink(f"/out/f.{i - 1}")
        i += 1
        if i == 5:
            started.set()


def test_survives_a_killed_writer(tmp_path: Path) -> None:
    path = str(tmp_path / "ws.db")
    SqliteFs(path).close()
    started = CTX.Event()
    p = CTX.Process(target=writer, args=(path, started))
    p.start()
    assert started.wait(60)
    time.sleep(0.3)
    p.kill()  # SIGKILL in the middle of writes
    p.join()
    store = SqliteFs(path)
    assert store.check() == []
    fs = Vfs(store).view("/")
    names = fs.listdir("/out")
    published = [n for n in names if n.startswith("f.")]
    assert len(published) >= 4
    for n in published:
        assert fs.read_file("/out/" + n) == content(int(n[2:]))
    assert len([n for n in names if n.startswith("tmp.")]) <= 1
    fs.write_file("/out/after", b"still works")  # the store is writable again
    assert store.check() == []


def peer(path: str, q: mp.Queue[bytes]) -> None:
    fs = Vfs(SqliteFs(path)).view("/")
    fs.write_file("/from-child", b"hello parent")
    deadline = time.time() + 30
    while time.time() < deadline:
        # creating the file and writing its bytes are two commits, as on a real
        # disk: a reader may see it empty in between
        if fs.exists("/from-parent") and (data := fs.read_file("/from-parent")):
            q.put(data)
            return
        time.sleep(0.01)
    q.put(b"timeout")


def test_two_processes_share_committed_files(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    fs = Vfs(SqliteFs(path)).view("/")
    q: mp.Queue[bytes] = CTX.Queue()
    p = CTX.Process(target=peer, args=(path, q))
    p.start()
    deadline = time.time() + 30
    while not (fs.exists("/from-child") and fs.read_file("/from-child")) and time.time() < deadline:
        time.sleep(0.01)  # (created and written in two commits: wait for the bytes)
    assert fs.read_file("/from-child") == b"hello parent"
    fs.write_file("/from-parent", b"hello child")
    assert q.get(timeout=30) == b"hello child"
    p.join(30)


def test_persists_across_reopen_with_usage(tmp_path: Path) -> None:
    path = str(tmp_path / "p.db")
    store = SqliteFs(path, quota=DiskQuota(10_000, 20))
    fs = Vfs(store).view("/")
    fs.mkdir("/d")
    fs.write_file("/d/a", b"x" * 5000)
    fs.symlink("a", "/d/l")
    fs.link("/d/a", "/d/b")
    fs.chmod("/d/a", 0o600)
    used = (store.quota.used_bytes, store.quota.used_files)
    store.close()
    again = SqliteFs(path, quota=DiskQuota(10_000, 20))
    assert (again.quota.used_bytes, again.quota.used_files) == used  # usage is kept in the store
    fs2 = Vfs(again).view("/")
    assert fs2.read_file("/d/l") == b"x" * 5000
    assert fs2.stat("/d/b").nlink == 2 and fs2.stat("/d/a").perm == 0o600
    fs2.write_file("/d/c", b"")
    assert again.quota.used_bytes == used[0] + 1 and again.quota.used_files == used[1] + 1
    assert again.check() == []


def test_unlinked_open_file_stays_readable(tmp_path: Path) -> None:
    store = SqliteFs(str(tmp_path / "u.db"))
    fs = Vfs(store).view("/")
    fs.write_file("/f", b"keep me")
    s = fs.open("/f")
    fs.unlink("/f")
    assert s.read() == b"keep me"
    assert store.check() == []
    s.close()
    assert store.check() == [] and store.quota.used_bytes == 0


def test_times_are_nanoseconds_and_an_older_store_keeps_seconds(tmp_path: Path) -> None:
    """A new store keeps integer nanoseconds; one made when the columns were REAL seconds
    (which would turn an integer back into a float) goes on in seconds, readable as before."""
    path = str(tmp_path / "ns.db")
    fs = Vfs(SqliteFs(path)).view("/")
    fs.write_bytes("/f", b"x")
    fs.utime("/f", 1, 1704164645_123456789)
    assert (fs.stat("/f").atime_ns, fs.stat("/f").mtime_ns) == (1, 1704164645_123456789)
    old = str(tmp_path / "old.db")
    SqliteFs(old).close()
    db = sqlite3.connect(old)  # the inode table as it was made before: times in REAL columns
    db.execute("DROP TABLE inode")
    db.execute(
        "CREATE TABLE inode(ino INTEGER PRIMARY KEY, mode INTEGER NOT NULL, uid INTEGER NOT NULL,"
        " gid INTEGER NOT NULL, nlink INTEGER NOT NULL, size INTEGER NOT NULL DEFAULT 0, atime REAL NOT NULL,"
        " mtime REAL NOT NULL, ctime REAL NOT NULL, target BLOB)"
    )
    db.execute("INSERT INTO inode VALUES(1, ?, 1000, 1000, 2, 0, 5.5, 1704164645.25, 7.0, NULL)", (0o40755,))
    db.commit()
    db.close()
    legacy = Vfs(SqliteFs(old)).view("/")
    assert (legacy.stat("/").atime_ns, legacy.stat("/").mtime_ns) == (5_500_000_000, 1704164645_250_000_000)
    legacy.write_bytes("/g", b"y")
    legacy.utime("/g", 2_500_000_000, 1704164646_750_000_000)
    assert (legacy.stat("/g").atime_ns, legacy.stat("/g").mtime_ns) == (2_500_000_000, 1704164646_750_000_000)
