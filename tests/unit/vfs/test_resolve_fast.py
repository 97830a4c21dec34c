"""The short path walk (Vfs._resolve_plain, the backends' lstat_chain) answers exactly as the
general walk does: same canonical path, same stats, same error (code, name, where it stopped),
on every backend kind, through links, '..', mounts, missing names and refused searches."""

from __future__ import annotations

import errno
import itertools
from collections.abc import Callable
from functools import partial

import pytest

from sandbash.vfs import FsError, MemoryFs, MountFs, Vfs
from sandbash.vfs.base import Stat, lstat_chain

from .conftest import Env, Factory

# paths below the env's base (`B`); the tree is made by _tree
NAMES = [
    "B",
    "B/f",
    "B/d",
    "B/d/g",
    "B/d/e",
    "B/d/e/h",
    "B/nope",
    "B/nope/x",
    "B/d/nope",
    "B/f/x",
    "B/ld",
    "B/ld/g",
    "B/lf",
    "B/lf/x",
    "B/dang",
    "B/dang/x",
    "B/labs",
    "B/labs/f",
    "B/ldot",
    "B/ldot/f",
    "B/lroot",
    "B/lloop",
    "B/lloop/x",
    "B/ld/../f",
    "B/d/../f",
    "B/d/./g",
    "B//d//g",
    "B/d/",
    "B/f/",
    "B/d/.",
    "B/closed",
    "B/closed/in",
    "B/closed/nope",
    "B/" + "n" * 300,
    "B/d/" + "n" * 64,
    "/",
    "/dev",
    "/dev/null",
    "/dev/stdout",
    "/dev/fd/1",
    "/dev/nope",
    "/mnt",
]


def _tree(env: Env) -> None:
    v = env.view
    v.mkdir("d/e", parents=True)
    v.write_file("f", b"data")
    v.write_file("d/g", b"g")
    v.write_file("d/e/h", b"")
    v.symlink("d", "ld")
    v.symlink("f", "lf")
    v.symlink("missing", "dang")
    v.symlink(env.base + "/d", "labs")
    v.symlink(".", "ldot")
    v.symlink("/", "lroot")
    v.symlink("lloop", "lloop")
    v.mkdir("closed")
    v.write_file("closed/in", b"")
    v.chmod("closed", 0o600)  # no search permission: a walk through it is refused


def _outcome(run: Callable[[], tuple[str, Stat | None, Stat | None]]) -> object:
    def fields(st: Stat | None) -> object:
        return None if st is None else (st.mode, st.size, st.ino, st.nlink, st.uid, st.gid, st.dev, st.rdev)

    try:
        canon, st, parent = run()
    except FsError as e:
        return ("error", type(e).__name__, e.code, e.path, e.walked)
    return canon, fields(st), fields(parent)


def test_short_walk_answers_as_the_general_walk(make: Factory, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make()
    _tree(env)
    vfs = env.vfs
    paths = [n.replace("B", env.base, 1) if n.startswith("B") else n for n in NAMES]
    cases = list(itertools.product(paths, (True, False), (True, False)))
    fast = [_outcome(partial(vfs._resolve, p, f, m)) for p, f, m in cases]
    monkeypatch.setattr(Vfs, "_resolve_plain", lambda *_: None)
    slow = [_outcome(partial(vfs._resolve, p, f, m)) for p, f, m in cases]
    for case, a, b in zip(cases, fast, slow, strict=True):
        assert a == b, case


class _NoChain:
    """A backend seen without its own lstat_chain (base.lstat_chain's one-by-one fallback)."""

    def __init__(self, fs: MemoryFs) -> None:
        self.lstat = fs.lstat


@pytest.mark.parametrize(
    "parts",
    [
        ["a"],
        ["a", "b"],
        ["a", "b", "c"],
        ["a", "f"],
        ["a", "f", "x"],
        ["a", "zz"],
        ["a", "zz", "y"],
        ["l"],
        ["l", "b"],
    ],
)
def test_memory_chain_is_one_lstat_per_component(parts: list[str]) -> None:
    fs = MemoryFs()
    fs.mkdir("/a", 0o755, 1000, 1000)
    fs.mkdir("/a/b", 0o700, 1000, 1000)
    fs.open("/a/f", "w", 0o644, 1000, 1000).write(b"xyz")
    fs.symlink("a", "/l", 1000, 1000)

    def flat(items: list[Stat | FsError]) -> list[object]:
        return [(i.code,) if isinstance(i, FsError) else (i.mode, i.size, i.ino, i.nlink) for i in items]

    assert flat(fs.lstat_chain(parts)) == flat(lstat_chain(_NoChain(fs), parts))  # type: ignore[arg-type]


def test_mount_chain_keeps_a_missing_name_unless_it_leads_to_a_mount() -> None:
    root = MemoryFs()
    tree = MountFs(root)
    tree.mount("/mnt/data", MemoryFs())
    got = tree.lstat_chain(["tmp", "x"])
    assert len(got) == 1 and isinstance(got[0], FsError)  # /tmp is missing: said at once
    assert tree.lstat_chain(["mnt"]) == []  # a directory shown only to reach /mnt/data: the caller looks
    vfs = Vfs(root)
    vfs.tree.mount("/mnt/data", MemoryFs())
    assert vfs.view("/").stat("/mnt").is_dir and vfs.view("/").stat("/mnt/data").is_dir


@pytest.mark.parametrize("name", ["ldot", "lroot", "d/..", "ld/..", "ld/e/..", "labs/.."])
def test_a_walk_ending_on_a_directory_gives_its_stat(env: Env, name: str) -> None:
    """A walk that ends after '..' or on a link to '.' or '/' still gives the stat of where it
    ended (open takes a missing stat for a missing name and would create one)."""
    _tree(env)
    path = f"{env.base}/{name}"
    canon, st, _ = env.vfs._resolve(path, True, False)
    assert st is not None and st.is_dir and env.vfs.view("/").stat(canon).ino == st.ino
    for flags in ("w", "a", "rw", "r"):
        with pytest.raises(FsError) as e:
            env.vfs.open(path, flags)
        assert e.value.path == path and e.value.code == errno.EISDIR, flags


@pytest.mark.parametrize(
    ("where", "names"),
    [
        ("/", ["mnt", "dev", "tmp", "nope"]),
        ("/mnt", ["data", "deep", "x"]),
        ("/mnt/deep", ["er", "y"]),
        ("/mnt/deep/er", ["est"]),
        ("/mnt/data", ["f", "sub", "nope"]),
        ("/tmp", ["f", "nope"]),
    ],
)
def test_listing_a_directory_with_mount_points_below(where: str, names: list[str]) -> None:
    """lstat_many looks up entries that are or lead to mount points one by one (a mount's root,
    a directory shown only to reach one) and the others in one call: each as lstat gives it."""
    root = MemoryFs()
    vfs = Vfs(root)
    data = MemoryFs()
    vfs.tree.mount("/mnt/data", data)
    vfs.tree.mount("/mnt/deep/er/est", MemoryFs())
    v = vfs.view("/")
    v.mkdir("/tmp")
    v.write_file("/tmp/f", b"t")
    v.write_file("/mnt/data/f", b"d")
    v.mkdir("/mnt/data/sub")

    def key(r: Stat | FsError) -> object:
        return r.code if isinstance(r, FsError) else (r.mode, r.ino, r.dev)

    want = []
    for n in names:
        try:
            want.append(key(v.lstat(where.rstrip("/") + "/" + n)))
        except FsError as e:
            want.append(key(e))
    assert [key(r) for r in v.lstat_many(where, names)] == want
