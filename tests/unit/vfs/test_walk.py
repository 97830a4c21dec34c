"""Path walks as the kernel makes them, and what a failed walk tells (issue 22, T-FS-3)."""

from __future__ import annotations

import errno

import pytest

from sandbash import Bash
from sandbash.policy import Gate, Policy
from sandbash.vfs import FsError, MemoryFs, Vfs


def _vfs() -> Vfs:
    vfs = Vfs(MemoryFs())
    v = vfs.view("/")
    v.mkdir("/a/b", parents=True)
    v.write_file("/a/f", b"f")
    v.symlink("a/b", "/lk")
    return vfs


@pytest.mark.parametrize(
    ("path", "made"),
    [
        ("/lk/../c/d", "/a/c/d"),  # '..' after a link climbs from the link's target
        ("/lk/./../c", "/a/c"),
        ("/a/../x/./y", "/x/y"),
        ("/lk/e/../../g", "/a/g"),
        ("/lk/../../h", "/h"),
    ],
)
def test_mkdir_parents_walks_as_the_kernel(path: str, made: str) -> None:
    vfs = _vfs()
    v = vfs.view("/")
    v.mkdir(path, parents=True)
    assert v.stat(made).is_dir
    v.mkdir(path, parents=True)  # already there: nothing to do


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/a/f/x", errno.ENOTDIR),
        ("/a/f", errno.EEXIST),
        ("/lk/../f/y/z", errno.ENOTDIR),
    ],
)
def test_mkdir_parents_errors(path: str, code: int) -> None:
    with pytest.raises(FsError) as e:
        _vfs().view("/").mkdir(path, parents=True)
    assert e.value.code == code and e.value.path == path


@pytest.mark.parametrize(
    ("path", "walked"),
    [
        ("/lk/../nope/x", "/a/nope"),
        ("/lk/../f/x", "/a/f"),
        ("/lk/zz", "/a/b/zz"),
        ("/a/nope", "/a/nope"),
    ],
)
def test_a_failed_walk_says_where_it_stopped(path: str, walked: str) -> None:
    with pytest.raises(FsError) as e:
        _vfs().resolve(path, must_exist=True)
    assert e.value.walked == walked and e.value.path == path


def test_a_walk_leaving_the_given_name_is_decided_where_it_stopped() -> None:
    """A granted name that leads (through a link) to a refused place answers the policy's refusal."""
    vfs = _vfs()
    vfs.view("/").mkdir("/ok")
    vfs.view("/").symlink("/a", "/ok/in")
    vfs.gate = Gate(Policy(paths=["/ok:rw"], mode="remediation")).fs
    v = vfs.view("/ok")
    for path in ("in/nope", "in/f/x", "in/b/../../zz/y", "in/f", "in/b"):
        for op in (v.stat, v.realpath, v.resolve, v.lstat, vfs.statfs):
            with pytest.raises(FsError) as e:
                op(v.abspath(path))
            assert (e.value.code, e.value.rule) == (errno.EACCES, "paths.no-grant"), (path, op)
    assert v.realpath("/ok") == "/ok"  # granted names still resolve


@pytest.mark.parametrize(
    ("script", "out", "err"),
    [
        ("touch -h nofile; echo $?", "1\n", "touch: setting times of 'nofile': No such file or directory\n"),
        ("touch -c nofile; echo $?", "0\n", ""),
        ("touch -ch nofile; echo $?", "0\n", ""),
        ("touch -c nodir/x; echo $?", "0\n", ""),
        ("touch f; touch -c f/x; echo $?", "1\n", "touch: setting times of 'f/x': Not a directory\n"),
        ("ln -s nowhere dl; touch -h dl; echo $?; touch -c dl; echo $?; ls", "0\n0\ndl\n", ""),
    ],
)
def test_touch_without_creating(script: str, out: str, err: str) -> None:
    """As GNU touch (checked against it): -c skips a missing file only, -h reports one."""
    r = Bash().exec(f"mkdir -p /w && cd /w && {script}")
    assert (r.stdout, r.stderr) == (out, err)
