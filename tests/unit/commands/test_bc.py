"""bc and dc against GNU bc/dc: arithmetic and scale rules, bases, functions, errors, -l."""

from __future__ import annotations

import re

import pytest

from realtools import have, real_command
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
BC_PROGRAMS = [
    "0.00;1.50;-.5;0.000;-0;1/3\nscale=5;1/3;2^-1;scale=3;2^-2;-2^2\n",
    "1.5*1.25;scale=1;1.5*1.25;7%3;scale=2;7%3;5.5%2\nsqrt(2);scale=10;sqrt(2);length(123.45);scale(1.230);length(0.001)\n",
    "a=3<4;a;!0;1&&0;2||0;x++;x;--x;last;.\n",
    "obase=16;255;-255;10.5;obase=2;5.25;obase=100;12345.6789\nobase=10;ibase=16;FF;A;ibase=A;2^100\n",
    '1/0\nsqrt(-1)\n"hello\\n"\nprint "a", 1, "\\n"\n1+\n2\nfoo(1)\n',
    "define f(x) { return x*2; }\nf(3)\nf(1,2)\na[1]=5; a[1]\nb[-1]\nscale=-1\nibase=1\nibase\nobase=1\n",
    "1 /* c */ + 1 # hi\nif (1) 5 else 6\nfor (i=0;i<3;i++) i\nwhile (j<2) { j; j+=1 }\n",
    'define void g() { print "g\\n" }\ng()\ndefine h(x) { auto y; y = x; x = 9; }\nh(1)\n',
    "12345678901234567890123456789012345678901234567890123456789012345678901234567890\n",
    "ibase=17;ibase\nobase=9999999999\nibase=2;12;ibase=16;1.8;ibase=2;A\n",
    "2^1.5\n2^-0\nscale=2;(-7)%3\n-7/2\nscale=0;-7%3\nsqrt(0.0004)\nscale=3;sqrt(2.0000)\nx[3]\n",
    "define f(a[]) { return a[0]; }; b[0]=4; f(b[])\ndefine f(x) { return; }; f(1)\n",
    "define void f() { return 5; }\n",
    'print 1.50, "\\q\\t|\\\\\\n"\na=5;a+=2;a\na^=2;a\nb=2;b^=-1;b\nscale=4;1.23456789\n1.000*1.5\n0.1*0.1\nlast=5;last\n',
    "99999999999999999999999999999999999999999999999999999999999999999999999999999999999/1\n1 == 1 && 2 > 1\nlength(0)\nlength(100)\nscale(100)\nlength(-12.30)\nlimits\n",
    "obase=16;-0.5;obase=8;1.1;obase=16;255.255\ni=0; while (1) { if (i++ > 2) break; i }\nfor (;;) { break }; 7\n",
    "continue\nbreak\nif (1) 1; else 2\n",
    'print "a"; print "b\\n"\n"x" 1\n1 2\n.5\n5.\n.\n-.\nabc=3;abc\n_a=1\na_1=4;a_1\nA1\n1e5\n',
    "x=3;x--;x\n++y\ny++ + y++\n(a=3)\na = b = 4; a\n!1 + 1\n-3^2\n2^3^2\n10%3%2\n2^-2\nscale=20;3^-3\n",
    "scale=3; -1.5 % 1\nscale=0; 5.5 * 2\nscale=1;5/3*3\n0^0\n0^-1\nobase=17;100\nobase=1000;123456789\n",
    "1;2;quit;3\n",
    "halt\n",
    "1+1",
    "1\n2\n3+3",
    "define f(x) {\nreturn x\n}",
    "define f(x) { x = 2; }; x=1; f(5); x\nf()\ndefine f(x,y) { return x+y; }; f(1)\nscale=2; 1/3; scale=5; last\nobase=2; 0.1\n",
    "define fact(n) {\n  if (n <= 1) return 1\n  return n * fact(n-1)\n}\nfact(30)\nfact(100)\n",
    "define fib(n) { auto a, b, t; a = 0; b = 1; while (n-- > 0) { t = a + b; a = b; b = t; }; return a }\nfib(100)\n",
    "x = 0\nfor (i = 1; i <= 10; i++) { if (i % 2) continue; x += i }\nx\n",
    "2^1000\nscale=100; 1/7\n",
    "if (0) 1\nelse 2\n",
    "define f(x) {\nif (x) return 1\nelse return 2\n}\nf(0)\n",
    "x=5\nwhile (x) x-=1; x\n",
    "define f(){ auto a\na=2\nreturn a}\nf()\n",
    "ibase=16; 1F.8; ibase=2; 101.1\n",
    "obase=3; 10; 1/3; scale=5; 1/3\n",
]
BC_MATH_PROGRAMS = [
    "e(0); s(0); scale(e(0)); l(1); c(0); a(0); a(1); j(0,0); j(1,2); e(1); e(-1); e(10); l(10); l(0); l(-1); s(100); c(1); a(-5); a(0.5); scale=5; e(2.5); l(0.5); s(3.14159); scale=0; e(1); s(1); 4*a(1)\n",
    "scale=50; 4*a(1); e(1); l(2); s(1); c(1); j(2, 3.5)\n",
    "x=s(1); scale(x); scale=3; e(1.00000)\n",
    "scale=30; e(-10); l(1000000); s(-2.5); c(100.25); a(100); a(-0.001); j(5, 10); j(-3, 2); j(0, 30)\n",
    "scale=10; e(50); l(0.000001); a(1/3)\n",
    "define s(x) { return 42 }; s(1)\n",
    "scale=0; a(100); e(-1); l(2)\n",
]
DC_PROGRAMS = [
    "1 2 + p\n",
    "5 3 - p\n",
    "2 3 * p\n",
    "10 3 / p\n",
    "2k 10 3 / p\n",
    "10 3 % p\n",
    "2 10 ^ p\n",
    "2 v p\n",
    "4k 2 v p\n",
    "1 2 3 f\n",
    "c f\n",
    "1 d p p\n",
    "1 2 r f\n",
    "3 z p\n",
    "1.50 Z p\n",
    "1.50 X p\n",
    "_5 p\n",
    "_5 n\n",
    "[hello] p\n",
    "[hi]n\n",
    "5 sa la p\n",
    "1 Sa 2 Sa La p La p\n",
    "[2 3 + p] x\n",
    "1 2 <a\n",
    "[[yes]p]sa 2 1 <a\n",
    "[[yes]p]sa 1 2 <a\n",
    "[[yes]p]sa 1 2 >a\n",
    "[[yes]p]sa 1 1 =a\n",
    "[[yes]p]sa 1 2 !=a\n",
    "16o 255 p\n",
    "16i FF p\n",
    "p\n",
    "1 0 / p\n",
    "_1 v p\n",
    "1 2 3 4 5 4Q p\n",
    "10 K p\n",
    "I p O p\n",
    "[a] [b] f\n",
    "65 P\n",
    "[abc] Z p\n",
    "3 [x] * p\n",
    "1 2 3 fc f\n",
    "0 5 :a 0 ;a p\n",
    "2 5 :a 2 ;a p 3 ;a p 5 ;a p\n",
    "1 2 3 N p\n",
    "2 3 | p\n",
    "2 3 4 | p\n",
    "2 _3 ~ f\n",
    "# comment\n1 p\n",
    "3 2 ^ 2 / p\n",
    "2k 1 3 / 3 * p\n",
    "5 _2 ^ p\n",
    "2k 5 _2 ^ p\n",
    "la p\n",
    "La p\n",
    "2 100 ^ p 2 300 ^ p\n",
    "16o 3.5 p\n",
    "2o 5.25 p\n",
    "100o 12345 p\n",
    "5 x p\n",
    "[1 p]sa [la x]sb lb x\n",
    "Z\n",
    "1 2 3 R f\n",
    "1 2 3 3 R f\n",
    "1 2 3 4 _3 R f\n",
    "10 0 % p\n",
    "1 X\n",
    "_ p\n",
    "1_2 p\n",
    ".5 p\n",
    "5. p\n",
    "1 2 3 + + p\n",
    "1 sa 2 Sa la p Lb p\n",
    "[[[q]x]x 5 p]x 6 p\n",
    "[[[2Q]x]x 5 p]x 6 p\n",
    "[[[[q]x]x]x 5 p]x 6 p\n",
    "[2Q]x 7 p\n",
    "[[3Q]x 1p]x 8p\n",
    "[[1Q]x 1p]x 8p\n",
    "1 2 d f\n",
    "k\n",
    "_2 k K p\n",
    "0 i\n",
    "37 i\n",
    "1 o\n",
    "z z z f\n",
    "1 e p\n",
    "q\n",
    "1 p q 2 p\n",
    "2.5 2 ^ p\n",
    "2 .5 ^ p\n",
    "10 3 ~ f\n",
    "[abc]p [abc\n",
    "_3 2 % p _3 _2 / p 3 _2 ^ p\n",
    "[la 1 + d sa 10 >b]sb 0 sa lb x la p\n",
    "1 2 + [sum: ]n p\n",
    "3 [p 1 - d 0 <x]sx lx x\n",
    "1.23456 3k 1 * p 1.23456 1 / p\n",
    "99999999999999999999999999999999999999999999999999999999999999999999999999999 p\n",
    "2 1000 ^ p\n",
    "A p\n",
    "A0 p\n",
    "16i A0 p\n",
    "1 a p 97 a p [xyz] a p\n",
]


def _norm(err: bytes) -> bytes:
    # GNU reports byte-code addresses (`adr=N`) that a tree interpreter does not have
    return re.sub(rb"adr=\d+", b"adr=N", err)


def compare(argv: list[str], program: str) -> None:
    ours = run_command(argv, stdin=program.encode(), env=ENV)
    out, err, status = real_command(argv, program.encode(), env=ENV)
    assert (ours.stdout.decode(), _norm(ours.stderr).decode(), ours.status) == (
        out.decode(),
        _norm(err).decode(),
        status,
    )


@pytest.mark.skipif(not have("bc"), reason="bc not installed")
@pytest.mark.parametrize("program", BC_PROGRAMS)
def test_bc(program: str) -> None:
    compare(["bc"], program)


@pytest.mark.skipif(not have("bc"), reason="bc not installed")
@pytest.mark.parametrize("program", BC_MATH_PROGRAMS)
def test_bc_mathlib(program: str) -> None:
    compare(["bc", "-l"], program)


@pytest.mark.skipif(not have("dc"), reason="dc not installed")
@pytest.mark.parametrize("program", DC_PROGRAMS)
def test_dc(program: str) -> None:
    compare(["dc"], program)


def test_bc_files_and_line_length() -> None:
    r = run_command(["bc", "a.bc", "b.bc"], stdin=b"3\n", files={"a.bc": "1\n", "b.bc": "2\nquit\n"})
    assert (r.stdout, r.status) == (b"1\n2\n", 0)
    r = run_command(["bc", "nope.bc"])
    assert (r.stderr, r.status) == (b"File nope.bc is unavailable.\n", 1)
    r = run_command(["bc"], stdin=b"2^50\n", env={"BC_LINE_LENGTH": "10"})
    assert r.stdout == b"11258999\\\n06842624\n"
    r = run_command(["bc"], stdin=b"2^300\n", env={"BC_LINE_LENGTH": "0"})
    assert b"\\" not in r.stdout


def test_bc_read_takes_the_next_input_line() -> None:
    r = run_command(["bc", "p.bc"], stdin=b"41\n", files={"p.bc": "x = read(); x + 1\n"})
    assert r.stdout == b"42\n"


def test_dc_expressions_and_files() -> None:
    r = run_command(["dc", "-e", "2 3 + p", "-f", "f.dc", "g.dc"], files={"f.dc": "7 p", "g.dc": "8 p"})
    assert (r.stdout, r.status) == (b"5\n7\n8\n", 0)
    assert run_command(["dc", "-e", "q"]).status == 0
    assert run_command(["dc"], stdin=b"q\n").status == 1


@pytest.mark.parametrize(
    ("stdin", "out"),
    [
        # `?` reads the next line of the same input, as GNU dc's getc on its stdin does
        (b"1 2 +p\n? p\n7 8 *p\n", b"3\n56\n56\n"),
        (b"1p\n?\n3p\n", b"1\n3\n"),
        # strings open over lines, nested, with multibyte text; a `[` in a comment opens nothing
        (
            b"[1\n2\n3]p [a[b\nc]d]p\n[\xc3\xa9\n\xc3\xbc]p\n# [ c\n4p\n",
            "1\n2\n3\na[b\nc]d\né\nü\n4\n".encode(),
        ),
        (b"[la1+dsa5>b]sb\n0sa lbx\nlap\n", b"5\n"),
        (b"[[1p]x\n\n]x 2p\n", b"1\n2\n"),
        (b"[q]sq 6p\nlqx\n7p\n", b"6\n"),  # q leaves the macro and the input
        (b"5 s\n\nl\np\n", b"5\n"),  # a register named by the newline
        (b"[abc", b""),  # a string never closed is dropped
        (b"3p[x]\n", b"3\n"),
    ],
)
def test_dc_reads_standard_input_a_line_at_a_time(stdin: bytes, out: bytes) -> None:
    assert run_command(["dc"], stdin=stdin).stdout == out
    assert run_command(["dc", "-"], stdin=stdin).stdout == out


def test_dc_open_string_over_endless_lines_is_the_string_limit() -> None:
    with pytest.raises(LimitExceeded) as info:
        run_command(["dc"], stdin=b"[" + b"y\n" * 60000, limits=Limits(max_string_length=100000))
    assert info.value.limit == "max_string_length"
    with pytest.raises(LimitExceeded) as info:
        run_command(["dc"], stdin=b"1" * 200000, limits=Limits(max_string_length=100000))
    assert info.value.limit == "max_string_length"


def test_runaway_programs_stop_at_the_budget() -> None:
    with pytest.raises(LimitExceeded):
        run_command(["bc"], stdin=b"while (1) x += 1\n", limits=Limits(timeout=0.5))
    with pytest.raises(LimitExceeded):
        run_command(["bc"], stdin=b"10^1000000000\n")
    with pytest.raises(LimitExceeded):
        run_command(["dc"], stdin=b"[lax]sa lax\n", limits=Limits(timeout=0.5))
