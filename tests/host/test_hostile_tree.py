"""A proc/sys tree with malformed, oversized or odd entries: the commands skip what they cannot
parse, cap what they read, charge it to max_memory, and never show a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.host import HostAccess


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    proc, sys_ = tmp_path / "proc", tmp_path / "sys"
    (proc / "net").mkdir(parents=True)
    (sys_ / "class" / "net").mkdir(parents=True)
    (proc / "self").symlink_to("10")
    return proc, sys_


def _proc(proc: Path, pid: int, stat: bytes, cmdline: bytes = b"", status: bytes = b"Uid:\t5\n") -> None:
    d = proc / str(pid)
    d.mkdir()
    (d / "stat").write_bytes(stat)
    (d / "cmdline").write_bytes(cmdline)
    (d / "status").write_bytes(status)


REST = b" S 1 10 10 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 100 4096 10\n"


def test_malformed_processes_are_skipped(tmp_path: Path) -> None:
    proc, sys_ = _tree(tmp_path)
    _proc(proc, 10, b"10 (ok) " + REST[1:], b"ok\0--flag\0")
    _proc(proc, 11, b"11 no parens at all\n")
    _proc(proc, 12, b"12 (short) S 1\n")
    _proc(proc, 13, b"13 (a) b) c) " + REST[1:], b"\xff\xfe odd\0")  # ) in the name, bytes not UTF-8
    _proc(proc, 14, b"14 (nums) S x y z w v u t s r q p o n m l k j i h g\n")
    (proc / "15").mkdir()  # ended between the listing and the read: no files
    (proc / "notapid").mkdir()
    r = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_))).exec("ps -e -o pid,comm,args")
    assert r.exit_code == 0 and "Traceback" not in r.stderr
    # 11, 12 and 14 cannot be parsed (no parentheses, too few or non-numeric fields): left out
    assert r.stdout == "PID COMMAND COMMAND\n 10 ok      ok --flag\n 13 a) b) c \ufffd\ufffd odd\n"


def test_garbage_socket_and_route_lines_are_skipped(tmp_path: Path) -> None:
    proc, sys_ = _tree(tmp_path)
    (proc / "net" / "tcp").write_text(
        "header\n   0: zz:qq 00000000:0000 0A\n"
        "   1: 0100007F:0016 00000000:0000 0A 00000000:00000000 00:00000000 "
        "00000000 0 0 77 1\n   2: short\n"
    )
    (proc / "net" / "route").write_text("Iface\tDestination\nlo\tnothex\tx\t0\t0\t0\t0\tzz\n")
    (proc / "net" / "unix").write_text("Num\nbad line\n")
    b = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_)))
    r = b.exec("ss -tlnH; ss -xaH; ip route; echo $?")
    assert r.stdout == "tcp    LISTEN           0       0  127.0.0.1:22                 0.0.0.0:*\n0\n"
    assert r.stderr == ""


def test_sys_entries_that_are_links_to_nowhere(tmp_path: Path) -> None:
    proc, sys_ = _tree(tmp_path)
    os.symlink("loop", sys_ / "class" / "net" / "loop")
    os.symlink("/nonexistent", sys_ / "class" / "net" / "gone")
    r = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_))).exec("ip link; echo $?")
    assert r.stdout.endswith("0\n") and "Traceback" not in r.stderr


def test_reads_are_capped(tmp_path: Path) -> None:
    proc, sys_ = _tree(tmp_path)
    _proc(proc, 10, b"10 (big) " + REST[1:], b"x" * 100_000)
    r = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_))).exec(
        "ps -p 10 -o args | tail -1 | wc -c"
    )
    assert r.stdout == "4097\n"  # MAX_CMDLINE bytes and the newline


def test_large_tables_are_charged_to_max_memory(tmp_path: Path) -> None:
    proc, sys_ = _tree(tmp_path)
    line = "   1: 0100007F:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 77 1\n"
    (proc / "net" / "tcp").write_text("header\n" + line * 40_000)  # 3.4 MB
    b = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_)), limits={"max_memory": 4_000_000})
    with pytest.raises(ExecutionLimitError) as e:
        b.exec("ss -tlnH | wc -l")
    assert e.value.limit == "max_memory"
    roomy = Bash(host=HostAccess(proc_path=str(proc), sys_path=str(sys_)))
    assert roomy.exec("ss -tlnH | wc -l").stdout == "10000\n"  # the entry cap
