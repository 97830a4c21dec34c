"""Vfs._open_mem (open() of a plain path on the in-memory root, one walk over its inodes) answers
exactly as open()'s general walk does: the same stream or the same error (code and name), the
same policy questions in the same order, the same tree afterwards; on every backend kind (only
the in-memory root takes it), for every flag, as the owner, another user and root, through
links, '..', mounts, refused searches, read-only files and directories without write permission."""

from __future__ import annotations

import errno
import itertools

import pytest

from sandbash.vfs import FsError, MemoryFs, Vfs
from sandbash.vfs.ops import FileOp

from .conftest import Env, Factory

FLAGS = ["r", "w", "a", "rw", "x"]
# below the env's base (`B`); the tree is made by _tree
NAMES = [
    "B/f",
    "B/ro",
    "B/wo",
    "B/d",
    "B/d/g",
    "B/d/e/h",
    "B/d/new",
    "B/new",
    "B/nope/x",
    "B/f/x",
    "B/ld/g",
    "B/lf",
    "B/dang",
    "B/d/../f",
    "B/./d/./g",
    "B//d//g",
    "B/d/",
    "B/d/.",
    "B/closed/in",
    "B/closed/new",
    "B/shut/in",
    "B/shut/new",
    "B/deny/in",
    "B/deny/new",
    "B/d/" + "n" * 64,
    "B/" + "n" * 300,
    "B/bad\0name",
    "/topfile",
    "/topnew",
    "/dev/null",
    "/dev/newdev",
    "/mnt/ov/w/f",
    "/mnt/ov/w/new",
    "/",
]


def _tree(env: Env) -> None:
    v = env.view
    v.mkdir("d/e", parents=True)
    v.write_file("f", b"data")
    v.write_file("ro", b"ro")
    v.chmod("ro", 0o444)
    v.write_file("wo", b"wo")
    v.chmod("wo", 0o200)
    v.write_file("d/g", b"g")
    v.write_file("d/e/h", b"")
    v.symlink("d", "ld")
    v.symlink("f", "lf")
    v.symlink("missing", "dang")
    v.mkdir("closed")
    v.write_file("closed/in", b"in")
    v.chmod("closed", 0o600)  # no search permission
    v.mkdir("shut")
    v.write_file("shut/in", b"in")
    v.chmod("shut", 0o555)  # no write permission: nothing new is made there
    v.mkdir("deny")
    v.write_file("deny/in", b"in")
    try:
        env.vfs.view("/").write_file("/topfile", b"top")
    except FsError:
        pass  # (a root this user cannot write to)


def _run(env: Env, uid: int) -> list[object]:
    asked: list[tuple[str, str]] = []

    def gate(action: FileOp, path: str) -> None:
        asked.append((action.value, path))
        if "/deny/" in path:
            raise FsError(errno.EACCES, path)

    vfs = env.vfs
    vfs.uid = uid
    vfs.gate = gate
    paths = [n.replace("B", env.base, 1) if n.startswith("B") else n for n in NAMES]
    out: list[object] = []
    for path, flags in itertools.product(paths, FLAGS):
        asked.clear()
        try:
            s = vfs.open(path, flags)
        except FsError as e:
            out.append((path, flags, "error", e.code, e.path, list(asked)))
            continue
        if s.writable:
            s.write(b"+" + flags.encode())
        got = type(s).__name__, s.readable, s.writable, getattr(s, "path", None), list(asked)
        s.close()
        out.append((path, flags, got))
    vfs.gate = None
    vfs.uid = 1000
    view = vfs.view("/")
    for path in paths:  # the tree afterwards: every file's content and mode
        try:
            st = view.stat(path)
            out.append(
                (path, st.mode, st.size, view.read_bytes(path) if st.mode & 0o400 and st.is_file else None)
            )
        except FsError as e:
            out.append((path, e.code))
    return out


@pytest.mark.parametrize("uid", [1000, 1001, 0])
def test_inode_walk_opens_as_the_general_walk(
    make: Factory, monkeypatch: pytest.MonkeyPatch, uid: int
) -> None:
    fast_env = make()
    _tree(fast_env)
    fast = _run(fast_env, uid)
    slow_env = make()
    _tree(slow_env)
    monkeypatch.setattr(Vfs, "_open_mem", lambda *_: None)
    slow = _run(slow_env, uid)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow, strict=True):
        assert a == b


def test_the_inode_walk_is_taken_only_on_a_writable_plain_memory_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It is the path the common case takes (else the test above compares the general walk with
    itself), and never over a read-only root, a subclass of MemoryFs or a nested mount table."""
    taken: list[str] = []
    real = Vfs._open_mem

    def spy(self: Vfs, mem: MemoryFs, path: str, flags: str, mode: int) -> object:
        got = real(self, mem, path, flags, mode)
        if got is not None:
            taken.append(path)
        return got

    monkeypatch.setattr(Vfs, "_open_mem", spy)
    vfs = Vfs(MemoryFs())
    view = vfs.view("/")
    view.mkdir("/w")
    view.write_file("/w/f", b"x")
    assert view.read_bytes("/w/f") == b"x" and taken == ["/w/f", "/w/f"]

    class Sub(MemoryFs):
        pass

    for tree in (Vfs(Sub()).tree, Vfs(MemoryFs()).tree):
        if not isinstance(tree.memroot, Sub) and tree.memroot is not None:
            tree.mount("/", tree.memroot, read_only=True)
        assert tree.memroot is None
    assert Vfs(Vfs(MemoryFs()).tree).tree.memroot is None  # (a MountFs as the backend)


def test_the_path_cache_keeps_only_short_plain_paths_and_a_bounded_number() -> None:
    """Vfs._plain is a Vfs's for its whole life (a session's runs): a path it does not take (too
    long, '..') is not kept, and at most _PLAIN_MAX paths are."""
    from sandbash.vfs import facade

    vfs = Vfs()
    long_path = "/" + "a" * 100_000
    for path in (long_path, "/x/../y", "/bad\0"):
        with pytest.raises(FsError):
            vfs.open(path, "r")
    assert vfs._plain == {}
    for k in range(3 * facade._PLAIN_MAX):
        with pytest.raises(FsError):
            vfs.open(f"/missing{k}", "r")
    assert 0 < len(vfs._plain) <= facade._PLAIN_MAX
