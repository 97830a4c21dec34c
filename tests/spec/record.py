#!/usr/bin/env python3
"""Fill in the expected stdout and status of spec cases by running real bash.

    python tests/spec/record.py                 # record every case file
    python tests/spec/record.py arith quoting   # only these files (stems or paths)
    python tests/spec/record.py -k glob-        # only cases whose id contains "glob-"
    python tests/spec/record.py --check         # report differences, write nothing
    python tests/spec/record.py --diff          # show where sandbash differs from the
                                                # recorded values (xfail cases marked)

Each script runs twice; a case whose output differs between the runs is
reported as nondeterministic and left unrecorded. Real bash runs inside the oracle sandbox
(tests/oracle.py: bubblewrap, only the case's directory writable); without one, record.py stops
with the reason unless SANDBASH_ORACLE_UNSANDBOXED=1 is set.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from spec_loader import CASES_DIR, Case, CaseFile, Outcome, parse, render, run_real_bash, run_sandbash

import oracle


def _select(names: list[str]) -> list[Path]:
    if not names:
        return sorted(CASES_DIR.glob("*.txt"))
    paths = []
    for n in names:
        p = Path(n)
        paths.append(p if p.suffix == ".txt" and p.exists() else CASES_DIR / f"{Path(n).stem}.txt")
    return paths


def _record(cf: CaseFile, wanted: list[Case], check: bool) -> int:
    def twice(c: Case) -> tuple[Outcome, Outcome]:
        return run_real_bash(c), run_real_bash(c)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(twice, wanted))
    changed = 0
    for c, (a, b) in zip(wanted, results, strict=True):
        if (a.stdout, a.status) != (b.stdout, b.status):
            print(f"NONDETERMINISTIC {c.id}: {a.stdout!r}/{a.status} vs {b.stdout!r}/{b.status}")
            continue
        if (c.stdout, c.status) != (a.stdout, a.status):
            changed += 1
            old = "unrecorded" if c.stdout is None else f"{c.stdout!r} {c.status}"
            print(f"{'DIFFERS' if check else 'recorded'} {c.id}: {old} -> {a.stdout!r} {a.status}")
            c.stdout, c.status = a.stdout, a.status
    if changed and not check:
        cf.path.write_text(render(cf), encoding="utf-8")
    return changed


def _diff(cases: list[Case]) -> int:
    bad = 0
    for c in cases:
        try:
            got = run_sandbash(c)
        except Exception as e:  # report, keep going
            got = Outcome("", f"{type(e).__name__}: {e}", -1)
        if (got.stdout, got.status) == (c.stdout, c.status):
            if c.xfail:
                print(f"XPASS {c.id} (marked xfail: {c.xfail})")
            continue
        bad += 1
        mark = f" [xfail: {c.xfail}]" if c.xfail else ""
        print(
            f"FAIL {c.id}{mark}\n  script: {c.script!r}\n  bash:     {c.stdout!r} {c.status}"
            f"\n  sandbash: {got.stdout!r} {got.status}  stderr={got.stderr[-300:]!r}"
        )
    return bad


def main() -> int:
    try:
        return _main()
    except oracle.OracleUnavailable as e:  # never record from bash run unsandboxed on the host
        print(f"record.py: {e}", file=sys.stderr)
        return 2


def _main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="case file stems or paths (default: all)")
    ap.add_argument("-k", dest="pattern", default="", help="only cases whose id contains this")
    ap.add_argument("--check", action="store_true", help="report differences, do not write")
    ap.add_argument("--diff", action="store_true", help="compare sandbash with the recorded values")
    args = ap.parse_args()
    total = changed = 0
    for path in _select(args.files):
        cf = parse(path)
        wanted = [c for c in cf.cases if args.pattern in c.id]
        total += len(wanted)
        if args.diff:
            changed += _diff(wanted)
        else:
            changed += _record(cf, wanted, args.check)
    verb = "differ from sandbash" if args.diff else ("differ" if args.check else "changed")
    print(f"{total} cases, {changed} {verb}")
    return 1 if (args.check or args.diff) and changed else 0


if __name__ == "__main__":
    sys.exit(main())
