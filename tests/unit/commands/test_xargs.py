"""xargs against GNU findutils xargs: input formats, batching, -I, limits, statuses, messages."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.commands.context import Ctx
from sandbash.commands.record import CommandRecord, Effects
from unit.commands.viashell import run_via_shell

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
cases = [
    (b"a b\nc\n", []),
    (b"", []),
    (b"", ["-r", "echo", "x"]),
    (b'a "b c" d\\ e\n', ["-n1"]),
    (b'a "b c\n', []),
    (b"a 'b\n", []),
    (b"a b c d e\n", ["-n2"]),
    (b"a b\nc d\ne\n", ["-L1"]),
    (b"a b \nc d\ne\n", ["-L1"]),
    (b"a\nb\n", ["-I{}", "echo", "x{}y{}"]),
    (b"  a b\nc\n", ["-I", "%", "echo", "[%]"]),
    (b"a,b,c\n", ["-d,", "-n1", "echo"]),
    (b"a\0b c\0", ["-0", "-n1", "echo"]),
    (b"a b\n", ["-t", "echo"]),
    (b"a\n", ["-p", "echo"]),
    (b"a\n", ["nope"]),
    (b"a b END c\n", ["-E", "END"]),
    (b"a b c\n", ["-s", "10", "echo"]),
    (b"aaaaaaaaaaaa\n", ["-s", "10", "echo"]),
    (b"a b c\n", ["-n", "2", "-x", "-s", "8", "echo"]),
    (b"", ["-P", "x", "echo"]),
    (b"", ["-n", "0", "echo"]),
    (b"", ["-Q"]),
    (b"a\n", ["-a", "/nonexist", "echo"]),
    (b"x\n", ["-i", "echo", "{}{}"]),
    (b"x\n", ["-iZ", "echo", "Z"]),
    (b"a\\\nb\n", ["-n1"]),
    (b"a'b'c\n", []),
    (b"a b c d\n", ["-L", "1", "-n", "2"]),
    (b"a\n\n\nb\n", ["-L1", "echo"]),
    (b"a\n", ["-l", "echo"]),
    (b"a b\n", ["-d\\n", "-t", "echo"]),
    (b"a\n", ["-t", "-I{}", "echo", "x {}"]),
    (b"", ["-t", "echo"]),
    (b"a b c", ["-d", " ", "-n1"]),
    (b"aXb\n", ["-d\\x58", "-n1"]),
    (b"a\nb\n", ["-d\\012", "-n1"]),
    (b"x\n", ["-d", "ab", "-n1"]),
    (b"a b\n", ["-I{}", "-n1", "echo", "{}"]),
    (b"1 2 3 4\n", ["-L2", "-n", "1"]),
    (b"a\nb\nc\n", ["-L2"]),
    (b"a b c d e f\n", ["-n", "2", "-P", "1", "echo"]),
    (b"a\n", ["-s", "5", "echo"]),
    (b"a\n", ["-s", "0", "echo"]),
    (b"1 2 3\n", ["printf", "%s-"]),
    (b"1\n2\n", ["-n1", "seq"]),
    (b"a\n", ["printenv", "NOPE"]),
    (b"x y\n", ["-n1", "-r", "echo", "pre"]),
]


@pytest.mark.skipif(not have("xargs"), reason="xargs not installed")
@pytest.mark.parametrize("stdin, args", cases, ids=[" ".join(a) or "-" for _, a in cases])
def test_matches_gnu(stdin: bytes, args: list[str]) -> None:
    ours = run_via_shell(["xargs", *args], stdin=stdin, env=ENV)
    out, err, status = real_command(["xargs", *args], stdin, env=ENV)
    assert (ours.stdout, ours.stderr.decode(), ours.status) == (out, err.decode(), status)


def _exit_with(status: int):  # type: ignore[no-untyped-def]
    def cmd(ctx: Ctx) -> int:
        ctx.out(" ".join(ctx.args) + "\n")
        return status

    return cmd


@pytest.mark.parametrize(
    "status, xargs_status, message",
    [
        (0, 0, ""),
        (3, 123, ""),
        (255, 124, "xargs: xt: exited with status 255; aborting\n"),
        (137, 125, "xargs: xt: terminated by signal 9\n"),
    ],
)
def test_exit_statuses(status: int, xargs_status: int, message: str) -> None:
    xt = CommandRecord(("xt",), _exit_with(status), Effects.NONE)
    r = run_via_shell(["xargs", "-n1", "xt"], stdin=b"a b\n", env=ENV, commands=[xt])
    assert (r.status, r.stderr.decode()) == (xargs_status, message)
    # 255 and signals stop at the first command; other failures go on
    assert r.stdout == (b"a\n" if status in (255, 137) else b"a\nb\n")


def test_large_input_is_batched() -> None:
    data = b"".join(b"%d\n" % i for i in range(20000))
    r = run_via_shell(["xargs", "-n", "1000", "printenv", "-0"], stdin=data, env={"A": "1"})
    # each batch of 1000 names prints nothing and fails (missing variables): 20 runs, status 123
    assert r.status == 123
    data = b"".join(b"%d\n" % i for i in range(40000))
    r = run_via_shell(["xargs"], stdin=data, env=ENV)
    # the default 128 KiB command-line limit splits the same way as GNU's
    assert r.stdout.count(b"\n") == 2 and r.stdout.split() == data.split()
    if have("xargs"):
        assert r.stdout == real_command(["xargs"], data, env=ENV)[0]


def test_arg_file_and_replace() -> None:
    r = run_via_shell(
        ["xargs", "-a", "list", "-I", "@", "echo", "<@>"], files={"list": "one\ntwo words\n"}, env=ENV
    )
    assert r.stdout == b"<one>\n<two words>\n"
