"""MemoryFs specifics, the facade's Python API and the CLI's filesystem options."""

from __future__ import annotations

import errno
import io
import sys
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.cli.app import build_filesystem, main, parse_mount
from sandbash.limits import Limits
from sandbash.vfs import DiskQuota, MemoryFs, MountFs, Vfs

from .conftest import err


def test_initial_files_and_lazy_loaders() -> None:
    calls: list[int] = []

    def load() -> str:
        calls.append(1)
        return "lazy content"

    fs = MemoryFs({"/a/b.txt": "text", "/bin.dat": b"\x00\xff", "/lazy": load})
    view = Vfs(fs).view("/")
    assert view.read_file("/a/b.txt") == b"text"
    assert view.read_file("/bin.dat") == b"\x00\xff"
    assert calls == []
    assert view.listdir("/") == ["a", "bin.dat", "dev", "lazy"]
    assert view.read_file("/lazy") == b"lazy content"
    view.read_file("/lazy")
    assert calls == [1]


def test_quota_counts_contents_targets_and_names() -> None:
    q = DiskQuota(max_bytes=1000, max_files=10)
    view = Vfs(MemoryFs(quota=q)).view("/")
    view.mkdir("/dir")
    assert (q.used_bytes, q.used_files) == (3, 1)
    view.write_file("/dir/f", b"12345")
    assert (q.used_bytes, q.used_files) == (9, 2)
    view.symlink("target", "/dir/l")
    assert (q.used_bytes, q.used_files) == (16, 3)
    view.link("/dir/f", "/dir/hard")
    assert (q.used_bytes, q.used_files) == (20, 4)  # a name, not a second copy
    view.rename("/dir/hard", "/dir/h")
    assert q.used_bytes == 17
    view.unlink("/dir/f")
    assert q.used_bytes == 16  # the content stays with its last name
    view.unlink("/dir/h")
    view.unlink("/dir/l")
    view.rmdir("/dir")
    assert (q.used_bytes, q.used_files) == (0, 0)


def test_root_identity_bypasses_permissions() -> None:
    vfs = Vfs(uid=0, gid=0)
    view = vfs.view("/")
    view.write_file("/f", b"x")
    view.chmod("/f", 0)
    assert view.read_file("/f") == b"x"


def test_sticky_tmp() -> None:
    fs = MemoryFs()
    fs.mkdir("/tmp", 0o1777, 0, 0)
    fs.add_file("/tmp/other", b"x")
    fs.chown("/tmp/other", 1001, 1001)
    view = Vfs(fs).view("/")
    assert err(lambda: view.unlink("/tmp/other")) == errno.EPERM
    view.write_file("/tmp/mine", b"y")
    view.unlink("/tmp/mine")


def test_python_api(tmp_path: Path) -> None:
    bash = Bash(fs=MemoryFs())
    fs = bash.fs
    fs.write_file("notes/a.txt", "hello\n", parents=True)
    assert fs.read_file("notes/a.txt") == b"hello\n"
    assert fs.read_text("/home/user/notes/a.txt") == "hello\n"
    fs.symlink("a.txt", "notes/link")
    fs.chmod("notes/a.txt", 0o600)
    assert fs.stat("notes/link").perm == 0o600
    assert fs.listdir("notes") == ["a.txt", "link"]
    assert list(fs.walk("/home/user")) == [
        ("/home/user", ["notes"], []),
        ("/home/user/notes", [], ["a.txt", "link"]),
    ]
    r = bash.exec("cat notes/link; chmod 000 notes/a.txt; cat notes/a.txt")
    assert r.stdout == "hello\n"
    assert r.stderr == "cat: notes/a.txt: Permission denied\n" and r.exit_code == 1


def test_parse_mount() -> None:
    assert parse_mount("/h/d:/data:ro") == ("/h/d", "/data", "ro")
    assert parse_mount("/h/d:/data") == ("/h/d", "/data", "cow")
    assert parse_mount("C:/x:/w:rw") == ("C:/x", "/w", "rw")
    with pytest.raises(ValueError):
        parse_mount("/h/d")
    with pytest.raises(ValueError):
        parse_mount("/h/d:relative")


def test_build_filesystem(tmp_path: Path) -> None:
    limits = Limits()
    assert build_filesystem(None, None, [], limits) is None
    fs = build_filesystem(str(tmp_path), None, [f"{tmp_path}:/data:ro"], limits)
    assert isinstance(fs, MountFs)
    assert [m.path for m in fs.table()] == ["/", "/data"]
    with pytest.raises(ValueError):
        build_filesystem(str(tmp_path), "x.db", [], limits)


def run_cli(args: list[str], script: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, bytes, bytes]:
    out, errs = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(script.encode())))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(errs))
    status = main([*args, "-s"])
    sys.stdout.flush()
    sys.stderr.flush()
    return status, out.getvalue(), errs.getvalue()


def test_cli_mounts_like_the_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir()
    work.mkdir()
    (data / "in.txt").write_bytes(b"b\na\nb\n")
    script = "sort /data/in.txt | uniq -c > /work/out.txt; cat /work/out.txt; echo x > /data/in.txt\n"
    status, out, errs = run_cli(
        ["--mount", f"{data}:/data:ro", "--mount", f"{work}:/work:rw"], script, monkeypatch
    )
    assert out == b"      1 a\n      2 b\n"
    assert b"Read-only file system" in errs and status == 1
    assert (work / "out.txt").read_bytes() == out
    assert (data / "in.txt").read_bytes() == b"b\na\nb\n"


def test_cli_store_persists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = str(tmp_path / "ws.db")
    assert run_cli(["--store", store], "echo kept > /tmp/f\n", monkeypatch)[0] == 0
    assert run_cli(["--store", store], "cat /tmp/f\n", monkeypatch)[1] == b"kept\n"


def test_cli_root_overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f").write_bytes(b"host\n")
    status, out, _ = run_cli(["--root", str(tmp_path)], "cat /f; echo new > /f; cat /f\n", monkeypatch)
    assert out == b"host\nnew\n" and status == 0
    assert (tmp_path / "f").read_bytes() == b"host\n"
    status, _, errs = run_cli(["--root", str(tmp_path / "missing")], "true\n", monkeypatch)
    assert status == 2 and b"No such file or directory" in errs
