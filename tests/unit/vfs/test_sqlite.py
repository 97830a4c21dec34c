"""SqliteFs: persistence, crash safety, sharing between processes."""

from __future__ import annotations

import multiprocessing as mp
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
