"""ls, dir, vdir: names, formats and errors against GNU ls; long listings
(owners, times, inode numbers depend on the host) against fixed expectations."""

from __future__ import annotations

import pytest

from sandbash.testing import run_command
from sandbash.vfs.facade import Vfs
from unit.commands.test_fileops import compare

FILES: dict[str, bytes | str] = {
    "a": "",
    "bb": "",
    "ccc": "",
    "dddddddddd": "",
    "eeeeeeeeeeeeeeeeeee": "",
    "ffffffffff": "",
    "gggggggggg": "",
    "hhhhhhhhhhhhhhhhhhhhhhhh": "",
    "iiii": "",
    "jjjjjjjjjjjjj": "",
    "kkkkkkkkk": "",
    ".hidden": "",
    "b~": "",
    "x.tar.gz": "",
    "x.txt": "",
    "file10": "",
    "file9": "",
    "file1.0": "",
    "Zed": "",
    "_under": "",
    "sp ace": "",
    "it's": "",
    "\u00e9t\u00e9": "",
    "tab\there": "",
    "nl\nx": "",
    "d/one": "",
    "d/.h": "",
    "d/sub/deep": "",
    "e/only": "",
    "exe": "",
}
SETUP = [
    ["mkdir", "empty"],
    ["ln", "-s", "a", "la"],
    ["ln", "-s", "d", "ld"],
    ["ln", "-s", "nx", "dang"],
    ["chmod", "+x", "exe"],
]

CASES: list[list[str]] = [
    ["ls"],
    ["ls", "-1"],
    ["ls", "-a"],
    ["ls", "-A"],
    ["ls", "-r"],
    ["ls", "-C"],
    ["ls", "-x"],
    ["ls", "-m"],
    ["ls", "-C", "-w", "40"],
    ["ls", "-x", "-w", "30"],
    ["ls", "-m", "-w", "20"],
    ["ls", "-C", "-w", "0"],
    ["ls", "-C", "-T", "0"],
    ["ls", "-C", "-T", "4"],
    ["ls", "-w", "x"],
    ["ls", "-F"],
    ["ls", "-p"],
    ["ls", "--file-type"],
    ["ls", "--indicator-style=classify"],
    ["ls", "-F", "--classify=never"],
    ["ls", "-d"],
    ["ls", "-d", "d", "ld", "a"],
    ["ls", "d"],
    ["ls", "ld"],
    ["ls", "-F", "ld"],
    ["ls", "-H", "ld"],
    ["ls", "-R"],
    ["ls", "-R", "d"],
    ["ls", "-aR", "d"],
    ["ls", "d", "e", "a", "nx"],
    ["ls", "nx"],
    ["ls", "a", "nx", "bb"],
    ["ls", "empty"],
    ["ls", "-d", "empty", "e"],
    ["ls", "-Q"],
    ["ls", "-b"],
    ["ls", "-N"],
    ["ls", "-q"],
    ["ls", "--quoting-style=shell"],
    ["ls", "--quoting-style=shell-escape"],
    ["ls", "--quoting-style=shell-always"],
    ["ls", "--quoting-style=c"],
    ["ls", "--quoting-style=escape"],
    ["ls", "--quoting-style=locale"],
    ["ls", "--quoting-style=bogus"],
    ["ls", "-I", "*a*"],
    ["ls", "--hide=[a-e]*"],
    ["ls", "-a", "--hide=[a-e]*"],
    ["ls", "-B"],
    ["ls", "-X"],
    ["ls", "-v"],
    ["ls", "-v", "-a"],
    ["ls", "-U", "e"],
    ["ls", "-f", "e"],
    ["ls", "--sort=extension"],
    ["ls", "--sort=width"],
    ["ls", "--sort=bogus"],
    ["ls", "--format=commas"],
    ["ls", "--format=x"],
    ["ls", "--group-directories-first"],
    ["ls", "-L", "dang"],
    ["ls", "dang"],
    ["ls", "-i", "-d", "nx"],
    ["ls", "--zero", "d"],
    ["ls", "-1", "--", "-x"],
    ["ls", "--time-style=bad", "-l"],
    ["ls", "--block-size=bad"],
    ["ls", "--bogus"],
    ["ls", "-y"],
    ["ls", "-C", "-I", "*", "--hide=x"],
    ["dir"],
    ["dir", "-1", "e"],
    ["ls", "-s", "empty"],
    ["ls", "--color=never"],
    ["ls", "--color=auto", "-F"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches_gnu(argv: list[str]) -> None:
    compare(argv, FILES, SETUP, tree=False)


# ------------------------------------------------------------ long listings on a fixed clock

NOW = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


def fixed_vfs() -> Vfs:
    vfs = Vfs(clock=lambda: NOW)
    view = vfs.view("/")
    view.mkdir("/home/user", parents=True)
    view.mkdir("/tmp")
    home = vfs.view("/home/user")
    home.write_bytes("small", b"hello")
    home.write_bytes("big", b"x" * 5000)
    home.mkdir("dir")
    home.write_bytes("dir/inner", b"")
    home.symlink("small", "link")
    home.write_bytes("old", b"")
    home.utime("old", int(NOW - 200 * 86400) * 10**9, int(NOW - 200 * 86400) * 10**9)
    home.write_bytes("future", b"")
    home.utime("future", int(NOW + 86400) * 10**9, int(NOW + 86400) * 10**9)
    home.write_bytes("run", b"#!/bin/sh\n")
    home.chmod("run", 0o755)
    vfs.backend.chown("/home/user/run", 0, 0)
    return vfs


def ls(*argv: str) -> tuple[str, str, int]:
    r = run_command(["ls", *argv], vfs=fixed_vfs())
    return r.stdout.decode(), r.stderr.decode(), r.status


def test_long_format() -> None:
    out, err, status = ls("-l")
    assert status == 0 and err == ""
    assert out == (
        "total 20\n"
        "-rw-r--r-- 1 user user 5000 Nov 14 22:13 big\n"
        "drwxr-xr-x 2 user user 4096 Nov 14 22:13 dir\n"
        "-rw-r--r-- 1 user user    0 Nov 15  2023 future\n"
        "lrwxrwxrwx 1 user user    5 Nov 14 22:13 link -> small\n"
        "-rw-r--r-- 1 user user    0 Apr 28  2023 old\n"
        "-rwxr-xr-x 1 root root   10 Nov 14 22:13 run\n"
        "-rw-r--r-- 1 user user    5 Nov 14 22:13 small\n"
    )


def test_long_format_variants() -> None:
    assert ls("-lh", "big")[0] == "-rw-r--r-- 1 user user 4.9K Nov 14 22:13 big\n"
    assert ls("-n", "run")[0] == "-rwxr-xr-x 1 0 0 10 Nov 14 22:13 run\n"
    assert ls("-g", "run")[0] == "-rwxr-xr-x 1 root 10 Nov 14 22:13 run\n"
    assert ls("-o", "run")[0] == "-rwxr-xr-x 1 root 10 Nov 14 22:13 run\n"
    assert ls("-lF", "link", "dir", "run")[0] == (
        "lrwxrwxrwx 1 user user  5 Nov 14 22:13 link -> small\n"
        "-rwxr-xr-x 1 root root 10 Nov 14 22:13 run*\n"
        "\n"
        "dir:\n"
        "total 0\n"
        "-rw-r--r-- 1 user user 0 Nov 14 22:13 inner\n"
    )
    assert (
        ls("--full-time", "small")[0]
        == "-rw-r--r-- 1 user user 5 2023-11-14 22:13:20.000000000 +0000 small\n"
    )
    assert ls("-l", "--time-style=long-iso", "old")[0] == "-rw-r--r-- 1 user user 0 2023-04-28 22:13 old\n"
    assert ls("-l", "--time-style=iso", "old", "small")[0] == (
        "-rw-r--r-- 1 user user 0 2023-04-28  old\n-rw-r--r-- 1 user user 5 11-14 22:13 small\n"
    )
    assert ls("-l", "--time-style=+%Y/%m/%d", "old")[0] == "-rw-r--r-- 1 user user 0 2023/04/28 old\n"
    assert ls("-ls", "big")[0] == "8 -rw-r--r-- 1 user user 5000 Nov 14 22:13 big\n"
    assert ls("-s", "-h", "big", "small")[0] == "8.0K big\n4.0K small\n"
    assert ls("-l", "--block-size=K", "big")[0] == "-rw-r--r-- 1 user user 5K Nov 14 22:13 big\n"
    assert ls("-lL", "link")[0] == "-rw-r--r-- 1 user user 5 Nov 14 22:13 link\n"


def test_sorting_by_time_and_size() -> None:
    assert ls("-t")[0].split() == ["future", "big", "dir", "link", "run", "small", "old"]
    assert ls("-tr")[0].split() == ["old", "small", "run", "link", "dir", "big", "future"]
    assert ls("-S")[0].split() == ["big", "dir", "run", "link", "small", "future", "old"]
    assert ls("-Sr")[0].split() == ["old", "future", "small", "link", "run", "dir", "big"]


def test_inode_and_dangling_long() -> None:
    vfs = fixed_vfs()
    vfs.view("/home/user").symlink("nowhere", "dang")
    r = run_command(["ls", "-lL", "dang", "small"], vfs=vfs)
    assert r.status == 2
    assert r.stderr == b"ls: cannot access 'dang': No such file or directory\n"
    r = run_command(["ls", "-i", "small"], vfs=vfs)
    ino = vfs.view("/home/user").lstat("small").ino
    assert r.stdout == f"{ino} small\n".encode()


def test_unreadable_directory() -> None:
    vfs = fixed_vfs()
    vfs.view("/home/user").chmod("dir", 0o300)
    r = run_command(["ls", "dir"], vfs=vfs)
    assert (r.stderr, r.status) == (b"ls: cannot open directory 'dir': Permission denied\n", 2)
    r = run_command(["ls", "-R"], vfs=vfs)
    assert r.status == 1 and b"cannot open directory './dir'" in r.stderr


def test_vdir_is_long() -> None:
    r = run_command(["vdir", "small"], vfs=fixed_vfs())
    assert r.stdout == b"-rw-r--r-- 1 user user 5 Nov 14 22:13 small\n"
