"""The filesystem contract: every backend (and a mount stack) behaves the same
through the facade: same results, same errno on the same misuse."""

from __future__ import annotations

import errno
import threading

import pytest

from sandbash.vfs import DiskQuota, FsError
from sandbash.vfs.base import Stat

from .conftest import Env, Factory, err


def test_files_roundtrip(env: Env) -> None:
    fs = env.view
    fs.write_file("a.txt", "hello\n")
    fs.write_file("a.txt", b"more\n", append=True)
    assert fs.read_file("a.txt") == b"hello\nmore\n"
    st = fs.stat("a.txt")
    assert st.is_file and st.size == 11 and st.uid == 1000 and st.nlink == 1
    fs.truncate("a.txt", 5)
    assert fs.read_file("a.txt") == b"hello"
    fs.truncate("a.txt", 8)
    assert fs.read_file("a.txt") == b"hello\0\0\0"
    fs.write_file("a.txt", b"")
    assert fs.read_file("a.txt") == b"" and fs.stat("a.txt").size == 0
    assert err(lambda: fs.open("a.txt", "x")) == errno.EEXIST


def test_seek_and_rw(env: Env) -> None:
    fs = env.view
    fs.write_file("f", b"0123456789")
    s = fs.open("f", "rw")
    assert s.read(3) == b"012"
    s.close()
    s = fs.open("f", "r")
    h = s.handle  # type: ignore[attr-defined]
    assert h.seek(0, 2) == 10
    h.seek(7)
    assert h.read(10) == b"789"
    s.close()


def test_sparse_and_large_writes(env: Env) -> None:
    fs = env.view
    s = fs.open("big", "w")
    chunk = bytes(range(256)) * 1024  # 256 KiB, crosses chunk boundaries
    for _ in range(3):
        s.write(chunk)
    s.close()
    data = fs.read_file("big")
    assert data == chunk * 3
    s = fs.open("big", "rw")
    s.handle.seek(100_000)  # type: ignore[attr-defined]
    s.write(b"XYZ")
    s.close()
    data = fs.read_file("big")
    assert data[100_000:100_003] == b"XYZ" and data[:100_000] == (chunk * 3)[:100_000]
    assert len(data) == len(chunk) * 3


@pytest.mark.parametrize(
    ("setup", "action", "code"),
    [
        ([], lambda fs: fs.read_file("missing"), errno.ENOENT),
        (["d/"], lambda fs: fs.read_file("d"), errno.EISDIR),
        (["d/"], lambda fs: fs.write_file("d", b"x"), errno.EISDIR),
        (["d/"], lambda fs: fs.mkdir("d"), errno.EEXIST),
        (["f"], lambda fs: fs.mkdir("f"), errno.EEXIST),
        (["f"], lambda fs: fs.mkdir("f/x"), errno.ENOTDIR),
        (["f"], lambda fs: fs.read_file("f/x"), errno.ENOTDIR),
        (["f"], lambda fs: fs.listdir("f"), errno.ENOTDIR),
        (["d/", "d/f"], lambda fs: fs.rmdir("d"), errno.ENOTEMPTY),
        (["f"], lambda fs: fs.rmdir("f"), errno.ENOTDIR),
        (["d/"], lambda fs: fs.unlink("d"), errno.EISDIR),
        ([], lambda fs: fs.unlink("missing"), errno.ENOENT),
        ([], lambda fs: fs.rmdir("missing"), errno.ENOENT),
        ([], lambda fs: fs.mkdir("no/such"), errno.ENOENT),
        (["f", "d/"], lambda fs: fs.rename("f", "d"), errno.EISDIR),
        (["f", "d/"], lambda fs: fs.rename("d", "f"), errno.ENOTDIR),
        (["d/", "e/", "e/x"], lambda fs: fs.rename("d", "e"), errno.ENOTEMPTY),
        (["d/"], lambda fs: fs.rename("d", "d/sub"), errno.EINVAL),
        ([], lambda fs: fs.rename("missing", "x"), errno.ENOENT),
        (["f", "g"], lambda fs: fs.link("f", "g"), errno.EEXIST),
        (["d/"], lambda fs: fs.link("d", "e"), errno.EPERM),
        (["f"], lambda fs: fs.symlink("x", "f"), errno.EEXIST),
        ([], lambda fs: fs.read_file("a\0b"), errno.EINVAL),
        ([], lambda fs: fs.write_file("a\0b", b""), errno.EINVAL),
        ([], lambda fs: fs.symlink("a\0b", "l"), errno.EINVAL),
        ([], lambda fs: fs.write_file("n" * 256, b""), errno.ENAMETOOLONG),
        ([], lambda fs: fs.mkdir("d" * 256), errno.ENAMETOOLONG),
        ([], lambda fs: fs.stat("/" + "a/" * 2100), errno.ENAMETOOLONG),
    ],
)
def test_same_errno_everywhere(env: Env, setup: list[str], action: object, code: int) -> None:
    fs = env.view
    for p in setup:
        if p.endswith("/"):
            fs.mkdir(p[:-1])
        else:
            fs.write_file(p, b"x")
    assert err(lambda: action(fs)) == code  # type: ignore[operator]


def test_long_names_within_limits(env: Env) -> None:
    fs = env.view
    fs.write_file("n" * 255, b"ok")
    assert fs.read_file("n" * 255) == b"ok"


def test_rename_replaces_atomically(env: Env) -> None:
    fs = env.view
    fs.write_file("dst", b"old" * 1000)
    fs.write_file("new", b"new" * 1000)
    seen: set[bytes] = set()
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            seen.add(fs.read_file("dst"))

    t = threading.Thread(target=reader)
    t.start()
    try:
        for i in range(20):
            fs.write_file("tmp", (b"new" if i % 2 else b"old") * 1000)
            fs.rename("tmp", "dst")
    finally:
        stop.set()
        t.join()
    assert seen <= {b"old" * 1000, b"new" * 1000}
    fs.rename("new", "dst")
    assert fs.read_file("dst") == b"new" * 1000 and not fs.exists("new")
    fs.mkdir("d1")
    fs.write_file("d1/f", b"1")
    fs.mkdir("d2")
    fs.rename("d1", "d2")  # over an empty directory
    assert fs.read_file("d2/f") == b"1" and not fs.exists("d1")
    fs.rename("d2/f", "d2/f")
    assert fs.read_file("d2/f") == b"1"


def test_listing_order(env: Env) -> None:
    fs = env.view
    for name in ["b", "a", "C", "_x", "a.b", "a-b", "é", "10", "9"]:
        fs.write_file(name, b"")
    assert fs.listdir(".") == sorted(["b", "a", "C", "_x", "a.b", "a-b", "é", "10", "9"])
    walked = [(d, dirs, files) for d, dirs, files in fs.walk(env.base)]
    assert walked[0][2] == fs.listdir(".")


def test_symlinks(env: Env) -> None:
    fs = env.view
    fs.mkdir("d")
    fs.write_file("d/f", b"data")
    fs.symlink("d/f", "rel")
    fs.symlink(env.base + "/d", "abs")
    fs.symlink("nowhere", "dangling")
    assert fs.read_file("rel") == b"data"
    assert fs.read_file("abs/f") == b"data"
    assert fs.readlink("rel") == "d/f"
    assert fs.lstat("rel").is_link and fs.stat("rel").is_file
    assert fs.lstat("rel").size == 3
    assert err(lambda: fs.read_file("dangling")) == errno.ENOENT
    assert err(lambda: fs.readlink("d/f")) == errno.EINVAL
    fs.write_file("dangling", b"made")  # writing through a dangling link creates its target
    assert fs.read_file("nowhere") == b"made"
    assert fs.realpath("abs/../d/f") == env.base + "/d/f"
    fs.symlink("d", "dl")
    assert fs.realpath("dl/..") == env.base
    fs.unlink("rel")
    assert fs.read_file("d/f") == b"data"


def test_symlink_loops(env: Env) -> None:
    fs = env.view
    fs.symlink("loop2", "loop1")
    fs.symlink("loop1", "loop2")
    assert err(lambda: fs.read_file("loop1")) == errno.ELOOP
    fs.write_file("t0", b"end")
    for i in range(1, 41):
        fs.symlink(f"t{i - 1}", f"t{i}")
    assert fs.read_file("t40") == b"end"  # 40 hops are allowed
    fs.symlink("t40", "t41")
    assert err(lambda: fs.read_file("t41")) == errno.ELOOP


def test_dotdot_and_absolute_links_stay_inside(env: Env) -> None:
    fs = env.view
    if env.kind == "readwrite":
        # a real host link leaving the root is not made (a host program would follow it)
        assert err(lambda: fs.symlink("../../../../../../../../..", "up")) == errno.EACCES
        assert fs.try_lstat("up") is None
        # an absolute target inside the backend is stored relative: on the host it points inside
        fs.symlink("/etc/passwd", "pw")
        assert fs.readlink("pw") == "../etc/passwd"
        assert err(lambda: fs.read_file("pw")) == errno.ENOENT
        return
    fs.symlink("../../../../../../../../..", "up")
    assert fs.realpath("up") == "/"
    fs.symlink("/etc/passwd", "pw")
    assert err(lambda: fs.read_file("pw")) == errno.ENOENT
    assert fs.normpath("../../../../x") == "/x"


def test_hard_links(env: Env) -> None:
    fs = env.view
    fs.write_file("a", b"one")
    fs.link("a", "b")
    assert fs.stat("a").nlink == 2 and fs.stat("a").ino == fs.stat("b").ino
    assert fs.read_file("b") == b"one"
    if env.kind == "readwrite":
        # the hard-link rule: a file with several names is read-only
        assert err(lambda: fs.write_file("a", b"x")) == errno.EPERM
        assert err(lambda: fs.write_file("b", b"x", append=True)) == errno.EPERM
        assert err(lambda: fs.chmod("a", 0o600)) == errno.EPERM
        assert err(lambda: fs.utime("a", 1, 1)) == errno.EPERM
        assert err(lambda: fs.truncate("a", 0)) == errno.EPERM
    else:
        fs.write_file("b", b"two", append=True)
        assert fs.read_file("a") == b"onetwo"
    fs.unlink("a")
    assert fs.stat("b").nlink == 1
    fs.write_file("b", b"free again")
    assert fs.read_file("b") == b"free again"


def test_metadata(env: Env) -> None:
    fs = env.view
    fs.write_file("f", b"x")
    fs.chmod("f", 0o640)
    assert fs.stat("f").perm == 0o640
    fs.utime("f", 1_000_000 * 10**9, 2_000_000 * 10**9)
    st = fs.stat("f")
    assert int(st.atime) == 1_000_000 and int(st.mtime) == 2_000_000
    # float seconds (time.time()) would be a time in January 1970: refused, nothing changed
    for bad in ((1.5e9, None), (None, 1.5e9), (1.0, 2.0)):
        with pytest.raises(TypeError, match="integer nanoseconds"):
            fs.utime("f", *bad)
    assert fs.stat("f").mtime_ns == 2_000_000 * 10**9
    fs.utime("f", None, 3 * 10**18)  # None keeps the access time
    assert fs.stat("f").atime_ns == 1_000_000 * 10**9 and fs.stat("f").mtime_ns == 3 * 10**18
    fs.mkdir("d", 0o700)
    assert fs.stat("d").perm == 0o700 and fs.stat("d").is_dir
    fs.symlink("f", "l")
    assert err(lambda: fs.chmod("l", 0o600, follow=False)) == errno.EOPNOTSUPP
    fs.chmod("l", 0o600)
    assert fs.stat("f").perm == 0o600


def test_permissions_for_the_sandbox_user(env: Env) -> None:
    fs = env.view
    fs.write_file("f", b"secret")
    fs.chmod("f", 0o000)
    assert err(lambda: fs.read_file("f")) == errno.EACCES
    assert err(lambda: fs.write_file("f", b"x")) == errno.EACCES
    fs.chmod("f", 0o644)
    fs.mkdir("d")
    fs.write_file("d/g", b"g")
    fs.chmod("d", 0o600)  # no search permission
    assert err(lambda: fs.read_file("d/g")) == errno.EACCES
    fs.chmod("d", 0o500)  # no write permission
    assert err(lambda: fs.write_file("d/new", b"")) == errno.EACCES
    assert err(lambda: fs.unlink("d/g")) == errno.EACCES
    fs.chmod("d", 0o300)  # no read permission
    assert err(lambda: fs.listdir("d")) == errno.EACCES
    fs.chmod("d", 0o755)
    assert fs.listdir("d") == ["g"]


def test_dev_is_always_there(env: Env) -> None:
    fs = env.vfs.view("/")
    assert fs.listdir("/dev")[:3] == ["fd", "full", "null"]
    assert fs.read_file("/dev/null") == b""
    s = fs.open("/dev/zero")
    assert s.read(4) == b"\0\0\0\0"
    fs.write_file("/dev/null", b"gone")
    assert err(lambda: fs.write_file("/dev/full", b"x")) == errno.ENOSPC
    assert fs.stat("/dev/tty").is_chr  # there, but no controlling terminal: it does not open
    assert err(lambda: fs.open("/dev/tty")) == errno.ENXIO
    assert err(lambda: fs.write_file("/dev/newfile", b"")) == errno.EACCES
    assert fs.stat("/dev/stdin").is_chr


def test_quota_bytes(make: Factory) -> None:
    env = make(DiskQuota(max_bytes=200_000, max_files=1000))
    fs = env.view
    fs.write_file("a", b"x" * 100_000)
    assert err(lambda: fs.write_file("b", b"y" * 150_000)) == errno.ENOSPC
    # nothing partial: the failed write left an empty file, the first intact
    assert fs.read_file("a") == b"x" * 100_000
    assert fs.stat("b").size == 0 if fs.exists("b") else True
    s = fs.open("a", "a")
    with pytest.raises(OSError) as info:
        s.write(b"z" * 150_000)
    s.close()
    assert info.value.errno == errno.ENOSPC
    assert fs.stat("a").size == 100_000
    assert err(lambda: fs.truncate("a", 500_000)) == errno.ENOSPC
    fs.unlink("a")
    fs.write_file("c", b"z" * 150_000)  # the space came back
    assert fs.read_file("c") == b"z" * 150_000


def test_quota_files(make: Factory) -> None:
    env = make(DiskQuota(max_bytes=1 << 20, max_files=20))
    fs = env.view
    made = 0
    with pytest.raises(OSError) as info:
        for i in range(30):
            fs.write_file(f"f{i}", b"")
            made += 1
    assert info.value.errno == errno.ENOSPC
    assert 0 < made < 20
    assert err(lambda: fs.mkdir("dir")) == errno.ENOSPC
    fs.unlink("f0")
    fs.mkdir("dir")


def test_lstat_many_is_lstat_of_each_entry(env: Env) -> None:
    fs = env.view
    fs.mkdir("d")
    fs.write_file("d/f", "x")
    fs.mkdir("d/sub")
    fs.symlink("../d", "d/link")
    fs.symlink("d", "via")
    names = ["f", "gone", "link", "sub", "..", "a/b"]
    for where in ("d", "via", "d/", "d/sub/.."):
        got = fs.lstat_many(where, names)
        for name, r in zip(names, got, strict=True):
            path = where.rstrip("/") + "/" + name
            try:
                want = fs.lstat(path)
            except FsError as e:
                assert isinstance(r, FsError) and r.code == e.code, (where, name)
                continue
            assert isinstance(r, Stat), (where, name)
            assert (r.mode, r.ino, r.size, r.dev) == (want.mode, want.ino, want.size, want.dev)
    assert [getattr(r, "code", None) for r in fs.lstat_many("d/f", ["x"])] == [errno.ENOTDIR]
    assert [getattr(r, "code", None) for r in fs.lstat_many("missing", ["x"])] == [errno.ENOENT]


def test_lstat_many_asks_the_policy_about_every_entry(env: Env) -> None:
    fs = env.view
    fs.mkdir("d")
    fs.write_file("d/ok", "x")
    fs.write_file("d/secret", "x")
    asked: list[str] = []

    def gate(action: str, path: str) -> None:
        asked.append(path)
        if path.endswith("/secret"):
            raise FsError(errno.EACCES, path)

    env.vfs.gate = gate
    ok, secret = fs.lstat_many("d", ["ok", "secret"])
    assert isinstance(ok, Stat) and ok.is_file
    assert isinstance(secret, FsError) and secret.code == errno.EACCES
    assert any(p.endswith("/d/ok") for p in asked)


def test_parent_permissions_checked_on_the_real_parent(env: Env) -> None:
    fs = env.view
    fs.mkdir("w")
    fs.mkdir("ro")
    fs.symlink("../ro", "w/up")  # the walk's last directory is not the parent
    fs.symlink(".", "ro/self")
    fs.chmod("ro", 0o555)
    for p in ("ro/x", "w/up/x", "ro/self/x", "w/up/self/x"):
        assert err(lambda p=p: fs.write_file(p, "x")) == errno.EACCES, p
        assert err(lambda p=p: fs.mkdir(p)) == errno.EACCES, p
    f = fs.open("w/up/../w/ok", "w")  # `..` after a link: the target's parent
    f.write(b"x")
    f.close()
    assert fs.read_file("w/ok") == b"x"
    fs.chmod("ro", 0o755)
