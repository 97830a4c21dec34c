"""gawk's arrays of arrays, compared with the real gawk: stdout, status and the whole stderr.

The second half checks what gawk cannot show: subarrays are charged to the run's memory
and element limits, freed subarrays stop being counted, and gawk's for-in ordering of a
huge array stops at the deadline.
"""

from __future__ import annotations

import time

import pytest

from realtools import have, real_command
from sandbash.commands.awk.sorting import gawk_order
from sandbash.limits import LimitExceeded, Limits
from sandbash.testing import run_command

needs_gawk = pytest.mark.skipif(not have("gawk"), reason="gawk not installed")

SORTED = 'BEGIN { PROCINFO["sorted_in"] = "@ind_str_asc" } '

PROGRAMS = [
    # making, reading and counting subarrays
    'BEGIN { a[1][2]=3; a[1][5]=4; a[2]="x"; print isarray(a[1]), isarray(a[2]), length(a[1]), length(a) }',
    'BEGIN { a["x"]["y"]["z"]=1; print a["x"]["y"]["z"], length(a["x"]), isarray(a["x"]["y"]) }',
    'BEGIN { a[1][1][1][1][1] = "deep"; print a[1][1][1][1][1], length(a[1][1][1][1]) }',
    'BEGIN { SUBSEP=":"; a[1,2][3,4]=5; for (k in a) print k; for (k in a[1,2]) print k; print a[1,2][3,4] }',
    'BEGIN { i=1; j="b"; a[i][j]=7; a[i+1][j j]=8; print a[1]["b"], a[2]["bb"], length(a) }',
    SORTED + "{ n[$1][$2] += $3 } END { for (u in n) for (d in n[u]) print u, d, n[u][d] }",
    SORTED + 'BEGIN { a["p"]["q"]=1; a["p"]["r"]=2; a["s"]["t"]=3; for (k in a) { printf "%s:", k; '
    'for (j in a[k]) printf " %s=%s", j, a[k][j]; print "" } }',
    "BEGIN { a[1][1]=1; a[1][1]++; a[1][1]+=5; print a[1][1]++, a[1][1], --a[1][1], a[1][1] ^= 2 }",
    "BEGIN { a[1][2]=3; b = a[1][2] a[1][2]; print b, a[1][2] * 2, -a[1][2], !a[1][2] }",
    "BEGIN { a[1][1]=1; print length(a[1][1]), length(a[1]), typeof(a[1]), typeof(a[1][1]), typeof(a[2]) }",
    'BEGIN { a[1]["x"]; print typeof(a[1]["x"]), length(a[1]), typeof(a[1]["y"]) }',
    # `in` and for-in on subarrays, made on first use
    "BEGIN { a[1][2]=3; print ((2) in a[1]), ((3) in a[1]), (1 in a), ((1,2) in a) }",
    "BEGIN { print (2 in a[1]); print length(a), isarray(a[1]) }",
    "BEGIN { for (k in a[1]) print k; print length(a), isarray(a[1]) }",
    'BEGIN { if ((1 in a[2]) || ("x" in a[3])) print "no"; print length(a) }',
    # references before the subarray, deletion
    "BEGIN { x=a[1]; a[1][2]=3; print length(a[1]) }",
    'BEGIN { if (a[1] == "") ; a[1][2]=3; print length(a[1]) }',
    'BEGIN { print isarray(a[1]); print length(a), typeof(a[1]); a[1][1]=1; print "ok", isarray(a[1]) }',
    "BEGIN { a[1][2]=3; a[1][5]=4; delete a[1][2]; print length(a[1]); delete a[1]; print length(a), (1 in a) }",
    "BEGIN { delete a[1][2]; print length(a), isarray(a[1]) }",
    "BEGIN { x = a[1]; delete a[1][2]; print isarray(a[1]), length(a) }",
    "BEGIN { a[1][2] = 1; a[1][3]=1; for (k in a) for (j in a[k]) delete a[k][j]; print length(a), length(a[1]) }",
    'BEGIN { a[1][2] = 7; printf "%d %s %5.1f\\n", a[1][2], a[1][2], a[1][2] }',
    "function f(a) { return length(a) } BEGIN { x[1][1]=1; x[2]=1; print f(x), f(x[1]) }",
    "BEGIN { a[1][1]=5; while ((k in a[1]) == 0) k++; print k }",
    'BEGIN { "echo hi" | getline a["c"]["d"]; print a["c"]["d"] }',
    "BEGIN { a[1][2][3]=1; delete a[1][2][3]; print length(a[1][2]), length(a[1]); delete a[1][2]; "
    "print length(a[1]); delete a; print length(a) }",
    'BEGIN { a[1][2]=1; delete a[1]; a[1]="now scalar"; print a[1] }',
    "BEGIN { a[1][2]=1; delete a[1][2]; a[1][2][3]=4; print a[1][2][3] }",
    'BEGIN { a["k"][1]=1; delete(a); print length(a) }',
    # functions: subarrays by reference, elements by value
    'function f(arr) { arr["k"]=9 } BEGIN { f(b[1]); print b[1]["k"] }',
    "function f(arr) { arr[1][2]=5 } BEGIN { f(b); print b[1][2] }",
    "function f(x) { return isarray(x) } BEGIN { b[1][1]=1; print f(b[1]), f(b[2]), f(3) }",
    'function f(x, k) { for (k in x) print k, x[k] } BEGIN { b[1]["p"]=1; f(b[1]) }',
    'function f(x) { print "in" } BEGIN { b[1][1]=1; f(b[1]); print "out" }',
    "function f(x) { return x * 2 } BEGIN { b[1][1]=4; print f(b[1][1]), f(b[2]) }",
    "function depth(a, k, d, m) { m = 0; for (k in a) if (isarray(a[k])) { d = depth(a[k]); if (d > m) m = d }; "
    "return m + 1 } BEGIN { t[1][2][3]=1; t[2]=1; t[1][4]=1; print depth(t) }",
    'function fill(a, n) { if (n == 0) { a["leaf"]=1; return } fill(a[n], n - 1) } '
    'BEGIN { fill(t, 4); print t[4][3][2][1]["leaf"] }',
    "function count(a, k, n) { for (k in a) n += isarray(a[k]) ? count(a[k]) : 1; return n } "
    "BEGIN { x[1][1]=1; x[1][2]=1; x[2]=1; x[3][1][1]=1; print count(x) }",
    "function g(loc) { loc[1][2]=3; return length(loc[1]) } BEGIN { print g(), g() }",
    # built-ins that fill arrays, into subarrays
    'BEGIN { a[1][1]=1; n=split("x y z", a[1]); print n, a[1][3], length(a[1]) }',
    'BEGIN { n = split("a:b", a["s"], ":", seps["s"]); print n, a["s"][1], a["s"][2], seps["s"][1] }',
    'BEGIN { match("foo123", /([a-z]+)([0-9]+)/, m["r"]); print m["r"][1], m["r"][2] }',
    'BEGIN { a["v"][1]="c"; a["v"][2]="a"; a["v"][3]="b"; n=asort(a["v"]); print n, a["v"][1] a["v"][2] a["v"][3] }',
    'BEGIN { a["v"]["z"]=1; a["v"]["y"]=2; n=asorti(a["v"], out["o"]); print n, out["o"][1], out["o"][2] }',
    'BEGIN { n = patsplit("ab12cd3", p[0], /[0-9]+/); print n, p[0][1], p[0][2] }',
    'BEGIN { a[1][1] = "hello"; sub(/l+/, "L", a[1][1]); gsub(/o/, "0", a[1][1]); print a[1][1] }',
    "{ getline line[NR][1] } END { print line[1][1], line[3][1] }",
    # sorting arrays that hold subarrays: subarrays after the scalars (before, descending)
    *[
        f'BEGIN {{ a[5][1]=1; a[2]=5; a[3]="x"; a[0][2]=1; a[4]=1; PROCINFO["sorted_in"]="@{o}"; '
        'for (k in a) printf "%s ", k; print "" }'
        for o in (
            "val_num_asc",
            "val_num_desc",
            "val_str_asc",
            "val_str_desc",
            "val_type_asc",
            "val_type_desc",
            "ind_num_desc",
        )
    ],
    'BEGIN { a[5][1]=1; a[2]=5; a[3]="x"; a[0][2]=1; n=asort(a, b); for (i = 1; i <= n; i++) '
    'printf "%s ", isarray(b[i]) ? "A" length(b[i]) : b[i]; b[4][1]=7; print a[5][1], a[0][2]; b[4][1][2]=1 }',
    "BEGIN { a[5][1][3]=1; a[2]=5; n=asort(a, b); print b[2][1][3]; b[2][1][3][4]=1 }",
    "BEGIN { a[5][1]=1; a[2]=5; n=asort(a); print n, isarray(a[2]), a[2][1] }",
    "function c(i1, v1, i2, v2) { return i1 < i2 ? -1 : i1 > i2 } "
    'BEGIN { a[2][1]=1; a[1]=5; PROCINFO["sorted_in"]="c"; for (k in a) print k }',
    # errors: gawk's fatal messages and status 2
    "BEGIN { a[1]=2; a[1][2]=3 }",
    "BEGIN { a[1][2]=3; a[1]=2 }",
    "BEGIN { a[1][2]=3; print a[1] }",
    'BEGIN { print "before"; a[1][2][3]=3; a[1][2]=5 }',
    "BEGIN { a[1][2]=3; a[1][2][3]=5 }",
    'BEGIN { a[1][2]=3; x = a[1] "" }',
    'BEGIN { a[1] = x; a[1][2]=3; print "ok" }',
    "BEGIN { a[1]=5; print (2 in a[1]) }",
    "BEGIN { a[1]=5; for (k in a[1]) print k }",
    "BEGIN { a[1]=5; delete a[1][2] }",
    "BEGIN { a[1][1]=1; a[1]++ }",
    "BEGIN { a[1][1]=1; a[1]+=2 }",
    'BEGIN { a["x"]["y"]=1; a["x"]["y"]["z"]=1 }',
    "function f(arr) { print arr } BEGIN { b[1][1]=1; f(b[1]) }",
    "function f(arr) { arr[1]=5 } BEGIN { b[1][1]=1; f(b) }",
    "function f(arr) { return arr[1][2] } BEGIN { b[1]=3; f(b) }",
    'function f(arr) { arr[1] = 1 } BEGIN { f(b["k"]); f(b["k"]); b["k"][1][2] = 3 }',
    'BEGIN { a[1][1]=1; n = split("x", a) }',
    'BEGIN { a[1]=1; n = split("x", a[1]) }',
    "BEGIN { a[1][1]=1; print length(a[1]) + a[1] }",
    'BEGIN { a[1][1]=1; printf "%s\\n", a[1] }',
    'BEGIN { a[1][1]=1; sub(/x/, "y", a[1]) }',
    '{ a[$1][$2] = 1 } END { print a["p"] }',
    "BEGIN { x = 1; x[1][2] = 3 }",
    'BEGIN { a[1]=1; n = split("x", b, " ", a[1]) }',
    'BEGIN { a[1]=1; n = patsplit("x", a[1]) }',
    'BEGIN { a[1]=1; n = match("x", /x/, a[1]) }',
    "BEGIN { a[1]=1; n = asort(a[1]) }",
    "BEGIN { a[1]=1; b[1]=1; n = asort(b, a[1]) }",
    "BEGIN { a[1]=1; b[1]=1; n = asorti(b, a[1]) }",
    'function f(arr) { arr[1] = 1 } BEGIN { b["k"]=1; f(b["k"]) }',
    # a subarray given to a parameter used as a scalar: an error where the function first uses it
    'function f(x) { print "in"; print x } BEGIN { b[1][1]=1; f(b[1]) }',
    'function f(x) { print "in"; x++ } BEGIN { b[1][1]=1; f(b[1]) }',
    'function f(x) { print "in"; x += 2 } BEGIN { b[1][1]=1; f(b[1]) }',
    'function f(x) { print "in"; x = 5; print x } BEGIN { b[1][1]=1; f(b[1]) }',
    'function f(x) { print "in"; y = x = 5; print y } BEGIN { b[1][1]=1; f(b[1]) }',
    "function f(x) { print typeof(x), length(x); print x } BEGIN { b[1][1]=1; f(b[1]) }",
    "function f(x) { x = 5; print x } BEGIN { b[1]=1; f(b[1]); f(b[2]); print b[1], length(b) }",
    'function f(x) { if (0) print x; print "never used" } BEGIN { b[1][1]=1; f(b[1]) }',
    'function f(x) { print isarray(x), length(x); return x "" } BEGIN { b[1]="ab"; print f(b[1]); b[2][1]; f(b[2]) }',
    # gawk leaves a subarray made by an array argument unnamed: `(null)` in its messages
    'BEGIN { split("a", a["x"]); a["x"][1][2]=1 }',
    'function f(arr) { arr[1] = 1 } BEGIN { f(b["k"]); print b["k"] }',
    'function f(arr) { arr[2][1] = 1 } BEGIN { b["k"][0]=1; f(b["k"]); b["k"][2][1][2]=3 }',
    'function f(arr) { arr[1] = 1 } BEGIN { f(b["k"]); b["k"][1] = 3; b["k"][1][2]=3 }',
    "BEGIN { x[1][2] = 3; print x }",
]

INPUT = "ann mon 3\nbob tue 4\nann tue 5\nbob tue 1\n"


@needs_gawk
@pytest.mark.parametrize("program", PROGRAMS)
def test_arrays_of_arrays_match_gawk(program: str) -> None:
    stdin = INPUT.encode()
    exp_out, exp_err, exp_status = real_command(["gawk", program], stdin)
    got = run_command(["gawk", program], stdin=stdin)
    assert (got.stdout, got.status, got.stderr) == (exp_out, exp_status, exp_err)


def _awk(program: str, limits: Limits | None = None, stdin: bytes = b"") -> tuple[bytes, bytes, int]:
    got = run_command(["awk", program], stdin=stdin, limits=limits)
    return got.stdout, got.stderr, got.status


def _limit_hit(program: str, limits: Limits) -> str:
    with pytest.raises(LimitExceeded) as info:
        run_command(["awk", program], limits=limits)
    return info.value.limit


def test_subarrays_count_against_max_array_elements() -> None:
    # 400 subarrays of 100 elements: only 400 elements at the top level
    limits = Limits(max_array_elements=1000)  # awk allows 10x: 10,000 elements in all
    prog = "BEGIN { for (i = 0; i < 400; i++) for (j = 0; j < 100; j++) a[i][j] = 1 }"
    assert _limit_hit(prog, limits) == "max_array_elements"
    # under the bound it runs
    assert _awk(prog.replace("400", "40"), limits) == (b"", b"", 0)


def test_nested_subarrays_and_local_arrays_are_counted() -> None:
    limits = Limits(max_array_elements=1000)
    deep = (
        "BEGIN { for (i = 0; i < 300; i++) for (j = 0; j < 10; j++) for (k = 0; k < 10; k++) a[i][j][k] = 1 }"
    )
    assert _limit_hit(deep, limits) == "max_array_elements"
    local = (
        "function f(loc, i) { for (i = 0; i < 50000; i++) loc[i] = i; return length(loc) } "
        "BEGIN { print f() }"
    )
    assert _limit_hit(local, limits) == "max_array_elements"


def test_subarrays_charge_memory() -> None:
    limits = Limits(max_memory=8 << 20)
    prog = 'BEGIN { s = sprintf("%4000s", ""); for (i = 0; i < 100000; i++) a[i % 7][i] = s "" i }'
    assert _limit_hit(prog, limits) == "max_memory"


def test_freed_subarrays_are_not_counted() -> None:
    limits = Limits(max_array_elements=1000)  # 10,000 awk elements
    prog = (
        "BEGIN { for (r = 0; r < 50; r++) { for (j = 0; j < 1000; j++) a[r][j] = j; delete a[r] } "
        "print length(a) }"
    )
    assert _awk(prog, limits) == (b"0\n", b"", 0)


def test_deep_nesting_spells_the_path_only_in_a_message() -> None:
    # subarrays 300 deep, made through a recursive function
    prog = (
        "function down(a, n) { if (n == 0) { a[0] = 1; return 1 } return down(a[n], n - 1) } "
        "BEGIN { print down(t, 300), isarray(t[300][299]) }"
    )
    assert _awk(prog) == (b"1 1\n", b"", 0)
    # made by passing an element as an array argument: unnamed, as in gawk
    bad = prog.replace("isarray(t[300][299])", "t[300][299][298]")
    assert _awk(bad) == (
        b"",
        b"awk: cmd. line:1: fatal: attempt to use array `(null)' in a scalar context\n",
        2,
    )
    named = "BEGIN { t[1][2][3][4] = 1; x = t[1][2][3] }"
    assert (
        _awk(named)[1]
        == b'awk: cmd. line:1: fatal: attempt to use array `t["1"]["2"]["3"]\' in a scalar context\n'
    )


def test_for_in_order_of_a_huge_array_stops_at_the_deadline() -> None:
    limits = Limits(timeout=0.3, max_array_elements=10**6)
    prog = 'BEGIN { for (i = 0; i < 3000000; i++) a["k" i] = 1; for (k in a) n++; print n }'
    start = time.process_time()
    assert _limit_hit(prog, limits) == "timeout"
    assert time.process_time() - start < 60


def test_gawk_order_checks_the_deadline_per_batch() -> None:
    ticks: list[int] = []
    keys = [f"k{i}" for i in range(20000)] + [str(i) for i in range(3000)]
    gawk_order(keys, ticks.append)
    assert sum(ticks) >= 20000 and len(ticks) >= 5
    # 200,000 string keys through every growth of the table: chains append, the listing stays linear
    many = [f"x{i}" for i in range(200000)]
    start = time.process_time()
    assert sorted(gawk_order(many)) == sorted(many)
    assert time.process_time() - start < 30
