"""Attacks of round 12 (sec-attack12): what one C call does past the deadline, and what is left.

- A run that ended past its deadline returned a result: the clock is read every 64 commands, so a
  command that held on in C (one SQL function call, say) and a few quick commands after it made a
  late run with status 0. `api._run` now ends such a run as the timeout it is.
- sqlite3's progress handler runs between opcodes, and a built-in function is one opcode:
  `printf('%.*c', 2000000000, 'x')` looped 2^31 times (3-9 s past a 3 s deadline, then NULL and
  status 0); instr()/replace() compare the pattern at every byte (n*m) and trim() each character
  against the whole list (n*m): seconds to minutes within the hardened 1 MB string limit, hours
  within the default 10 MB. runtimes/sqlite_guards.py answers large calls in linear time and
  names max_string_length where sandbash's own limit (not SQLite's) would turn output into NULL.
- dc read all of standard input before it ran anything: `coproc dc` never answered (the run hung
  to its deadline) and a large input was held whole (max_memory at 64 MB of comments). It now
  reads a line at a time, as bc does; a string left open over lines is bounded by max_string_length.
- hexdump -e: a one-byte conversion's 256 answers were made ahead (a table), and output was batched
  by count (256 pieces): `-e '1/1 "%1000000c"'` held 256 fields of 1 MB each, 881 MB resident under
  the hardened 64 MB budget; `N/1 "%1000000c"` one block's N fields. A wide field is written alone.
Rows run in forked children (secharness).
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from typing import Any

import pytest
from secharness import Outcome, batch, param, verify

from sandbash import Bash, ExecutionLimitError
from sandbash.commands.runtimes import sqlite_guards
from sandbash.custom import command
from sandbash.interp import evaluator as evaluator_module


@pytest.fixture(params=[False, True], ids=["compiled", "walked"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator_module, "TREE_WALKER", request.param)
    return bool(request.param)


# ------------------------------------------------------------ a late run ends as a timeout


@command("stall")
def _stall(args: list[str], ctx: Any) -> int:
    """Holds the thread without a deadline check, as a long C call does."""
    end = time.monotonic() + float(args[0])
    while time.monotonic() < end:
        pass
    return 0


LATE = [
    ("stall 1.3; echo after=$?", "after=0\n"),
    ("stall 1.3", ""),
    ("x=$(stall 1.3); echo in-sub", "in-sub\n"),
    ("f() { stall 1.3; }; f; echo fn", "fn\n"),
    ("for i in 1; do stall 1.3; done; echo loop", "loop\n"),
    ("{ stall 1.3; } 2>/dev/null; echo group", "group\n"),
]


@pytest.mark.parametrize(("script", "partial"), LATE)
def test_a_run_that_ends_past_its_deadline_is_a_timeout(script: str, partial: str, walker: bool) -> None:
    with pytest.raises(ExecutionLimitError) as info:
        Bash(commands=[_stall]).exec(script, limits={"timeout": 1.0})
    assert info.value.limit == "timeout"
    assert info.value.result.stdout == partial  # what ran is kept, as on any limit
    assert info.value.result.exit_code == 124


def test_a_session_call_past_its_deadline_is_a_timeout() -> None:
    sess = Bash(commands=[_stall]).session()
    with pytest.raises(ExecutionLimitError) as info:
        sess.exec("stall 1.3; echo late", limits={"timeout": 1.0})
    assert info.value.limit == "timeout"
    assert sess.exec("echo next", limits={"timeout": 5}).stdout == "next\n"  # the session goes on


def test_a_run_on_time_keeps_its_result() -> None:
    r = Bash(commands=[_stall]).exec("stall 0.05; echo ok", limits={"timeout": 5})
    assert (r.exit_code, r.stdout) == (0, "ok\n")


# ------------------------------------------------------------ sqlite3: one function call, bounded


def _sql(query: str) -> str:
    return f'sqlite3 :memory: "{query}"; echo status=$?'


A_MB = "printf('%.*c', 1000000, 'a')"
HALF_B = "printf('%.*c', 500000, 'a') || 'b'"
SQLITE_ROWS = [
    # the %c loop: 2^31 turns (NULL, as the real shell answers past SQLITE_MAX_LENGTH), fast now
    param(
        "sqlite-printf-char-2e9",
        _sql("select printf('%.*c', 2000000000, 'x') is null"),
        timeout=2.0,
        expect=("result",),
        contains="1\nstatus=0",
    ),
    param(
        "sqlite-format-char-negative",
        _sql("select format('%.*c', -2000000000, 'x') is null"),
        timeout=2.0,
        expect=("result",),
        contains="1\nstatus=0",
    ),
    param(
        "sqlite-printf-many-chars",
        _sql("select printf('" + "%.*c" * 40 + "', " + ", ".join(["20000000, 'x'"] * 40) + ") is null"),
        timeout=2.0,
        expect=("max_string_length",),
    ),
    param(
        "sqlite-printf-char-width",
        _sql("select printf('%*.*c', 2000000000, 2000000000, 'x') is null"),
        timeout=2.0,
        expect=("result",),
        contains="1\nstatus=0",
    ),
    # past sandbash's string limit (not SQLite's): the limit is named, not a silent NULL
    param(
        "sqlite-printf-char-over-limit",
        _sql("select printf('%.*c', 2000000, 'x')"),
        timeout=3.0,
        expect=("max_string_length",),
    ),
    param(
        "sqlite-printf-strings-over-limit",
        _sql(f"select printf('%s%s', {A_MB}, {HALF_B})"),
        timeout=3.0,
        expect=("max_string_length",),
    ),
    param(
        "sqlite-printf-empty-is-null",
        _sql("select quote(printf('')), quote(printf('%y')), printf('%.3c|%s', 'z', 1)"),
        timeout=3.0,
        expect=("result",),
        contains="NULL|NULL|zzz|1\nstatus=0",
    ),
    # SQLITE_TOOBIG under sandbash's length limit (the real shell's is 1e9): named, not "(18)"
    param(
        "sqlite-toobig-names-the-limit",
        _sql("select length(hex(zeroblob(600000)))"),
        timeout=3.0,
        expect=("max_string_length",),
    ),
    param(
        "sqlite-zeroblob-toobig",
        _sql("select length(zeroblob(2000000))"),
        timeout=3.0,
        expect=("max_string_length",),
    ),
    # n*m searches within the hardened 1 MB string limit
    param(
        "sqlite-instr-quadratic",
        _sql(f"select instr({A_MB}, {HALF_B})"),
        timeout=3.0,
        expect=("result",),
        contains="0\nstatus=0",
    ),
    param(
        "sqlite-replace-quadratic",
        _sql(f"select length(replace({A_MB}, {HALF_B}, 'x'))"),
        timeout=3.0,
        expect=("result",),
        contains="1000000\nstatus=0",
    ),
    param(
        "sqlite-trim-quadratic",
        _sql("select length(trim(printf('%.*c', 500000, 'a') || 'c', printf('%.*c', 100000, 'b') || 'a'))"),
        timeout=3.0,
        expect=("result",),
        contains="1\nstatus=0",
    ),
    param(
        "sqlite-rtrim-multibyte-quadratic",
        _sql("select length(rtrim('c' || printf('%.*c', 300000, 'é'), printf('%.*c', 100000, 'b') || 'é'))"),
        timeout=3.0,
        expect=("result",),
        contains="1\nstatus=0",
    ),
    param(
        "sqlite-replace-growing-over-limit",
        _sql(f"select length(replace({A_MB} || 'b', {HALF_B}, {A_MB}))"),
        timeout=3.0,
        expect=("max_string_length",),
    ),
    # the default profile's 10 MB strings: hours of memcmp before
    param(
        "sqlite-instr-quadratic-default",
        _sql("select instr(printf('%.*c', 10000000, 'a'), printf('%.*c', 5000000, 'a') || 'b')"),
        timeout=5.0,
        expect=("result",),
        contains="0\nstatus=0",
        profile="default",
        overrides={"max_memory": 256 << 20},
    ),
]


@pytest.fixture(scope="module")
def sqlite_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_sqlite_function_calls_end_at_the_deadline")


@pytest.mark.parametrize("case", SQLITE_ROWS)
def test_sqlite_function_calls_end_at_the_deadline(
    case: dict[str, Any], sqlite_outcomes: dict[str, Outcome]
) -> None:
    verify(case, sqlite_outcomes[case["id"]])


# the values the guards must treat as SQLite's built-ins do: every storage class, multibyte text,
# blobs that are no UTF-8, a NUL inside a character list, numbers SQLite turns into text
VALUES: list[object] = [
    None,
    "",
    "a",
    "abc",
    "aXbXc",
    "XX",
    "X",
    "héllo wörld",
    "ö",
    "ll",
    "ab" * 10,
    12,
    1.5,
    1e20,
    -0.0,
    b"",
    b"ab\x00c",
    b"\xc3",
    b"\xa9",
    "é",
    120,
    b"X",
    "abcabcabc",
    "bca",
    " x ",
    "  ",
]
FORMATS = [
    "%c",
    "%.3c",
    "%5.3c",
    "%-5.3c|",
    "%.*c",
    "%*.*c",
    "%.0c",
    "%lc%.2lc",
    "%.3llc",
    "%%%.2c",
    "%n%.2c",
    "%d%.3c",
    "%.3c%s",
    "%y%.3c",
    "%!.3c",
    "%,.3c",
    "%0.3c",
    "%.*c%.*c",
    "%lllc",
]
FORMAT_ARGS: list[tuple[object, ...]] = [
    ("x",),
    (3, "y"),
    (-3, "é"),
    (2, 4, "z"),
    ("2", "w"),
    (2.7, "q"),
    (None, "n"),
    (4294967298, "x"),
    (-2147483648, "x"),
    (b"3", "b"),
    ("ab",),
    (5,),
    (3, "x", 2, "y"),
]


def _calls() -> list[tuple[str, tuple[object, ...]]]:
    calls: list[tuple[str, tuple[object, ...]]] = []
    for a, b in itertools.product(VALUES, repeat=2):
        calls += [("instr", (a, b)), ("trim", (a, b)), ("ltrim", (a, b)), ("rtrim", (a, b))]
        calls += [("replace", (a, b, r)) for r in ("", "YY", 7, None, b"\xff")]
    calls += [("printf", (f, *args)) for f in FORMATS for args in FORMAT_ARGS]
    return calls


def test_guards_on_their_linear_path_answer_as_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call forced onto the guards' own path gives what SQLite's built-in gives."""
    monkeypatch.setattr(sqlite_guards, "C_WORK", -1)
    aux = sqlite_guards.Aux(sqlite3, 1_000_000)
    kept: list[BaseException] = []
    guards = sqlite_guards.make_guards(aux, kept.append, lambda: None)
    ref = sqlite3.connect(":memory:")
    wrong = []
    for name, args in _calls():
        try:
            want: object = ref.execute(f"select {name}({','.join('?' * len(args))})", args).fetchone()[0]
        except sqlite3.OperationalError as e:
            assert "decode" in str(e)  # SQLite's text that is no UTF-8: Python cannot read it back
            continue
        got = guards[name](*args)
        if got != want and not (isinstance(want, str) and got == want.encode()):
            wrong.append((name, args, want, got))
    aux.close()
    assert not wrong and not kept, wrong[:10]


@pytest.mark.parametrize(
    ("fmt", "args", "turns"),
    [
        ("%.*c", (2000000000, "x"), 1999999999),
        ("%.*c", (-2147483647, "x"), 2147483646),  # a negative precision counts as its size
        ("%.*c", (-2147483648, "x"), 0),  # INT_MIN: no precision
        ("%.*c", (4294967297, "x"), 0),  # an int: 32 bits of the int64
        ("%.*c", ("3000", "x"), 2999),  # text read as SQLite reads a number
        ("%.*c", (3000.9, "x"), 2999),
        ("%s%.5c%lllc%.9c", ("a", "b", "c", "d"), 4),  # an unknown conversion ends the output
        ("%*.*c%.*c", (1, 10, "x", 20, "y"), 28),
        ("%.2147483648c", ("x",), 0),  # digits keep 31 bits
        ("%%%.4c%n%.3c", ("a", "b"), 5),
    ],
)
def test_char_repeats_reads_the_format_as_sqlite(fmt: str, args: tuple[object, ...], turns: int) -> None:
    aux = sqlite_guards.Aux(sqlite3, 1000)
    try:
        assert sqlite_guards.char_repeats(fmt, args, aux) == turns
    finally:
        aux.close()


# ------------------------------------------------------------ dc: standard input a line at a time

COPROC_DC = (
    'coproc dc; echo "2 3 *p" >&${COPROC[1]}; read -t 2 -u ${COPROC[0]} x; echo "got=$x"; '
    'echo "4 5 *p" >&${COPROC[1]}; read -t 2 -u ${COPROC[0]} y; echo "got=$y"; exec {COPROC[1]}>&-; wait'
)
DC_ROWS = [
    param(
        "dc-coproc-answers-each-line", COPROC_DC, timeout=4.0, expect=("result",), contains="got=6\ngot=20\n"
    ),
    param(
        "dc-large-input-is-not-held",
        "yes \"$(printf '#%.0s' {1..999})\" | head -n 60000 | { cat; echo 7p; } | dc",
        timeout=8.0,
        expect=("result",),
        contains="7\n",
        overrides={"max_memory": 48 << 20},
    ),
    # (the string limit is reached in well under a second alone; the deadline is left far off so a
    # loaded host still meets the limit first)
    param("dc-open-string-endless", "{ echo '['; yes; } | dc", timeout=15.0, expect=("max_string_length",)),
    param("dc-endless-line", "yes | tr -d '\\n' | dc", timeout=15.0, expect=("max_string_length",)),
]


@pytest.fixture(scope="module")
def dc_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_dc_reads_a_line_at_a_time")


@pytest.mark.parametrize("case", DC_ROWS)
def test_dc_reads_a_line_at_a_time(case: dict[str, Any], dc_outcomes: dict[str, Outcome]) -> None:
    verify(case, dc_outcomes[case["id"]])


# ------------------------------------------------------------ hexdump -e: wide fields are not held

HEXDUMP_ROWS = [
    param(
        "hexdump-wide-char-table",
        "yes | head -c 200 | hexdump -v -e '1/1 \"%1000000c\"' | wc -c",
        timeout=4.0,
        expect=("result",),
        contains="200000000\n",
    ),
    param(
        "hexdump-wide-fields-one-block",
        "yes | head -c 300 | hexdump -v -e '300/1 \"%1000000c\"' | wc -c",
        timeout=4.0,
        expect=("result",),
        contains="300000000\n",
    ),
    param(
        "hexdump-wide-precision-and-width",
        "yes | head -c 120 | hexdump -v -e '1/1 \"%1000000c\"' -e '2/1 \"%900000d\"' | wc -c",
        timeout=4.0,
        expect=("result",),
        contains="168000000\n",
    ),
    param(
        "hexdump-wide-endless",
        "yes | hexdump -v -e '1/1 \"%1000000c\"' | wc -c",
        timeout=2.0,
        expect=("timeout",),
    ),
]


@pytest.fixture(scope="module")
def hexdump_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_hexdump_wide_fields_hold_little")


@pytest.mark.parametrize("case", HEXDUMP_ROWS)
def test_hexdump_wide_fields_hold_little(case: dict[str, Any], hexdump_outcomes: dict[str, Outcome]) -> None:
    verify(case, hexdump_outcomes[case["id"]])
