"""The one backslash-escape decoder (syntax/escapes.py) and its modes: $'...', echo -e,
printf %b and printf's format, awk strings, stat --printf.

Each generated string is decoded by sandbash through the real front end and, when the
real tool is installed, compared with it byte for byte.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile

import pytest

import oracle
from sandbash import Bash
from sandbash.syntax.escapes import decode_escapes, decode_raw

# escape bodies that differ between the modes
PIECES = [
    "\\n",
    "\\e",
    "\\E",
    "\\q",
    "\\'",
    '\\"',
    "\\?",
    "\\/",
    "\\c",
    "\\cA",
    "\\0",
    "\\01",
    "\\101",
    "\\0101",
    "\\477",
    "\\8",
    "\\x41",
    "\\x4",
    "\\x",
    "\\xg",
    "\\u00e9",
    "\\u",
    "\\U0001F600",
    "\\\\",
    "\\a",
    "\\t",
]
STRINGS = ["a" + p + "z" for p in PIECES] + ["".join(p) for p in itertools.combinations(PIECES[:10], 2)]


def _bash(script: str) -> bytes | None:
    if not os.path.exists("/bin/bash"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        r = oracle.run(
            ["bash", "-c", script],
            executable="/bin/bash",
            capture_output=True,
            cwd=tmp,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
    return r.stdout + b"|" + r.stderr + f"|{r.returncode}".encode()


def _mine(script: str) -> bytes:
    r = Bash().exec(script)
    return (
        r.stdout.encode("utf-8", "surrogateescape")
        + b"|"
        + r.stderr.encode("utf-8", "surrogateescape")
        + f"|{r.exit_code}".encode()
    )


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize("text", STRINGS)
@pytest.mark.parametrize("front", ["printf {s}", "printf %b {s}", "echo -e {s}", "echo $'{raw}'"])
def test_shell_modes_match_bash(front: str, text: str) -> None:
    if front.startswith("echo $'") and "'" in text.replace("\\'", ""):
        pytest.skip("not a single $'...' word")
    script = front.format(s=_sq(text), raw=text) + "; echo"
    real = _bash(script)
    if real is None:
        pytest.skip("no bash")
    assert _mine(script) == real


@pytest.mark.parametrize("text", [s for s in STRINGS if '"' not in s])  # \\" is in test_decode_raw
def test_awk_strings_match_gawk(text: str) -> None:
    if "gawk" not in os.path.realpath(shutil.which("awk") or ""):
        pytest.skip("gawk is not the awk here")
    program = 'BEGIN { printf "%s", "' + text + '" }'
    script = "awk " + _sq(program) + " 2>&1; echo"
    real = _bash(script)
    assert real is not None
    assert _mine(script) == real


@pytest.mark.parametrize("text", STRINGS + ["a\\", "a\\\\\\", "\\"])
def test_stat_printf_matches_gnu(text: str) -> None:
    script = "stat --printf " + _sq(text + "|%n") + " / /; echo"
    real = _bash(script)
    if real is None or shutil.which("stat") is None:
        pytest.skip("no stat")
    assert _mine(script) == real


SED = [
    "printf 'a\\377b\\n' | sed 's/\\xff/X/' | od -c",
    "printf 'a\\377bA\\n' | sed 's/\\d255/X/;s/\\o101/Y/' | od -c",
    "printf 'aAb\\001\\n' | sed 's/\\cA/C/;s/\\x41/H/'",
    "printf 'abab\\n' | sed -E 's/(ab)\\1/[\\1]/'",
    "printf 'a*b\\n' | sed 's/a\\x2a/S/'",
    "printf 'a\\tb\\n' | sed 's/\\t/T/;s/\\q/Q/'",
    "printf 'x\\034y\\n' | sed 's/\\c\\\\/Z/' | od -c",
]


BC = [
    'print "1\\e2\\x3\\z4\\\\5\\n"',
    'print "a\\qb\\tc\\n"',
    'print "x\\ay\\bz\\fw\\rv\\n"',
    'print "end\\"',
    'print "\\c\\d\\n"',
]


TR = [
    "printf 'a b\\n' | tr '\\400' X",
    "printf 'a\\\\b\\n' | tr 'a\\\\' xy",
    "printf 'abc\\n' | tr 'a\\q' xy",
    "printf 'abc\\n' | tr 'a\\' xy",
    "printf 'a-c\\n' | tr 'a\\-c' xyz",
    "printf 'a\\n' | tr '\\141' z",
    "printf 'a\\n' | tr '\\x61' z",
    "printf '[a]\\n' | tr '\\[a\\]' xyz",
    "printf 'a\\tb\\n' | tr '\\t' _",
    "printf 'aaa\\n' | tr -s '\\141'",
    "printf 'ab\\n' | tr '\\0141' x",
    "printf 'a\\n' | tr 'a' '\\777'",
    "printf '\\303\\251\\n' | tr '\\303' X | od -c",
]


@pytest.mark.parametrize("script", TR)
def test_tr_sets_match_gnu_tr(script: str) -> None:
    real = _bash(script)
    if real is None or shutil.which("tr") is None:
        pytest.skip("no tr")
    assert _mine(script) == real


@pytest.mark.parametrize("program", BC)
def test_bc_print_escapes_match_gnu_bc(program: str) -> None:
    script = "printf '%s\\n' " + _sq(program) + " | bc | od -c"
    real = _bash(script)
    if real is None or shutil.which("bc") is None:
        pytest.skip("no bc")
    assert _mine(script) == real


@pytest.mark.parametrize("script", SED)
def test_sed_regex_escapes_match_gnu_sed(script: str) -> None:
    real = _bash(script)
    if real is None or shutil.which("sed") is None:
        pytest.skip("no sed")
    assert _mine(script) == real


@pytest.mark.parametrize(
    ("mode", "text", "out", "unknown"),
    [
        ("awk", "a\\qb\\\nc\\101\\/\\x", "aqbcA/x", ["q", "/", "x"]),
        ("stat", "\\q\\E\\e\\377", "qE\x1b\udcff", ["q", "E"]),
        ("format", "\\101\\0101\\c\\'\\x", "A\b1\\c'\\x", ["c", "x"]),
        ("ansi", "x\\x41\\cA\\0y", "xA\x01", []),
        ("echo", "\\0101\\101\\cz", "A\\101", ["1"]),
        ("sed", "\\d065\\o102\\x43\\1\\cd\\.\\q", "ABC\\1\x04\\.\\q", ["1", ".", "q"]),
    ],
)
def test_decode_raw(mode: str, text: str, out: str, unknown: list[str]) -> None:
    seen: list[str] = []
    assert decode_raw(text, mode, seen) == out
    assert seen == unknown


def test_decode_escapes_joins_utf8_bytes() -> None:
    assert decode_escapes("\\303\\251\\c", "printf_b") == ("\u00e9", True)
