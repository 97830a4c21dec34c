"""find: the expression language against GNU find (output lines compared as
sets, since GNU lists directories in readdir order and we in name order),
and times, owners, -exec and -delete against fixed expectations."""

from __future__ import annotations

import re
import shutil

import pytest

from sandbash.testing import make_vfs, run_command
from sandbash.vfs.facade import Vfs
from unit.commands.test_fileops import real_run, sandbox_run
from unit.commands.viashell import run_via_shell

FILES: dict[str, bytes | str] = {
    "t/a/f": "hello",
    "t/a/b/deep.txt": "",
    "t/c/g": "xy",
    "t/e": "",
    "t/.hid": "h",
    "t/big": "x" * 5000,
    "t/Upper.TXT": "u",
    "chain/one/two/three": "3",
}
SETUP = [
    ["ln", "-s", "a", "t/l"],
    ["ln", "-s", "nx", "t/dang"],
    ["mkdir", "t/empty"],
    ["chmod", "755", "t/e"],
    ["chmod", "600", "t/c/g"],
]


def compare_find(argv: list[str], ordered: bool = False, stdin: bytes = b"") -> None:
    if shutil.which("find") is None:
        pytest.skip("find not installed")
    starts_programs = any(a in ("-exec", "-execdir", "-ok", "-okdir") for a in argv)
    ours = sandbox_run(argv, FILES, SETUP, stdin, run=run_via_shell if starts_programs else run_command)
    real = real_run(argv, FILES, SETUP, stdin)
    if ordered:
        assert ours[:3] == real[:3]
    else:
        assert sorted(re.split(b"[\n\0]", ours[0])) == sorted(re.split(b"[\n\0]", real[0]))
        assert (ours[1], ours[2]) == (real[1], real[2])
    assert ours[3] == real[3]


CASES: list[list[str]] = [
    ["find", "t"],
    ["find", "t", "-print"],
    ["find", "t", "-name", "f"],
    ["find", "t", "-name", "*.txt"],
    ["find", "t", "-iname", "*.txt"],
    ["find", "t", "-name", "[ab]"],
    ["find", "t", "-name", ".*"],
    ["find", "t", "-path", "*a*"],
    ["find", "t", "-ipath", "T/A*"],
    ["find", "t", "-wholename", "t/a"],
    ["find", "t", "-type", "f"],
    ["find", "t", "-type", "d"],
    ["find", "t", "-type", "l"],
    ["find", "t", "-type", "f,l"],
    ["find", "t", "-xtype", "l"],
    ["find", "t", "-xtype", "d"],
    ["find", "-L", "t", "-type", "l"],
    ["find", "-L", "t", "-type", "d"],
    ["find", "t", "-follow", "-type", "d"],
    ["find", "-H", "t/l"],
    ["find", "-H", "t/l", "-type", "d"],
    ["find", "t/l"],
    ["find", "t/l/"],
    ["find", "t", "-maxdepth", "1"],
    ["find", "t", "-maxdepth", "0"],
    ["find", "t", "-mindepth", "2"],
    ["find", "t", "-mindepth", "1", "-maxdepth", "1", "-type", "d"],
    ["find", "t", "-empty"],
    ["find", "t", "-size", "-1k"],
    ["find", "t", "-size", "+1c", "-type", "f"],
    ["find", "t", "-size", "1"],
    ["find", "t", "-size", "5c"],
    ["find", "t", "-size", "+4k"],
    ["find", "t", "-size", "-1M"],
    ["find", "t", "-size", "2w"],
    ["find", "t", "-perm", "644"],
    ["find", "t", "-perm", "-u+x"],
    ["find", "t", "-perm", "/o+w"],
    ["find", "t", "-perm", "-600"],
    ["find", "t", "-perm", "/111", "-type", "f"],
    ["find", "t", "-perm", "u=rw,go=r"],
    ["find", "t", "-perm", "/000"],
    ["find", "t", "-readable"],
    ["find", "t", "-regex", ".*/[a-c]"],
    ["find", "t", "-regex", r".*\(f\|g\)"],
    ["find", "t", "-iregex", ".*TXT"],
    ["find", "t", "-regextype", "posix-extended", "-regex", ".*/(a|b)"],
    ["find", "t", "-regextype", "posix-basic", "-regex", r".*/\(a\|b\)"],
    ["find", "t", "!", "-type", "d"],
    ["find", "t", "-not", "-name", "*a*", "-type", "f"],
    ["find", "t", "(", "-name", "a", "-o", "-name", "c", ")", "-print"],
    ["find", "t", "-name", "a", "-o", "-name", "c"],
    ["find", "t", "-name", "a", "-a", "-type", "d"],
    ["find", "t", "-name", "a", "-prune", "-o", "-print"],
    ["find", "t", "-name", "a", "-prune"],
    ["find", "t", "-type", "d", "-name", "a", "-prune", "-o", "-type", "f", "-print"],
    ["find", "t", "-true", "-false", ",", "-print"],
    ["find", "t", "-false", "-o", "-true"],
    ["find", "t", "-links", "2"],
    ["find", "t", "-links", "+2"],
    ["find", "t", "-samefile", "t/a/f"],
    ["find", "t", "-lname", "a"],
    ["find", "t", "-lname", "*x"],
    ["find", "t", "-ilname", "A"],
    ["find", "t", "-newer", "t/e", "-name", "nothing"],
    ["find", "t", "-fstype", "nosuchfs"],
    ["find", "t", "-print0"],
    ["find", "t", "-type", "f", "-printf", "%p %s %f %h %d %y %m %M %P %H\n"],
    ["find", "t", "-printf", "%y %Y %l|%p\n"],
    ["find", "t", "-maxdepth", "1", "-printf", "%k %b %n %S\n"],
    ["find", "t/", "-maxdepth", "1", "-printf", "%p|%f|%h|%P|%H\n"],
    ["find", ".", "-maxdepth", "1", "-name", "t"],
    ["find", "t", "-printf", "[%10p][%-6f][%5s][%.2f]\n"],
    ["find", "t/a/f", "-printf", "\\t\\101\\c ignored"],
    ["find", "t/a/f", "-printf", "%z\n"],
    ["find", "t", "-printf", "%"],
    ["find", "t", "-printf", "\\q\n"],
    ["find", "t", "-exec", "echo", "X{}Y", ";"],
    ["find", "t", "-type", "f", "-exec", "test", "-s", "{}", ";", "-print"],
    ["find", "t", "-exec", "false", ";", "-o", "-print"],
    ["find", "t", "-name", "f", "-exec", "cat", "{}", "+"],
    ["find", "t", "-type", "f", "-name", "*.txt", "-exec", "false", "{}", "+"],
    ["find", "chain", "-ok", "echo", "{}", ";"],
    ["find", "t", "-name", "g", "-ok", "echo", "hit", "{}", ";"],
    ["find", "t", "-name", "f", "-quit"],
    ["find", "t", "-print", "-quit"],
    ["find", "t", "-type", "d", "-empty", "-delete"],
    ["find", "t/a", "-delete"],
    ["find", "t", "-name", "*.txt", "-delete", "-print"],
    ["find", "chain"],
    ["find", "chain", "-depth"],
    ["find", "chain", "-d", "-print"],
    ["find", "chain", "-mindepth", "1", "-depth"],
    ["find", "chain", "-exec", "echo", "{}", "+"],
    ["find", "nx"],
    ["find", "nx", "t/e"],
    ["find", ""],
    ["find", "t", "-foo"],
    ["find", "t", "-name"],
    ["find", "t", "-type", "q"],
    ["find", "t", "-type", "fd"],
    ["find", "t", "-type", "f,"],
    ["find", "t", "-type", "f,f"],
    ["find", "t", "(", "-name", "f"],
    ["find", "t", "-name", "f", ")"],
    ["find", "t", "("],
    ["find", "t", "(", ")"],
    ["find", "t", "-mtime", "x"],
    ["find", "t", "-size", "3q"],
    ["find", "t", "-perm", "999"],
    ["find", "t", "-perm", "+644"],
    ["find", "t", "-user", "nobodyx"],
    ["find", "t", "-group", "nogroupx"],
    ["find", "t", "-uid", "x"],
    ["find", "t", "-exec", "echo", "{}"],
    ["find", "t", "-exec"],
    ["find", "t", "-exec", "echo", "{}", "{}", "+"],
    ["find", "t", "-newer", "nx"],
    ["find", "-name", "x", "t"],
    ["find", "t", "-name", "f", "t"],
    ["find", "t", "-maxdepth", "-1"],
    ["find", "t", "-maxdepth"],
    ["find", "t", "!"],
    ["find", "t", "-o", "-name", "f"],
    ["find", "t", "-a"],
    ["find", "t", "-name", "f", "-o"],
    ["find", "t", "-delete", "-prune"],
    ["find", "t", "-regextype", "foo"],
    ["find", "t", "-newerBt", "2020-01-01"],
    ["find", "t", "-newermt", "garbage"],
    ["find", "t", "-used", "x"],
    ["find", "t", "-fprint"],
    ["find", "t", "-inum", "x"],
    ["find", "t", "-links", "x"],
    ["find", "t", "-printf"],
    ["find", "t", "-size"],
    ["find", "t", "-type"],
    ["find", "chain", "-print", "-fprint", "out"],
    ["find", "t", "-name", "f", "-fprintf", "out", "%f\n"],
    ["find", "chain", "-fprint0", "out"],
    ["find", "t", "-name", "f", "-a"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches_gnu(argv: list[str]) -> None:
    compare_find(argv, ordered=argv[1] == "chain")


# ------------------------------------------------------------ fixed expectations

NOW = 1_700_000_000.0
DAY = 86400.0


def timed_vfs() -> Vfs:
    vfs = Vfs(clock=lambda: NOW)
    root = vfs.view("/")
    root.mkdir("/home/user", parents=True)
    root.mkdir("/tmp")
    home = vfs.view("/home/user")
    home.mkdir("t")
    for name, age in (
        ("now", 0.0),
        ("hour", 3600.0),
        ("day1", 1.5 * DAY),
        ("day3", 3.2 * DAY),
        ("old", 40 * DAY),
    ):
        home.write_bytes(f"t/{name}", name.encode())
        home.utime(f"t/{name}", int((NOW - age) * 10**9), int((NOW - age) * 10**9))
    home.write_bytes("t/future", b"")
    home.utime("t/future", int(NOW + DAY) * 10**9, int(NOW + DAY) * 10**9)
    home.utime("t", int(NOW - 10 * DAY) * 10**9, int(NOW - 10 * DAY) * 10**9)
    return vfs


def names(*argv: str, vfs: Vfs | None = None) -> list[str]:
    r = run_command(["find", "t", *argv], vfs=vfs or timed_vfs())
    assert r.status == 0, r.stderr
    return sorted(p.rsplit("/", 1)[-1] for p in r.stdout.decode().split("\n") if p)


@pytest.mark.parametrize(
    "expr,expected",
    [
        (["-mtime", "0"], ["hour"]),
        (["-mtime", "-1"], ["future", "hour", "now"]),
        (["-mtime", "1"], ["day1"]),
        (["-mtime", "+1"], ["day3", "old", "t"]),
        (["-mtime", "+30"], ["old"]),
        (["-mtime", "-4", "-mtime", "+0"], ["day1", "day3"]),
        (["-mmin", "-61"], ["future", "hour", "now"]),
        (["-mmin", "60"], ["hour"]),
        (["-mmin", "+60", "-mmin", "-3000"], ["day1"]),
        (["-atime", "+35"], ["old"]),
        (["-ctime", "-1", "-name", "now"], ["now"]),
        (["-newermt", "@1699990000"], ["future", "hour", "now"]),
        (["-newermt", "2023-11-01"], ["day1", "day3", "future", "hour", "now", "t"]),
        (["-newer", "t/day1", "-type", "f"], ["future", "hour", "now"]),
        (["-anewer", "t/hour", "-type", "f"], ["future", "now"]),
        (["-daystart", "-mtime", "0", "-type", "f"], ["hour", "now"]),
        (["-user", "user", "-name", "now"], ["now"]),
        (["-uid", "1000", "-name", "now"], ["now"]),
        (["-group", "root"], []),
        (["-nouser"], []),
        (["-gid", "-1"], []),
    ],
)
def test_time_and_owner_tests(expr: list[str], expected: list[str]) -> None:
    assert names(*expr) == expected


def test_printf_times_and_ls() -> None:
    vfs = timed_vfs()
    vfs.view("/home/user").utime("t/old", 1704164645_500_000_000, 1704164645_500_000_000)
    r = run_command(
        ["find", "t/old", "-printf", "%t|%T@|%Tk|%TY-%Tm-%Td %TH:%TM:%TS|%TT|%T+|%Ta %Tb %Te|%AD\n"], vfs=vfs
    )
    assert r.stdout == (
        b"Tue Jan  2 03:04:05.5000000000 2024|1704164645.5000000000| 3|"
        b"2024-01-02 03:04:05.5000000000|03:04:05.5000000000|2024-01-02+03:04:05.5000000000|"
        b"Tue Jan  2|01/02/24\n"
    )
    r = run_command(["find", "t/now", "-printf", "%u %g %U %G %m %M\n"], vfs=vfs)
    assert r.stdout == b"user user 1000 1000 644 -rw-r--r--\n"
    ino = vfs.view("/home/user").lstat("t/now").ino
    r = run_command(["find", "t/now", "-ls"], vfs=vfs)
    assert (
        r.stdout == f"{ino:9d}      4 -rw-r--r--   1 user     user            3 Nov 14 22:13 t/now\n".encode()
    )


def test_exec_runs_through_the_runner() -> None:
    vfs = make_vfs({"d/a.txt": "A\n", "d/b.txt": "B\n", "d/c.md": "C\n"})
    r = run_via_shell(["find", "d", "-name", "*.txt", "-exec", "cat", "{}", ";"], vfs=vfs)
    assert (r.stdout, r.status) == (b"A\nB\n", 0)
    r = run_via_shell(["find", "d", "-name", "*.txt", "-exec", "cat", "{}", "+"], vfs=vfs)
    assert r.stdout == b"A\nB\n"
    r = run_via_shell(["find", "d", "-type", "f", "-exec", "sh", "-c", "exit 1", ";", "-print"], vfs=vfs)
    assert r.stdout == b""
    r = run_via_shell(["find", "d", "-name", "*.md", "-exec", "nosuchcmd", "{}", "+"], vfs=vfs)
    assert r.status == 1
    r = run_via_shell(["find", "d", "-name", "c.md", "-ok", "rm", "{}", ";"], vfs=vfs, stdin=b"y\n")
    assert r.stderr == b"< rm ... d/c.md > ? " and not vfs.view("/home/user").exists("d/c.md")
    r = run_via_shell(["find", "d", "-name", "a.txt", "-execdir", "cat", "{}", ";"], vfs=vfs)
    assert r.stdout == b"A\n"
    r = run_via_shell(
        ["find", "d", "-name", "*.txt", "-execdir", "pwd", ";", "-execdir", "echo", "{}", "+"], vfs=vfs
    )
    assert r.stdout == b"/home/user/d\n/home/user/d\n./a.txt ./b.txt\n"
    r = run_via_shell(
        [
            "find",
            "d",
            "-name",
            "a.txt",
            "-exec",
            "nope",
            "{}",
            ";",
            "-o",
            "-name",
            "b.txt",
            "-execdir",
            "./nope",
            "{}",
            ";",
        ],
        vfs=vfs,
    )
    assert (
        r.stderr
        == "find: \u2018nope\u2019: No such file or directory\nfind: \u2018./nope\u2019: No such file or directory\n".encode()
    )
    assert r.status == 0  # as GNU: a failed `-exec ... ;` is only false


def test_exec_output_is_ordered_with_prints() -> None:
    r = run_via_shell(["find", "d", "-print", "-exec", "echo", "x", ";"], files={"d/f": ""})
    assert r.stdout == b"d\nx\nd/f\nx\n"


def test_delete_reports_non_empty_directories() -> None:
    vfs = make_vfs({"d/keep": "", "d/e/x": ""})
    r = run_command(["find", "d", "-name", "e", "-delete"], vfs=vfs)
    assert (r.stderr, r.status) == ("find: cannot delete ‘d/e’: Directory not empty\n".encode(), 1)
    r = run_command(["find", "d", "-delete"], vfs=vfs)
    assert r.status == 0 and not vfs.view("/home/user").exists("d")


def test_permission_denied_directories() -> None:
    vfs = make_vfs({"d/locked/x": "", "d/ok": ""})
    vfs.view("/home/user").chmod("d/locked", 0o000)
    r = run_command(["find", "d"], vfs=vfs)
    assert r.status == 1
    assert r.stderr == "find: ‘d/locked’: Permission denied\n".encode()
    assert sorted(r.stdout.split()) == [b"d", b"d/locked", b"d/ok"]


def test_symlink_loop_with_follow() -> None:
    vfs = make_vfs({"d/f": ""})
    vfs.view("/home/user").symlink("..", "d/up")
    r = run_command(["find", "-L", "d"], vfs=vfs)
    assert r.status == 1
    assert (
        r.stderr
        == "find: File system loop detected; ‘d/up/d’ is part of the same file system loop as ‘d’.\n".encode()
    )


def test_global_option_warning_with_warn() -> None:
    r = run_command(["find", "d", "-warn", "-name", "x", "-maxdepth", "1"], files={"d/f": ""})
    assert r.stderr.startswith(
        b"find: warning: you have specified the global option -maxdepth after the argument "
        b"-name, but global options are not positional"
    )
    r = run_command(["find", "d", "-name", "x", "-maxdepth", "1"], files={"d/f": ""})
    assert r.stderr == b""


def test_every_visited_file_is_charged() -> None:
    from sandbash.limits import LimitExceeded, Limits

    files = {f"d/{i}": "" for i in range(200)}
    with pytest.raises(LimitExceeded):
        run_command(["find", "d"], files=files, limits=Limits(max_work=50))
