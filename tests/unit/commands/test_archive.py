"""tar, gzip/bzip2/xz families, zip/unzip: each scenario runs step by step in the
sandbox and in a host temporary directory; outputs, statuses and the
resulting trees (names, contents, modes, mtimes) must agree."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import tempfile
from collections.abc import Callable

import pytest

import oracle
from realtools import have
from sandbash.testing import make_vfs, run_command
from sandbash.vfs.facade import Vfs

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC", "HOME": "/home/user"}
MTIME = 1704164645  # 2024-01-02 03:04:05 UTC
# one entry per directory: the host's readdir order is not the sandbox's (sorted)
FILES: dict[str, bytes] = {"a.txt": b"hello\n", "b.txt": b"world " * 50 + b"\n", "d/e/g": b"deep\n"}
Step = list[str] | tuple[list[str], bytes]


def _evil_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name in ["../evil", "a/../../evil2", "/abs", "ok/../fine", "./dot"]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = 1, MTIME
            t.addfile(info, io.BytesIO(b"z"))
        link = tarfile.TarInfo("lnk")
        link.type, link.linkname, link.mtime = tarfile.SYMTYPE, "/etc", MTIME
        t.addfile(link)
        hard = tarfile.TarInfo("hl")
        hard.type, hard.linkname, hard.mtime = tarfile.LNKTYPE, "./dot", MTIME
        t.addfile(hard)
    return buf.getvalue()


def _host_tree(root: str) -> dict[str, tuple[object, ...]]:
    out: dict[str, tuple[object, ...]] = {}
    for top, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("l", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("d", st.st_mode & 0o777)
            else:
                with open(path, "rb") as f:
                    out[rel] = ("f", f.read(), st.st_mode & 0o777, int(st.st_mtime))
    return out


def _vfs_tree(vfs: Vfs, root: str = "/home/user") -> dict[str, tuple[object, ...]]:
    view = vfs.view("/")
    out: dict[str, tuple[object, ...]] = {}
    for top, dirs, files in view.walk(root):
        for name in dirs + files:
            path = top.rstrip("/") + "/" + name
            st = view.lstat(path)
            rel = path[len(root) + 1 :]
            if st.is_link:
                out[rel] = ("l", view.readlink(path))
            elif st.is_dir:
                out[rel] = ("d", st.mode & 0o777)
            else:
                out[rel] = ("f", view.read_bytes(path), st.mode & 0o777, int(st.mtime))
    return out


def _archive(name: str) -> bool:
    return name.endswith((".tar", ".tgz", ".tbz", ".txz", ".gz", ".bz2", ".xz", ".zip", ".lzma"))


def scenario(
    steps: list[Step], files: dict[str, bytes] | None = None, norm: Callable[[bytes], bytes] = lambda b: b
) -> None:
    files = dict(FILES if files is None else files)
    vfs = make_vfs(files)
    for path in files:
        vfs.view("/").utime("/home/user/" + path, MTIME * 10**9, MTIME * 10**9)
    with tempfile.TemporaryDirectory() as d:
        for path, data in files.items():
            full = os.path.join(d, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
            os.utime(full, (MTIME, MTIME))
        for step in steps:
            argv, stdin = step if isinstance(step, tuple) else (step, b"")
            ours = run_command(argv, stdin=stdin, vfs=vfs, env=ENV)
            real = oracle.run(argv, input=stdin, capture_output=True, cwd=d, env=ENV, timeout=30)
            # the host runs as root; the sandbox user is `user`
            real_out = real.stdout.replace(b"root/root", b"user/user")
            assert (norm(ours.stdout), ours.stderr.decode(), ours.status) == (
                norm(real_out),
                real.stderr.decode(),
                real.returncode,
            ), argv
        host = {k: v for k, v in _host_tree(d).items() if not _archive(k)}
        mine = {k: v for k, v in _vfs_tree(vfs).items() if not _archive(k)}
        assert mine == host


def _binary(data: bytes) -> bytes:
    """Compressed bytes differ between implementations; compare their presence only."""
    return b"<binary>" if data[:2] in (b"\x1f\x8b", b"BZ", b"\xfd7") or len(data) >= 10240 else data


needs = {
    tool: pytest.mark.skipif(not have(tool), reason=f"{tool} not installed")
    for tool in ("gzip", "bzip2", "xz", "tar", "zip", "unzip")
}


@needs["gzip"]
def test_gzip() -> None:
    scenario(
        [
            ["gzip", "a.txt"],
            ["gzip", "a.txt.gz"],
            ["gzip", "-l", "a.txt.gz"],
            ["gzip", "nope"],
            ["gzip", "-d", "b.txt"],
            ["gzip", "-k", "b.txt"],
            ["gzip", "b.txt"],
            ["gzip", "-dc", "b.txt.gz"],
            ["zcat", "a.txt"],
            ["gunzip", "a.txt.gz"],
            ["gzip", "-v", "a.txt"],
            ["gzip", "-tv", "a.txt.gz"],
            ["gzip", "-dv", "a.txt.gz"],
            ["gzip", "d"],
            ["gzip", "-r", "d"],
            ["gzip", "-dr", "d"],
            ["gzip", "-c", "a.txt"],
            (["gzip", "-d"], b"zzz\n"),
            (["gzip", "-d"], b"x"),
            (["zcat", "-f"], b"plain\n"),
            ["gzip", "-9", "-n", "a.txt"],
            ["gzip", "-lv", "a.txt.gz"],
            ["gzip", "-dN", "a.txt.gz"],
            ["gzip", "-S", ".zz", "a.txt"],
            ["gunzip", "-S", ".zz", "a.txt.zz"],
            ["gzip", "-q", "nope"],
            ["gzip", "-f", "-k", "a.txt"],
            ["gzip", "-l", "a.txt.gz", "b.txt.gz"],
        ],
        norm=_binary,
    )


def _gzip_header(data: bytes) -> bytes:
    """A gzip stream's header: magic, flags, time and the stored name (the deflate data after it
    depends on the zlib build)."""
    if data[:2] != b"\x1f\x8b":
        return data
    end = data.index(b"\0", 10) + 1 if data[3] & 8 else 10
    return data[:end]


@needs["gzip"]
def test_gzip_name_and_time_letters_and_the_other_options() -> None:
    # -n/-N set both the name and the time, -m/-M the time alone, the last given wins; -a is
    # ignored with a warning, -b takes the old bits value, -Z is not built in
    scenario(
        [
            ["gzip", "-c", *flags, "a.txt"]
            for flags in (
                ["-m"],
                ["-M"],
                ["-n", "-M"],
                ["-m", "-N"],
                ["-N", "-n"],
                ["-n", "-N"],
                ["-mn"],
                ["-a"],
            )
        ]
        + [["gzip", "-b", "5", "-c", "a.txt"], ["gzip", "-Z", "a.txt"], ["zcat", "-Z", "a.txt.gz"]],
        norm=_gzip_header,
    )


@pytest.mark.parametrize(
    "argv", [["gzip", "-h"], ["gzip", "-H"], ["gzip", "-V"], ["gzip", "-L"], ["gunzip", "-V"]]
)
def test_gzip_short_help_and_version_letters(argv: list[str]) -> None:
    ours = run_command(argv)
    long = run_command([argv[0], "--help" if argv[1] in ("-h", "-H") else "--version"])
    assert (ours.status, ours.stderr, ours.stdout) == (0, b"", long.stdout)


def test_gunzip_and_zcat_have_their_own_usage() -> None:
    # GNU's gunzip and zcat scripts print their own help, listing the options they document
    gunzip = run_command(["gunzip", "--help"]).stdout.decode()
    zcat = run_command(["zcat", "--help"]).stdout.decode()
    assert gunzip.startswith(
        "Usage: gunzip [OPTION]... [FILE]...\nUncompress FILEs (by default, in-place).\n"
    )
    assert zcat.startswith("Usage: zcat [OPTION]... [FILE]...\nUncompress FILEs to standard output.\n")
    assert "--decompress" not in gunzip and "--keep" in gunzip and "--to-stdout" not in gunzip
    assert (
        "--stdout" not in zcat
        and "--keep" not in zcat
        and "read compressed data even from a terminal" in zcat
    )


@needs["gzip"]
def test_gzip_damaged_input() -> None:
    good = run_command(["gzip", "-c"], stdin=b"hello\n" * 100).stdout
    scenario(
        [["gzip", "-d", "t.gz"], ["gzip", "-dc", "j.gz"], ["gzip", "-t", "c.gz"]],
        files={"t.gz": good[:20], "j.gz": good + b"junk\n", "c.gz": good[:10] + b"garbagegarbage"},
    )


@needs["bzip2"]
def test_bzip2() -> None:
    scenario(
        [
            ["bzip2", "a.txt"],
            ["bzip2", "a.txt.bz2"],
            ["bzip2", "nope"],
            ["bzip2", "-d", "b.txt"],
            ["bunzip2", "a.txt.bz2"],
            ["bzip2", "-k", "a.txt"],
            ["bzip2", "a.txt"],
            (["bzip2", "-d"], b"zzz\n"),
            ["bzcat", "a.txt.bz2"],
            ["bzip2", "-t", "a.txt.bz2"],
            ["bzip2", "-v", "b.txt"],
            ["bzip2", "d"],
            ["bzip2", "-dc", "a.txt.bz2"],
            ["bzip2", "-tv", "b.txt.bz2"],
            ["bzip2", "-dv", "b.txt.bz2"],
            (["bzip2", "-dc"], b"BZh9"),
        ],
        norm=_binary,
    )


@needs["xz"]
def test_xz() -> None:
    scenario(
        [
            ["xz", "a.txt"],
            ["xz", "nope"],
            ["xz", "a.txt.xz"],
            ["xz", "-d", "b.txt"],
            ["xz", "-dc", "a.txt.xz"],
            (["xz", "-d"], b"zz\n"),
            ["xz", "-k", "b.txt"],
            ["xz", "b.txt"],
            ["xzcat", "a.txt.xz"],
            ["unxz", "a.txt.xz"],
            ["xz", "d"],
            ["xz", "-t", "b.txt.xz"],
            ["xz", "-F", "lzma", "a.txt"],
            ["xz", "-d", "a.txt.lzma"],
            ["xz", "-l", "b.txt.xz"],
        ],
        norm=_binary,
    )


@needs["tar"]
def test_tar_create_list_extract() -> None:
    scenario(
        [
            ["tar", "cvf", "t.tar", "a.txt", "d"],
            ["tar", "tvf", "t.tar"],
            ["tar", "tf", "t.tar"],
            ["tar", "xf", "nope.tar"],
            ["tar", "cf", "x.tar", "nope", "a.txt"],
            ["tar", "cf"],
            ["tar"],
            ["tar", "cf", "e.tar"],
            ["tar", "tf", "t.tar", "nope"],
            ["mkdir", "out"],
            ["tar", "xvf", "t.tar", "-C", "out", "--strip-components=1"],
            ["tar", "xOf", "t.tar", "a.txt"],
            ["tar", "tf", "t.tar", "--exclude=e"],
            ["tar", "tf", "t.tar", "--exclude=d/e/*"],
            ["tar", "czf", "z.tgz", "a.txt", "d/e/g"],
            ["tar", "tzvf", "z.tgz"],
            ["tar", "tjf", "z.tgz"],
            ["tar", "tzf", "t.tar"],
            ["tar", "tf", "z.tgz"],
            ["tar", "cjf", "t.tbz", "a.txt"],
            ["tar", "tf", "t.tbz"],
            ["tar", "cJf", "t.txz", "b.txt"],
            ["tar", "tvf", "t.txz"],
            ["tar", "caf", "auto.tar.xz", "a.txt"],
            ["tar", "tJf", "auto.tar.xz"],
            ["tar", "-cvvf", "vv.tar", "a.txt"],
            ["tar", "ctf", "x.tar", "a.txt"],
            ["tar", "--foo"],
            ["tar", "-Q"],
            ["tar", "-c", "-f", "y.tar", "a.txt"],
            ["tar", "rf", "y.tar", "d/e/g"],
            ["tar", "tf", "y.tar"],
            ["tar", "rzf", "z.tgz", "b.txt"],
            ["tar", "-C", "d", "-cf", "u.tar", "."],
            ["tar", "tf", "u.tar"],
            ["tar", "--list", "--file=y.tar"],
            ["tar", "-xf", "y.tar", "--wildcards", "d/*", "-O"],
            ["tar", "-xvf", "y.tar", "a.txt"],
            ["tar", "xkf", "y.tar"],
            ["tar", "--create", "--file", "w.tar", "--no-recursion", "d"],
            ["tar", "tvf", "w.tar"],
            ["tar", "cf", "-", "a.txt"],
            (["tar", "tvf", "-"], b""),
            ["tar", "xf", "t.tar", "--to-stdout", "d/e/g"],
        ],
        norm=_binary,
    )


@needs["tar"]
def test_tar_file_archived_twice_is_a_hard_link() -> None:
    # GNU tar 1.34: a regular file met again in one run is stored as a hard link to its first
    # name, whatever its link count; extracting `f link to f` is no error; --hard-dereference
    # stores it again
    scenario(
        [
            ["tar", "cvf", "t.tar", "a.txt", "a.txt", "./a.txt"],
            ["tar", "tvf", "t.tar"],
            ["tar", "cf", "u.tar", "d", "d/e/g", "d"],
            ["tar", "tvf", "u.tar"],
            ["tar", "--hard-dereference", "-cf", "h.tar", "a.txt", "a.txt"],
            ["tar", "tvf", "h.tar"],
            ["mkdir", "out"],
            ["tar", "xvf", "t.tar", "-C", "out"],
            ["tar", "xf", "u.tar", "-C", "out"],
            ["cat", "out/a.txt", "out/d/e/g"],
        ],
    )


@needs["tar"]
def test_tar_absolute_names_twice_announce_the_link_targets() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f")
        with open(path, "wb") as fh:
            fh.write(b"x\n")
        vfs = make_vfs({})
        vfs.view("/").mkdir(d, parents=True)
        vfs.view("/").write_bytes(path, b"x\n")
        argv = ["tar", "cf", "-", path, path]
        real = oracle.run(argv, capture_output=True, cwd=d, env=ENV, timeout=30)
        ours = run_command(argv, vfs=vfs, env=ENV)
        assert (ours.stderr.decode(), ours.status) == (real.stderr.decode(), real.returncode)
        listed = run_command(["tar", "tf", "-"], stdin=ours.stdout, vfs=vfs, env=ENV)
        assert listed.stdout.decode() == f"{path[1:]}\n{path[1:]}\n"


@needs["tar"]
def test_tar_unsafe_names_links_and_lists() -> None:
    files = dict(FILES, **{"evil.tar": _evil_tar(), "list": b"a.txt\nd/e/g\n", "ex": b"*.txt\n"})
    scenario(
        [
            ["mkdir", "o"],
            ["tar", "xvf", "evil.tar", "-C", "o"],
            ["tar", "tvf", "evil.tar"],
            ["tar", "cvf", "l.tar", "-T", "list"],
            ["tar", "cvf", "x.tar", "-X", "ex", "a.txt", "b.txt", "d"],
            ["tar", "czf", "c.tgz", "a.txt"],
            ["mkdir", "o2"],
            ["tar", "xvf", "c.tgz", "-C", "o2"],
            ["tar", "xf", "c.tgz", "-C", "o2", "-k"],
            ["tar", "xf", "c.tgz", "-C", "o2", "--skip-old-files"],
            ["tar", "xvvf", "l.tar", "-C", "o2"],
            ["tar", "-x", "-f", "l.tar", "-C", "o2", "-m", "a.txt"],
            ["tar", "xf", "l.tar", "-C", "nodir"],
            ["tar", "tf", "l.tar", "d/e/g", "zz"],
            ["tar", "tf", "l.tar", "d"],
            ["tar", "--extract", "--file=l.tar", "--directory=o2", "d/e/g"],
            ["tar", "cf", "e.tar", "--exclude-vcs", "d"],
            # -v lists a name as given, before its leading `../` parts are dropped
            # (one stripped name an archive: GNU 1.34 adds a "from hard link targets" line
            # once a second file follows a stripped one)
            ["tar", "cvf", "u.tar", "d/../b.txt"],
            ["tar", "cvf", "v.tar", "d/e/../e"],
            ["tar", "tf", "v.tar"],
            ["tar", "rvf", "u.tar", "./a.txt"],
            ["tar", "tf", "u.tar"],
            # appending reads the archive back: never standard output (nor no -f)
            ["tar", "rf", "-", "a.txt"],
            ["tar", "--append", "a.txt"],
            ["tar", "-u", "a.txt"],
        ],
        files=files,
        norm=_binary,
    )


@needs["zip"]
@needs["unzip"]
def test_zip_unzip() -> None:
    files = {"a.txt": b"hello\n", "b.txt": b"world " * 50 + b"\n", "d/f": b"x\n"}
    scenario(
        [
            ["zip", "z.zip", "a.txt"],
            ["zip", "z.zip", "a.txt", "b.txt"],
            ["zip", "-r", "z2.zip", "d"],
            ["zip", "z3.zip", "d"],
            ["zip", "-q", "z4.zip", "a.txt"],
            ["zip", "z5.zip", "nope"],
            ["zip", "z6.zip", "nope", "a.txt"],
            ["unzip", "-l", "z.zip"],
            ["unzip", "-v", "z.zip"],
            ["mkdir", "o"],
            ["unzip", "-d", "o", "z.zip"],
            ["unzip", "-d", "o", "z.zip"],
            ["unzip", "-o", "-d", "o", "z.zip"],
            ["unzip", "-n", "-d", "o", "z.zip"],
            ["unzip", "-p", "z.zip", "a.txt"],
            ["unzip", "-d", "o2", "z2.zip"],
            ["unzip", "nope.zip"],
            ["unzip", "-q", "-o", "z.zip", "-d", "o3"],
            ["unzip", "-t", "z.zip"],
            ["zip", "-d", "z.zip", "b.txt"],
            ["unzip", "-l", "z.zip", "x.txt"],
            ["zip", "-j", "z7.zip", "d/f"],
            ["unzip", "-l", "z7.zip"],
            ["zip", "z.zip"],
            ["unzip", "-l", "z2.zip", "d/*"],
            ["unzip", "z2.zip", "-x", "d/f", "-d", "o4"],
            ["zip", "-0", "z9.zip", "b.txt"],
            ["zip", "-9", "z10.zip", "b.txt"],
            ["unzip", "-v", "z9.zip"],
        ],
        files=files,
    )


def test_round_trips_and_streaming() -> None:
    data = bytes(range(256)) * 4000
    for tool, cat in (("gzip", "zcat"), ("bzip2", "bzcat"), ("xz", "xzcat")):
        packed = run_command([tool, "-c"], stdin=data).stdout
        assert run_command([cat], stdin=packed).stdout == data
        # concatenated members or streams decompress one after another
        assert run_command([cat], stdin=packed + packed).stdout == data + data


def test_absolute_names_and_refusals() -> None:
    r = run_command(["tar", "cf", "abs.tar", "/home/user/a.txt"], files={"a.txt": "x"})
    assert r.stderr == b"tar: Removing leading `/' from member names\n"
    r = run_command(["tar", "tf", "abs.tar"], vfs=r.vfs)
    assert r.stdout == b"home/user/a.txt\n"
    r = run_command(["zip", "-e", "z.zip", "a.txt"], files={"a.txt": "x"})
    assert r.status == 16


def _members(*parts: bytes) -> bytes:
    import gzip as _gzip

    return b"".join(_gzip.compress(p, 6) for p in parts)


@needs["gzip"]
def test_gzip_members_lists_and_damage_as_gnu() -> None:
    """The bounded decoder keeps GNU's answers: -l shows the last member's trailer (no header
    overhead once there are several), -t/-k/-c over good, cut, corrupt and trailing data."""
    good = run_command(["gzip", "-c"], stdin=b"hello world\n" * 50).stdout
    big = run_command(["gzip", "-c"], stdin=bytes(range(256)) * 3000).stdout
    flipped = bytearray(big)
    flipped[len(big) // 2] ^= 0x55
    files = {
        "m.gz": _members(b"first\n", b"second member\n", b"third\n" * 9),
        "s.gz": good,
        "big.gz": big,
        "cut.gz": big[: len(big) // 2],
        "crc.gz": big[:-8] + b"\0\0\0\0" + big[-4:],
        "flip.gz": bytes(flipped),
        "zeros.gz": good + bytes(100),
        "junk.gz": good + b"junk",
        "named.gz": good[:3] + b"\x08" + good[4:10] + b"x" * 5000 + b"\0" + good[10:],
    }
    scenario(
        [
            ["gzip", "-l", "m.gz"],
            ["gzip", "-lv", "m.gz"],
            ["gzip", "-l", "s.gz", "m.gz", "big.gz"],
            ["gzip", "-t", "m.gz"],
            ["gzip", "-tv", "big.gz"],
            ["gzip", "-t", "cut.gz"],
            ["gzip", "-t", "crc.gz"],
            ["gzip", "-t", "flip.gz"],
            ["gzip", "-dc", "m.gz"],
            ["gzip", "-dc", "zeros.gz"],
            ["gzip", "-dc", "junk.gz"],
            ["gzip", "-dk", "m.gz"],
            ["gzip", "-dc", "cut.gz"],
            ["gzip", "-l", "cut.gz"],
            ["gzip", "-dc", "named.gz"],
            ["zcat", "big.gz", "m.gz"],
            ["gzip", "-dkf", "big.gz"],
        ],
        files=files,
        norm=_binary,
    )


@needs["bzip2"]
@needs["xz"]
def test_bzip2_xz_streams_and_damage_as_gnu() -> None:
    import bz2 as _bz2
    import lzma as _lzma

    data = bytes(range(256)) * 3000
    bz, xz = _bz2.compress(data), _lzma.compress(data)
    files = {
        "two.bz2": _bz2.compress(b"one\n") + _bz2.compress(b"two\n"),
        "cut.bz2": bz[: len(bz) // 2],
        "big.bz2": bz,
        "two.xz": _lzma.compress(b"one\n") + _lzma.compress(b"two\n"),
        "cut.xz": xz[: len(xz) // 2],
        "big.xz": xz,
        "a.lzma": _lzma.compress(b"alone\n", format=_lzma.FORMAT_ALONE),
    }
    scenario(
        [
            ["bzcat", "two.bz2"],
            ["bzip2", "-t", "cut.bz2"],
            ["bzip2", "-tv", "big.bz2"],
            ["bzip2", "-dc", "cut.bz2"],
            ["xzcat", "two.xz"],
            ["xz", "-t", "cut.xz"],
            ["xz", "-dc", "cut.xz"],
            ["xz", "-t", "big.xz"],
            ["xzcat", "a.lzma"],
            ["xz", "-dk", "big.xz"],
        ],
        files=files,
        norm=_binary,
    )


@needs["tar"]
def test_tar_reads_compressed_archives_as_a_stream() -> None:
    steps: list[Step] = [
        ["tar", "czf", "z.tgz", "a.txt", "b.txt", "d"],
        ["tar", "cjf", "z.tbz", "a.txt", "d"],
        ["tar", "cJf", "z.txz", "b.txt"],
    ]
    for archive in ("z.tgz", "z.tbz", "z.txz"):
        steps += [
            ["tar", "tvf", archive],
            ["tar", "taf", archive],
            ["tar", "xOf", archive],
            ["tar", "tf", archive, "d"],
        ]
    steps += [
        ["gzip", "-dc", "z.tgz"],
        ["tar", "tzf", "z.tbz"],
        ["tar", "tf", "a.txt"],
        ["tar", "tzf", "a.txt"],
        ["mkdir", "o"],
        ["tar", "xzvf", "z.tgz", "-C", "o"],
        ["tar", "xJf", "z.txz", "-C", "o", "b.txt"],
    ]
    scenario(steps, norm=_binary)


@needs["zip"]
@needs["unzip"]
def test_zip_test_option_and_bad_members() -> None:
    import zipfile as _zipfile

    buf = io.BytesIO()
    with _zipfile.ZipFile(buf, "w", _zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.txt", b"hello world " * 100)
        z.writestr("b.txt", b"second")
    good = buf.getvalue()
    bad = bytearray(good)
    bad[good.index(b"a.txt") + 15] ^= 0xFF
    bz = io.BytesIO()
    with _zipfile.ZipFile(bz, "w", _zipfile.ZIP_BZIP2) as z:
        z.writestr("c.txt", b"bzip2 member\n" * 40)
    files = {"ok.zip": good, "bad.zip": bytes(bad), "bz.zip": bz.getvalue(), "n.txt": b"new\n"}
    scenario(
        [
            ["zip", "-T", "ok.zip"],
            ["zip", "-qT", "ok.zip"],
            ["zip", "-T", "bad.zip"],
            ["zip", "-T", "none.zip"],
            ["zip", "-T", "ok.zip", "n.txt"],
            ["unzip", "-t", "bad.zip"],
            ["unzip", "-p", "bad.zip"],
            ["unzip", "-o", "bad.zip"],
            ["unzip", "-t", "bz.zip"],
            ["unzip", "-p", "bz.zip"],
        ],
        files=files,
    )


def test_zip_update_keeps_the_archive_when_the_quota_is_full() -> None:
    from sandbash.vfs import DiskQuota, MemoryFs, Vfs

    quota = DiskQuota(max_bytes=1 << 30, max_files=100)
    vfs = Vfs(MemoryFs(quota=quota))
    view = vfs.view("/")
    view.mkdir("/home/user", parents=True)
    first = run_command(["zip", "-q", "z.zip", "a.txt"], vfs=vfs, files=None)
    assert first.status == 12  # nothing to add yet
    view.write_bytes("/home/user/a.txt", bytes(range(256)) * 400)
    assert run_command(["zip", "-q", "z.zip", "a.txt"], vfs=vfs).status == 0
    before = view.read_bytes("/home/user/z.zip")
    view.write_bytes("/home/user/b.txt", b"more\n" * 100)
    quota.max_bytes = quota.used_bytes + 100
    r = run_command(["zip", "-q", "z.zip", "b.txt"], vfs=vfs)
    assert r.status != 0 and b"No space left on device" in r.stdout + r.stderr
    assert view.read_bytes("/home/user/z.zip") == before
    assert sorted(view.listdir("/home/user")) == ["a.txt", "b.txt", "z.zip"]


@needs["tar"]
@pytest.mark.parametrize(
    "argv",
    [
        ["tar", "-tf", "cut.tar"],
        ["tar", "-xOf", "cut.tar"],
        ["tar", "-xf", "cut.tar"],
        ["tar", "-rf", "cut.tar", "a.txt"],
        ["tar", "-tvf", "cut.tar"],
        ["tar", "-xf", "cut.tar", "--to-stdout"],
    ],
)
@pytest.mark.parametrize("cut", [512 + 2048, 512 + 4999, 700, 512 + 1000])
def test_tar_cut_inside_a_member_is_gnus_fatal_error(argv: list[str], cut: int) -> None:
    """An archive that ends inside a member's content: GNU's 'Unexpected EOF' lines and
    status 2, never an internal error (tarfile raises while the content is read), and the
    whole 512-byte records that were there are written, as GNU writes them."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        info = tarfile.TarInfo("big.txt")
        info.size, info.mtime = 5000, MTIME
        tf.addfile(info, io.BytesIO(b"x" * 5000))
    files = {"cut.tar": buf.getvalue()[:cut], "a.txt": b"a\n"}
    vfs = make_vfs(files)
    ours = run_command(argv, vfs=vfs, env=ENV)
    with tempfile.TemporaryDirectory() as d:
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        real = oracle.run(argv, capture_output=True, cwd=d, env=ENV, timeout=30)
        extracted = os.path.join(d, "big.txt")
        real_file = open(extracted, "rb").read() if os.path.exists(extracted) else None
    assert (ours.stdout, ours.stderr.decode(), ours.status) == (
        real.stdout,
        real.stderr.decode(),
        real.returncode,
    )
    assert b"internal error" not in ours.stderr
    view = vfs.view("/home/user")
    assert (view.read_bytes("big.txt") if view.exists("big.txt") else None) == real_file
