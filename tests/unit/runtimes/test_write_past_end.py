"""A write after a seek lands at the position, and a gap past the end reads as zeros, through
python3 (Monty) and lua on every filesystem backend (the spec tables runtime_python.txt and
runtime_lua.txt compare the same programs with CPython and lua5.4 on the memory backend)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.vfs import MemoryFs, OverlayFs, ReadWriteFs, SqliteFs
from sandbash.vfs.base import Backend

pytest.importorskip("lupa.lua54")
pytest.importorskip("pydantic_monty")

BACKENDS = ["memory", "overlay", "sqlite", "readwrite"]


@pytest.fixture(params=BACKENDS)
def bash(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Bash]:
    host = tmp_path / "host"
    host.mkdir()
    be: Backend
    if request.param == "memory":
        be = MemoryFs()
    elif request.param == "overlay":
        be = OverlayFs(str(host))
    elif request.param == "sqlite":
        be = SqliteFs(str(tmp_path / "store.db"))
    else:
        be = ReadWriteFs(str(host))
    b = Bash(fs=be)
    b.exec("mkdir -p /home/user")
    yield b
    close = getattr(be, "close", None)
    if close is not None:
        close()


def _file(b: Bash, name: str) -> bytes:
    return b.vfs.view("/").read_bytes("/home/user/" + name)


# (program, file it writes, the bytes real CPython / lua5.4 leave there)
PY_CASES = [
    ("f = open('x', 'wb'); f.seek(70000); f.write(b'x'); f.close()", b"\0" * 70000 + b"x"),
    ("f = open('x', 'wb'); f.write(b'abc'); f.seek(1); f.write(b'Q'); f.close()", b"aQc"),
    (
        "f = open('x', 'wb'); f.write(b'abc'); f.seek(0, 2); f.seek(2, 1); f.write(b'Z'); f.close()",
        b"abc\0\0Z",
    ),
    (
        "f = open('x', 'w'); f.write('h\u00e9'); f.seek(5); f.write('!'); f.close()",
        "h\u00e9".encode() + b"\0\0!",
    ),
    ("f = open('x', 'w'); f.write('abcdef'); f.truncate(2); f.write('Z'); f.close()", b"ab\0\0\0\0Z"),
    ("f = open('x', 'w'); f.seek(3); print('p', file=f); f.close()", b"\0\0\0p\n"),
    ("import json\nf = open('x', 'w'); f.seek(2); json.dump([1], f); f.close()", b"\0\0[1]"),
    (
        "from json import dump as d\nwith open('x', 'w') as f:\n    f.seek(1)\n    d({'a': 1}, f)",
        b'\0{"a": 1}',
    ),
    ("f = open('x', 'a'); f.write('a'); f.close()", b"a"),
]


@pytest.mark.parametrize(("program", "expected"), PY_CASES)
def test_python_writes_at_the_position(bash: Bash, program: str, expected: bytes) -> None:
    r = bash.exec("python3 -c '" + program.replace("'", "'\\''") + "'")
    assert r.exit_code == 0, r.stderr
    assert _file(bash, "x") == expected


LUA_CASES = [
    ('local f = io.open("x", "wb") f:seek("set", 70000) f:write("x") f:close()', b"\0" * 70000 + b"x"),
    ('local f = io.open("x", "wb") f:write("abc") f:seek("set", 1) f:write("Q") f:close()', b"aQc"),
    ('local f = io.open("x", "wb") f:write("abc") f:seek("end", 2) f:write("Z") f:close()', b"abc\0\0Z"),
    (
        'local f = io.open("x", "wb") f:write("ab") f:close() f = io.open("x", "r+b") f:seek("set", 4) '
        'f:write("r") f:close()',
        b"ab\0\0r",
    ),
    (
        'local f = io.open("x", "wb") f:write("ab") f:close() f = io.open("x", "ab") f:seek("set", 0) '
        'f:write("c") print(f:seek("cur")) f:close()',
        b"abc",
    ),
    ('local f = io.open("x", "w+b") f:seek("set", 3) f:write("w") f:close()', b"\0\0\0w"),
]


@pytest.mark.parametrize(("program", "expected"), LUA_CASES)
def test_lua_writes_at_the_position(bash: Bash, program: str, expected: bytes) -> None:
    r = bash.exec("lua -e '" + program + "'")
    assert r.exit_code == 0, r.stderr
    assert _file(bash, "x") == expected


def test_a_gap_beyond_the_quota_is_refused_not_allocated() -> None:
    b = Bash()
    r = b.exec("""python3 -c '
f = open("x", "wb"); f.seek(10 ** 10)
try:
    f.write(b"x")
except OSError as e:
    print(e)
f.close()'
lua -e 'local f = io.open("y", "wb") f:seek("set", 10 ^ 10 // 1) print(f:write("x")) f:close()'
wc -c x y""")
    assert r.stdout == (
        "[Errno 28] No space left on device\nnil\tNo space left on device\t28\n0 x\n0 y\n0 total\n"
    ), r.stderr
