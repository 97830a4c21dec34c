#!/usr/bin/env python3
"""The cost of one statement in a loop, sandbash against bash, in CPU microseconds.

    python benchmarks/stmt_table.py                     # every statement, 3 rounds, 300,000 iterations
    python benchmarks/stmt_table.py --only case,dparen  # rows whose name contains one of the words
    python benchmarks/stmt_table.py --runs 5 --n 100000

Each row is a statement models write (arithmetic with an expansion inside `(( ))`, `${#x}`, slices,
pattern removal and substitution, `[[ == ]]` and `[[ =~ ]]`, `case` on globs, `+=`, array stores,
`printf -v`, `let`, test) run N times as the body of `for ((i=0; i<N; i++)); do STMT; done`. The same
loop with `:` as its body is the baseline: a row's figure is (its loop's CPU - the baseline's) / N,
so it is what the statement costs over `:`. The first row, `for((;;)) step`, is the baseline itself
less a run with N=0 (start-up), per iteration. Every run is a fresh process measured from outside
(bench.measure: CPU time of the process tree); a row's output after the loop (the variables it set)
must be the same in both shells, else the row is marked and not timed. Medians of `--runs` rounds,
alternating which shell goes first. Not a pass/fail test: a table for finding the dear statements.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile

from bench import HERE, measure, precompile

# (name, setup, statement, what to print after the loop, iterations (0: --n))
Row = tuple[str, str, str, str, int]

ROWS: list[Row] = [
    ("dparen.plain", "n=0", "(( n += i ))", "$n", 0),
    ("dparen.len", "len=0 t=file1.part.one", "(( len += ${#t} ))", "$len", 0),
    ("dparen.mod", "a=0", "(( a = (a + i*3) % 999983 ))", "$a", 0),
    ("dparen.test", "c=0", "(( i % 3 == 0 )) && c=1", "$c", 0),
    ("dparen.array", "declare -a h", "(( h[i%10] += 1 ))", "${h[*]}", 0),
    ("dparen.element", "declare -a h", "(( h[i%10] = i ))", "${h[*]}", 0),
    ("dollar.assign", "x=0", "x=$(( i * 3 + 1 ))", "$x", 0),
    ("dollar.word", "x=", "x=file$(( i % 7 )).txt", "$x", 0),
    ("let.expr", "n=0", 'let "n += i"', "$n", 0),
    ("let.incr", "n=0", "let n++", "$n", 0),
    ("param.len", "s=file1.part.one.tar.gz", "n=${#s}", "$n", 0),
    ("param.slice", "s=file1.part.one.tar.gz", "c=${s:i%10:1}", "$c", 0),
    ("param.subst", "s=file1.part.one.tar.gz", "t=${s//e/E}", "$t", 0),
    ("param.prefix", "s=file1.part.one.tar.gz", "t=${s#*.}", "$t", 0),
    ("param.suffix", "s=file1.part.one.tar.gz", "t=${s%%.*}", "$t", 0),
    ("assign.concat", "s=", 's="file$i.part"', "$s", 0),
    ("dbracket.glob", "s=file1.part.tar.gz c=0", "[[ $s == *.gz ]] && c=1", "$c", 0),
    (
        "dbracket.regex",
        "s=file1.part.tar.gz c=0",
        "[[ $s =~ ^file[0-9]+ ]] && c=1",
        "$c ${BASH_REMATCH[0]}",
        0,
    ),
    ("dbracket.num", "c=0", "[[ $i -lt 5 ]] && c=1", "$c", 0),
    ("case.glob", "head=file17 c=0", "case $head in file*7) c=1 ;; *) c=2 ;; esac", "$c", 0),
    ("case.suffix", "s=file1.part.tar.gz c=0", "case $s in *.txt) c=1 ;; *.gz) c=2 ;; esac", "$c", 0),
    ("case.words", "e=gz c=0", "case $e in txt|md) c=1 ;; tar|gz) c=2 ;; *) c=3 ;; esac", "$c", 0),
    ("case.bracket", "s=file1 c=0", "case $s in [a-e]*) c=1 ;; [f-z]*) c=2 ;; esac", "$c", 0),
    ("case.var", "s=file1.gz p='*.gz' c=0", "case $s in $p) c=1 ;; esac", "$c", 0),
    ("append.string", "x= y=ab", "x+=$y", "${#x}", 20000),
    ("array.store", "x=v", "a[i]=$x", "${#a[@]}", 0),
    ("printf.v", "x=", "printf -v x '%05d' \"$i\"", "$x", 0),
    ("test.bracket", "c=0", '[ "$i" -gt 5 ] && c=1', "$c", 0),
    ("test.string", "s=abc c=0", 'test -n "$s" && c=1', "$c", 0),
]


def script(setup: str, stmt: str, show: str, n: int) -> str:
    return f'export LC_ALL=C\n{setup}\nfor ((i=0; i<{n}; i++)); do {stmt}; done\necho "{show}"\n'


def timings(cmds: dict[str, list[str]], text: str, runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median CPU seconds of `runs` rounds of `text` in each shell, alternating which goes first."""
    got: dict[str, list[float]] = {s: [] for s in cmds}
    for r in range(runs):
        for system in list(cmds) if r % 2 == 0 else list(cmds)[::-1]:
            got[system].append(float(measure(cmds[system], text.encode(), tempfile.gettempdir(), env)["cpu"]))  # type: ignore[arg-type]
    return {s: statistics.median(v) for s, v in got.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated words: rows whose name contains one")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n", type=int, default=300000, help="iterations of each loop")
    args = ap.parse_args()
    words = [w for w in args.only.split(",") if w]
    rows = [r for r in ROWS if not words or any(w in r[0] for w in words)]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "PYTHONPATH": str(HERE.parent / "src")}
    cmds = {
        "bash": ["/bin/bash", "-s"],
        "sandbash": [sys.executable, "-m", "sandbash", "-s", "--limits", "generous"],
    }
    precompile()
    base: dict[int, dict[str, float]] = {}
    for n in sorted({r[4] or args.n for r in rows} | {0, args.n}):
        base[n] = timings(cmds, script("", ":", "", n), args.runs, env)
    print(f"{'statement':16} {'bash us':>8} {'ours us':>8} {'ratio':>6}  text")
    step = {s: (base[args.n][s] - base[0][s]) / args.n * 1e6 for s in cmds}
    print(
        f"{'for((;;)) step':16} {step['bash']:8.2f} {step['sandbash']:8.2f} {step['sandbash'] / step['bash']:6.2f}"
    )
    for name, setup, stmt, show, n in rows:
        n = n or args.n
        text = script(setup, stmt, show, n)
        outs = {s: measure(cmds[s], text.encode(), tempfile.gettempdir(), env)["stdout"] for s in cmds}
        if outs["bash"] != outs["sandbash"]:
            print(f"{name:16} {'differs':>8}: bash {outs['bash']!r}, ours {outs['sandbash']!r}  {stmt}")
            continue
        t = timings(cmds, text, args.runs, env)
        us = {s: (t[s] - base[n][s]) / n * 1e6 for s in cmds}
        ratio = us["sandbash"] / us["bash"] if us["bash"] > 0 else float("inf")
        print(f"{name:16} {us['bash']:8.2f} {us['sandbash']:8.2f} {ratio:6.2f}  {stmt}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
