"""A trailing slash through the facade, over every backend, checked against
the host kernel: the same call on the same small tree in a host temporary
directory must give the same errno (or succeed alike, leaving the same names).

POSIX pathname resolution: 'NAME/' follows a last symbolic link and must
name a directory; creating a non-directory through 'NAME/' fails."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from sandbash.vfs import FsError, FsView

from .conftest import Env

ViewOp = Callable[[FsView], object]
HostOp = Callable[[], object]

# (name, the facade call, the same call through os; paths relative to the case's directory)
CASES: list[tuple[str, ViewOp, Callable[[], HostOp]]] = []


def case(name: str, view_op: ViewOp, host_op: Callable[[], HostOp]) -> None:
    CASES.append((name, view_op, host_op))


_HOST_CALLS: dict[str, Callable[..., object]] = {
    "stat": os.stat,
    "lstat": os.lstat,
    "listdir": os.listdir,
    "readlink": os.readlink,
    "mkdir": os.mkdir,
    "rmdir": os.rmdir,
    "unlink": os.unlink,
    "rename": os.rename,
    "symlink": os.symlink,
    "link": os.link,
    "truncate": os.truncate,
}


def _same(name: str, method: str, *args: object) -> None:
    """A case whose facade call and os call take the same arguments."""
    host = _HOST_CALLS[method]
    case(name, lambda fs: getattr(fs, method)(*args), lambda: lambda: host(*args))


for p in ["f/", "lf/", "d/", "ld/", "dang/", "none/", "lfs", "lfs/", "d/g/", "d//", "ld//g/"]:
    _same(f"stat {p}", "stat", p)
    _same(f"lstat {p}", "lstat", p)
for p in ["f/", "ld/", "lf/"]:
    _same(f"listdir {p}", "listdir", p)
    _same(f"readlink {p}", "readlink", p)
for p in ["m/", "m//", "f/", "ld/", "dang/", "lf/", "no/m/"]:
    _same(f"mkdir {p}", "mkdir", p)
for p in ["e/", "f/", "ld/", "lf/", "none/", "dang/"]:
    _same(f"rmdir {p}", "rmdir", p)
    _same(f"unlink {p}", "unlink", p)
# a last component `.` or `..`: EINVAL / ENOTEMPTY once the directory holding it is found, never
# the directory it names removed
for p in [
    ".",
    "..",
    "./",
    "e/.",
    "e/..",
    "e/./",
    "e/../",
    "f/.",
    "none/.",
    "none/..",
    "d/g/..",
    "ld/.",
    "dang/.",
]:
    _same(f"rmdir {p}", "rmdir", p)
for src, dst in [
    ("f/", "g"),
    ("f", "g/"),
    ("f", "d/"),
    ("ld/", "x"),
    ("lf/", "x"),
    ("d/", "x/"),
    ("e/", "d"),
    ("d", "e/"),
    ("none/", "x"),
    ("f/", "e/"),
]:
    _same(f"rename {src} {dst}", "rename", src, dst)
for src, dst in [("f", "nl/"), ("f", "f/"), ("f", "d/"), ("f", "dang/"), ("f", "ld/")]:
    _same(f"symlink {src} {dst}", "symlink", src, dst)
for src, dst in [("f", "hl/"), ("f/", "h"), ("d/", "h"), ("lf/", "h"), ("f", "f/")]:
    _same(f"link {src} {dst}", "link", src, dst)
for p in ["f/", "d/", "lf/"]:
    _same(f"truncate {p}", "truncate", p, 0)

_OPEN_FLAGS = {
    "r": os.O_RDONLY,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "rw": os.O_RDWR | os.O_CREAT,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
}


def _host_open(path: str, flags: str) -> HostOp:
    def run() -> None:
        fd = os.open(path, _OPEN_FLAGS[flags], 0o666)
        try:
            os.read(fd, 1) if flags == "r" else None  # a directory opens for reading, then EISDIR
        finally:
            os.close(fd)

    return run


def _open_case(p: str, flags: str) -> None:
    case(f"open {p} {flags}", lambda fs: fs.open(p, flags).read(1), lambda: _host_open(p, flags))


def _attr_cases(p: str) -> None:
    case(f"chmod {p}", lambda fs: fs.chmod(p, 0o644), lambda: lambda: os.chmod(p, 0o644))
    case(f"utime {p}", lambda fs: fs.utime(p, 10**9, 10**9), lambda: lambda: os.utime(p, (1.0, 1.0)))


for p in ["f/", "lf/", "d/", "ld/", "none/", "dang/", "lfs", "d/g/", "no/new/"]:
    for flags in _OPEN_FLAGS:
        _open_case(p, flags)
for p in ["f/", "lf/", "d/"]:
    _attr_cases(p)


def _tree_view(fs: FsView) -> None:
    fs.write_file("f", "hi\n")
    fs.mkdir("d")
    fs.mkdir("e")
    fs.write_file("d/g", "in\n")
    for target, name in [("f", "lf"), ("d", "ld"), ("nowhere", "dang"), ("f/", "lfs")]:
        fs.symlink(target, name)


def _tree_host(top: Path) -> None:
    (top / "f").write_text("hi\n")
    (top / "d").mkdir()
    (top / "e").mkdir()
    (top / "d" / "g").write_text("in\n")
    for target, name in [("f", "lf"), ("d", "ld"), ("nowhere", "dang"), ("f/", "lfs")]:
        os.symlink(target, top / name)


def _outcome(call: Callable[..., object], *args: object) -> int:
    """0 when the call succeeds, else its errno."""
    try:
        call(*args)
    except FsError as e:
        return int(e.code)
    except OSError as e:
        return e.errno or -1
    return 0


def _names(listing: Callable[[str], list[str]], top: str) -> list[str]:
    out: list[str] = []
    for sub in ["", "d", "e"]:
        where = top + "/" + sub if sub else top
        try:
            out += [sub + "/" + n for n in listing(where)]
        except (FsError, OSError):
            out.append(sub + ": gone")
    return sorted(out)


def test_trailing_slash_matches_the_kernel(env: Env, tmp_path: Path) -> None:
    host_root = tmp_path / "oracle"
    host_root.mkdir()
    here = os.getcwd()
    differ: list[str] = []
    for i, (name, view_op, host_op) in enumerate(CASES):
        top = host_root / str(i)
        top.mkdir()
        _tree_host(top)
        os.chdir(top)
        try:
            want = _outcome(host_op())
        finally:
            os.chdir(here)
        fs = env.view.copy()
        fs.mkdir(str(i))
        fs.cwd = env.base.rstrip("/") + f"/{i}"
        _tree_view(fs)
        got = _outcome(view_op, fs)
        if got != want:
            differ.append(
                f"{name}: sandbash {os.strerror(got) if got else 'ok'}, "
                f"kernel {os.strerror(want) if want else 'ok'}"
            )
        elif _names(fs.listdir, fs.cwd) != _names(os.listdir, str(top)):
            differ.append(f"{name}: the names left differ")
    assert not differ, "\n".join(differ)
    assert len(CASES) > 100
