"""rg: ripgrep's non-terminal output on the virtual filesystem (fixed expectations)."""

from __future__ import annotations

import pytest

from sandbash.testing import run_command

FILES = {
    "a.txt": "hello world\nfoo\n",
    "d/b.py": "print(hello)\n",
    ".hid": "hello\n",
    "bin": b"hello\0\n",
}

CASES = [
    (["rg", "hello"], b"", 0, b"a.txt:hello world\nd/b.py:print(hello)\n"),
    (["rg", "-n", "hello"], b"", 0, b"a.txt:1:hello world\nd/b.py:1:print(hello)\n"),
    (["rg", "hello", "a.txt"], b"", 0, b"hello world\n"),
    (["rg", "-c", "hello"], b"", 0, b"a.txt:1\nd/b.py:1\n"),
    (["rg", "-l", "-t", "py", "hello"], b"", 0, b"d/b.py\n"),
    (["rg", "-l", "-T", "py", "hello"], b"", 0, b"a.txt\n"),
    (["rg", "--hidden", "-l", "hello"], b"", 0, b".hid\na.txt\nd/b.py\n"),
    (["rg", "-o", "-r", "[$0]", "l+"], b"", 0, b"a.txt:[ll]\na.txt:[l]\nd/b.py:[ll]\n"),
    (["rg", "-r", "<${1}>", "(o)"], b"", 0, b"a.txt:hell<o> w<o>rld\na.txt:f<o><o>\nd/b.py:print(hell<o>)\n"),
    (["rg", "-i", "HELLO"], b"Hello\n", 0, b"Hello\n"),
    (["rg", "-S", "hello"], b"Hello\n", 0, b"Hello\n"),
    (["rg", "-S", "Hello"], b"hello\n", 1, b""),
    (["rg", "zzz"], b"", 1, b""),
    (["rg", "--files"], b"", 0, b"a.txt\nbin\nd/b.py\n"),
    (["rg", "-g", "*.txt", "o"], b"", 0, b"a.txt:hello world\na.txt:foo\n"),
    (["rg", "-g", "!*.txt", "hello"], b"", 0, b"d/b.py:print(hello)\n"),
    (["rg", "-w", "foo", "nope"], b"", 2, b""),
    (["rg", "-F", "(x)"], b"a(x)b\n", 0, b"a(x)b\n"),
    (["rg", "-v", "o", "a.txt"], b"", 1, b""),
    (["rg", "-x", "foo", "a.txt"], b"", 0, b"foo\n"),
    (["rg", "-e", "foo", "-e", "world", "a.txt"], b"", 0, b"hello world\nfoo\n"),
    (["rg", "\\d+"], b"a1 b22\n", 0, b"a1 b22\n"),
    (["rg", "-q", "hello"], b"", 0, b""),
]


@pytest.mark.parametrize("argv,stdin,status,stdout", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_rg(argv: list[str], stdin: bytes, status: int, stdout: bytes) -> None:
    r = run_command(argv, stdin, files=FILES)
    assert (r.stdout, r.status) == (stdout, status), r.stderr
