"""awk: limits, gawk extensions without an oracle here (--csv), the command
line, and awk inside the shell (pipes, system(), getline from commands)."""

from __future__ import annotations

import time

import pytest

import oracle
from realtools import have
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command

needs_gawk = pytest.mark.skipif(not have("gawk"), reason="gawk not installed")


def awk(
    *args: str,
    stdin: str = "",
    files: dict[str, str] | None = None,
    limits: Limits | None = None,
    name: str = "awk",
) -> tuple[str, str, int]:
    r = run_command([name, *args], stdin=stdin.encode(), files=files, limits=limits)
    return r.stdout.decode("utf-8", "surrogateescape"), r.stderr.decode("utf-8", "surrogateescape"), r.status


# ---------------------------------------------------------------- bounds


@pytest.mark.parametrize(
    "prog,limit",
    [
        ("BEGIN { while (1) x++ }", "timeout"),
        ("BEGIN { for (;;) ; }", "timeout"),
        ("BEGIN { do ; while (1) }", "timeout"),
        ('BEGIN { s = "x"; while (1) s = s s }', "max_string_length"),
        ('function f(s) { return f(s s) } BEGIN { f("x") }', "max_string_length"),
        ("BEGIN { while (1) a[i++] }", "max_array_elements"),
        ("BEGIN { NF = 1e9 }", "max_array_elements"),
        ("BEGIN { $(1e8) = 1 }", "max_array_elements"),
        ('BEGIN { while (1) print "some text" | "cat" }', "max_output_size"),
    ],
)
def test_runaway_programs_hit_a_limit(prog: str, limit: str) -> None:
    with pytest.raises(LimitExceeded) as info:
        awk(prog, limits=Limits(timeout=1.0 if limit == "timeout" else 20.0, max_array_elements=1000))
    assert info.value.limit == limit


def test_unbounded_recursion_is_a_clean_fatal_error() -> None:
    _, err, status = awk("function f(n) { return f(n + 1) } BEGIN { f(1) }")
    assert status == 2
    assert "fatal:" in err and "recursion too deep" in err


def test_deep_but_finite_recursion_works() -> None:
    out, _, status = awk("function f(n) { return n ? 1 + f(n - 1) : 0 } BEGIN { print f(300) }")
    assert (out, status) == ("300\n", 0)


@pytest.mark.parametrize(
    "prog",
    [
        'BEGIN { printf "%*d", 1e12, 1 }',
        'BEGIN { printf "%499999999d", 1 }',
        'BEGIN { x = sprintf("%499999999d", 1) }',
        'BEGIN { printf "%.499999999f", 1 }',
        'BEGIN { printf "%-499999999c", "x" }',
        'BEGIN { CONVFMT = "%499999999f"; x = 0.5; y = x "" }',
        'BEGIN { OFMT = "%499999999f"; print 0.5 }',
    ],
)
def test_huge_printf_width_hits_the_string_limit_before_building(prog: str) -> None:
    started = time.monotonic()
    with pytest.raises(LimitExceeded) as info:
        awk(prog, limits=Limits(max_string_length=1 << 20))
    assert info.value.limit == "max_string_length"
    assert time.monotonic() - started < 0.5  # refused before 500 MB is built


def test_wide_printf_fields_under_the_limit_still_work() -> None:
    out, _, status = awk('BEGIN { printf "%5000d|%-*s|%.9999s\\n", 1, 4097, "a", "abc" }')
    assert (out, status) == (" " * 4999 + "1|a" + " " * 4096 + "|abc\n", 0)


def test_too_deep_program_is_an_error_not_a_crash() -> None:
    prog = "BEGIN { x = 1" + " + 1" * 5000 + "; print x }"
    _, err, status = awk(prog)
    assert status == 2 and "too deeply nested" in err


# ---------------------------------------------------------------- gawk extensions checked by hand


def test_csv_mode_splits_quoted_fields_and_records() -> None:
    data = 'name,note\n"Smith, J","said ""hi"""\nx,"multi\nline"\n,\n'
    out, _, status = awk("--csv", '{ print NF ": " $1 " | " $2 }', stdin=data)
    assert status == 0
    assert out == '2: name | note\n2: Smith, J | said "hi"\n2: x | multi\nline\n2:  | \n'


def test_version_and_help() -> None:
    out, _, status = awk("--version")
    assert status == 0 and out.startswith("GNU Awk 5.2.1")
    out, _, status = awk("--help")
    assert status == 0 and out.startswith("Usage: awk")


def test_usage_error_without_program() -> None:
    out, err, status = awk()
    assert (out, status) == ("", 1)
    assert err.startswith("Usage: awk [POSIX or GNU style options]")


def test_invocation_name_prefixes_messages() -> None:
    for name in ("awk", "gawk", "mawk", "nawk"):
        _, err, status = awk("BEGIN { x = }", name=name)
        assert status == 1 and err.startswith(f"{name}: cmd. line:1: BEGIN {{ x = }}\n")


def test_program_file_errors_name_the_file() -> None:
    _, err, status = awk("-f", "p.awk", files={"p.awk": "BEGIN {\n  y = (\n}\n"})
    assert status == 1
    assert err == "awk: p.awk:3:   y = (\nawk: p.awk:3:        ^ unexpected newline or end of string\n"


def test_runtime_error_names_file_and_record() -> None:
    _, err, status = awk("{ print 1 / $1 }", "data", files={"data": "1\n0\n"})
    assert status == 2
    assert err == "awk: cmd. line:1: (FILENAME=data FNR=2) fatal: division by zero attempted\n"


def test_invalid_utf8_passes_through() -> None:
    r = run_command(["awk", '{ print length($0), $0; printf "\\351|%c\\n", 233 }'], stdin=b"a\xffb\n")
    assert r.stdout == b"3 a\xffb\n\xe9|\xc3\xa9\n"


def test_write_then_read_files_in_the_sandbox() -> None:
    r = run_command(["awk", '{ print $2 > ($1 ".txt") }'], stdin=b"a 1\nb 2\na 3\n")
    assert r.status == 0
    view = r.vfs.view("/home/user")
    assert view.read_bytes("a.txt") == b"1\n3\n" and view.read_bytes("b.txt") == b"2\n"


def test_sorted_in_with_user_function() -> None:
    prog = (
        "function byval(i1, v1, i2, v2) { return v2 - v1 } "
        'BEGIN { a["x"] = 1; a["y"] = 3; a["z"] = 2; PROCINFO["sorted_in"] = "byval"; '
        'for (k in a) printf "%s ", k; print "" }'
    )
    assert awk(prog)[0] == "y z x \n"


# ---------------------------------------------------------------- awk in the shell


def _run_case() -> object:
    try:
        from sandbash.testing import run_case
    except ImportError:
        return None
    return run_case


SHELL_CASES = [
    "printf 'b\\na\\nc\\n' | awk '{print | \"sort\"}'",
    'printf \'b\\na\\n\' | awk \'BEGIN{print "header"} {print | "sort"} END{print "footer"}\'',
    'printf \'b\\na\\n\' | awk \'{print | "sort"} END{close("sort"); print "footer"}\'',
    'awk \'BEGIN { "echo hi there" | getline x; print x; print close("echo hi there") }\'',
    'awk \'BEGIN { while (("printf \\"a\\\\nb\\\\n\\"" | getline line) > 0) n++; print n }\'',
    'awk \'BEGIN { print system("exit 7"); print system("echo from system") }\'',
    'awk \'BEGIN { printf "before "; system("echo middle"); print "after" }\'',
    'awk \'BEGIN { cmd = "sort -n"; print 3 | cmd; print 1 | cmd; print 2 | cmd; print "closed", close(cmd) }\'',
    'awk \'BEGIN { "exit 3" | getline; print close("exit 3") }\'',
    "echo 'a b' | awk '{ \"echo \" $2 | getline v; print v }'",
    'awk \'BEGIN { print "data" |& "cat"; close("cat", "to"); "cat" |& getline x; print "got", x }\'',
    "printf '1\\n2\\n3\\n' | awk 'NR==2 { exit 3 } { print }'; echo \"status $?\"",
    "printf '%s\\n' a b c d e | awk '{ print }' | { read x; echo \"$x\"; }",
    "X=42 awk 'BEGIN { print ENVIRON[\"X\"] }'",
    "awk -v n=3 'BEGIN { for (i = 0; i < n; i++) print i }' | awk '{ s += $1 } END { print s }'",
]


@needs_gawk
@pytest.mark.parametrize("script", SHELL_CASES)
def test_awk_in_the_shell_matches_bash_and_gawk(script: str, tmp_path: object) -> None:
    run_case = _run_case()
    if run_case is None:
        pytest.skip("no shell yet")
    got = run_case(script, str(tmp_path), {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"})  # type: ignore[operator]
    real = oracle.run(
        ["bash", "-c", script.replace("awk ", "gawk ")],
        capture_output=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"},
    )
    assert (got[0], got[1]) == (real.stdout, real.returncode)
