"""GNU bash's own regression suite, run through /bin/bash and through sandbash.

    BASH_SUITE_REPO=<bash git dir or checkout> python tests/conformance/bash_suite.py run [--areas a,b]
    python tests/conformance/bash_suite.py show AREA      # the diff of one area (after a run)

The suite lives in bash's public source tree (`tests/*.tests`, driven by `tests/run-*`). Nothing of it is
stored in this repository (it is GPL; sandbash is MIT): it is read from a snapshot at run time. Each
`run-AREA` driver names the script(s) it runs as `${THIS_SH} ./SCRIPT`; both shells run that script in
the same absolute directory (a fresh copy of the snapshot's `tests/` for each), with the same
environment and no standard input, stdout and stderr merged as the drivers merge them.

The oracle is the local `/bin/bash`, not the snapshot's `.right` files (the snapshot may be a newer bash).
A *check* is one line of bash's output that bash prints the same way on two runs (lines with PIDs, times
or random numbers are not comparable), plus the exit status of each script. A check passes when
sandbash prints that line in the same place (lines matched in order, difflib) — so one extra or missing
line costs one check, not the rest of the file.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/, for oracle when run as a script

import oracle  # noqa: E402

WORKER = HERE / "bash_suite_worker.py"
BASH = "/bin/bash"
# bytes of each shell's output compared (the suite's scripts print far less; more means a runaway)
MAX_OUTPUT = 4 << 20

# Areas whose scripts need what an in-process sandbox does not offer, with the reason (they are listed in
# the report as skipped, never dropped silently).
SKIP: dict[str, str] = {
    "all": "the driver of the whole suite, not a test",
    "minimal": "a driver for --enable-minimal-config builds, not a test",
    "jobs": "job control of real processes (fg/bg/suspend, process groups, a controlling terminal)",
    "complete": "programmable completion against readline's interactive state",
    "histexpand": "history expansion of an interactive shell",
    "history": "an interactive shell's history list and HISTFILE on the host",
    "input-test": "reads the script from a terminal-like stdin byte by byte",
    "intl": "needs host locales (de_DE, ja_JP, UTF-8 multibyte collation) the machine does not have",
    "invocation": "starts bash with host options (--rcfile, --login, -i) and reads host startup files",
    "execscript": "executes host programs and binary files, checks execve errors of the host kernel",
    "rsh": "restricted shell mode (bash -r) is out of scope for a sandbox with a policy",
    "dbg-support": "the bash debugger interface (extdebug with a debugger script on the host)",
    "dbg-support2": "the bash debugger interface (extdebug with a debugger script on the host)",
    "exportfunc": "imports functions from the host environment of a child bash process",
}

_DRIVER = re.compile(r"\$\{THIS_SH\}\s+(<\s*)?\./(\S+)")


@dataclass
class Script:
    area: str
    name: str  # the script's file name in tests/
    stdin_script: bool = False  # `${THIS_SH} < ./FILE`


@dataclass
class Outcome:
    area: str
    script: str
    checks: int = 0
    passed: int = 0
    identical: bool = False
    bash_status: int | None = None
    sandbash_status: int | None = None
    unstable: int = 0
    error: str = ""
    seconds: float = 0.0
    diff: list[str] = field(default_factory=list)


def extract_tests(repo: Path, dest: Path) -> Path:
    """The snapshot's tests/ directory, copied to `dest` (a git dir is read with `git archive`)."""
    if (repo / "tests" / "run-all").exists():
        shutil.copytree(repo / "tests", dest / "tests", symlinks=True)
        return dest / "tests"
    dest.mkdir(parents=True, exist_ok=True)
    tar = subprocess.run(
        ["git", f"--git-dir={repo}", "archive", "HEAD", "tests"], check=True, capture_output=True
    ).stdout
    subprocess.run(
        ["tar", "-x", "-C", str(dest)], input=tar, check=True
    )  # not an oracle: git archive's output
    return dest / "tests"


def discover(tests: Path) -> tuple[list[Script], dict[str, str]]:
    scripts: list[Script] = []
    skipped: dict[str, str] = {}
    for driver in sorted(tests.glob("run-*")):
        area = driver.name[4:]
        if area in SKIP:
            skipped[area] = SKIP[area]
            continue
        text = driver.read_text(errors="replace")
        named = re.search(r"^TEST_NAME='([^']*)'", text, re.M)  # run-set-x: ./${TEST_NAME}.tests
        if named:
            text = text.replace("${TEST_NAME}", named.group(1))
        found = _DRIVER.findall(text)
        if not found:
            skipped[area] = "the driver runs no script through ${THIS_SH}"
            continue
        for redirect, name in found:
            scripts.append(Script(area, name, stdin_script=bool(redirect)))
    return scripts, skipped


def environment(workdir: Path) -> dict[str, str]:
    home = workdir.parent / "home"
    return {
        "PATH": ".:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": "/tmp",
        "BASH_TSTOUT": str(workdir.parent / "bashtst-out"),
        "THIS_SH": BASH,
        "LANG": "C.UTF-8",
        "LC_ALL": "",
        "TERM": "dumb",
        "USER": "user",
        "LOGNAME": "user",
        "SHELL": BASH,
    }


def run_bash(script: Script, workdir: Path, timeout: float) -> tuple[bytes, int | None]:
    env = environment(workdir)
    # `${THIS_SH} < ./FILE` reads the script on stdin; otherwise stdin is empty
    source = str(workdir / script.name) if script.stdin_script else os.devnull
    argv = [BASH] if script.stdin_script else [BASH, "./" + script.name]
    # output goes to a file and is read back capped: a runaway script must not fill the harness's memory
    with tempfile.TemporaryFile() as out, open(source, "rb") as stdin:
        try:
            # in the oracle sandbox (tests/oracle.py): only the script's tree (workdir's parent,
            # which holds its home and BASH_TSTOUT) is writable
            proc = oracle.run(
                argv,
                cwd=workdir,
                writable=[str(workdir.parent)],
                root_caps=False,  # _as_user: bash runs as UID, without root's capabilities
                env=env,
                stdin=stdin,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                preexec_fn=_as_user,
            )
            status: int | None = proc.returncode
        except subprocess.TimeoutExpired:
            status = None
        out.seek(0)
        data = out.read(MAX_OUTPUT)
    return (data if status is not None else data + b"\n[bash timed out]\n"), status


def _cap_memory() -> None:
    """In the sandbash child: an address-space cap, so a memory bug ends that child, not the machine."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run_sandbash(script: Script, workdir: Path, timeout: float, python: str) -> tuple[bytes, int | None, str]:
    request = {
        "workdir": str(workdir),
        "script": script.name,
        "stdin_script": script.stdin_script,
        "env": environment(workdir),
        "timeout": timeout,
        "max_output": MAX_OUTPUT,
    }
    try:
        proc = subprocess.run(
            [python, str(WORKER)],
            input=json.dumps(request).encode(),
            capture_output=True,
            timeout=timeout + 30,
            preexec_fn=_cap_memory,
        )
    except subprocess.TimeoutExpired:
        return b"[sandbash did not end]\n", None, "hang"
    if proc.returncode != 0 or not proc.stdout:
        return b"", None, "worker failed: " + proc.stderr.decode(errors="replace")[-2000:]
    answer = json.loads(proc.stdout)
    return answer["output"].encode("utf-8", "surrogateescape"), answer["status"], answer.get("error", "")


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines()


def _matched(a: list[str], b: list[str]) -> set[int]:
    """Indexes of `a` that difflib matches, in order, with lines of `b`."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hit: set[int] = set()
    for block in sm.get_matching_blocks():
        hit.update(range(block.a, block.a + block.size))
    return hit


# The suite's helper programs (bash builds them from support/*.c); the same small scripts serve both
# shells, written from their documented behaviour: recho shows each argument, control characters as ^X.
HELPERS = {
    "recho": r"""#!/bin/bash
LC_ALL=C
i=1
for a in "$@"; do
  s=
  for ((k = 0; k < ${#a}; k++)); do
    c=${a:k:1}
    printf -v o '%d' "'$c"
    if ((o >= 0 && o < 32)); then
      printf -v oct '%03o' $((o + 64)); printf -v c "^\\$oct"
    elif ((o == 127)); then
      c='^?'
    fi
    s+=$c
  done
  printf 'argv[%d] = <%s>\n' "$i" "$s"
  ((i++))
done
""",
    "zecho": """#!/bin/bash
if (($#)); then printf '%s' "$1"; shift; fi
for a in "$@"; do printf ' %s' "$a"; done
printf '\n'
""",
    "printenv": """#!/bin/bash
if (($# == 0)); then env; exit 0; fi
[ "${!1+set}" = set ] || exit 1
printf '%s\n' "${!1}"
""",
    "xcase": """#!/bin/bash
case $1 in -u) shift; exec tr '[:lower:]' '[:upper:]' < "${1:-/dev/stdin}" ;;
           -l) shift; exec tr '[:upper:]' '[:lower:]' < "${1:-/dev/stdin}" ;;
esac
cat "$@"
""",
}
# bash and sandbash both run as this user (sandbash's default identity); some scripts refuse root
UID = 1000


def _as_user() -> None:
    if os.getuid() == 0:
        os.setgid(UID)
        os.setuid(UID)


def fresh_copy(pristine: Path, workdir: Path) -> None:
    shutil.rmtree(workdir.parent, ignore_errors=True)
    shutil.copytree(pristine, workdir, symlinks=True)
    (workdir.parent / "home").mkdir()
    for name, text in HELPERS.items():
        (workdir / name).write_text(text)
        (workdir / name).chmod(0o755)
    if os.getuid() == 0:
        for base, dirs, files in os.walk(workdir.parent):
            for entry in (base, *(os.path.join(base, n) for n in dirs + files)):
                os.lchown(entry, UID, UID)


def compare(script: Script, root: Path, pristine: Path, timeout: float, python: str) -> Outcome:
    start = time.monotonic()
    workdir = root / script.area / script.name / "tests"
    outcome = Outcome(script.area, script.name)
    runs: list[tuple[bytes, int | None]] = []
    for _ in range(2):  # twice: lines that differ between two bash runs are not comparable
        fresh_copy(pristine, workdir)
        runs.append(run_bash(script, workdir, timeout))
    fresh_copy(pristine, workdir)
    out, status, error = run_sandbash(script, workdir, timeout, python)
    shutil.rmtree(workdir.parent, ignore_errors=True)
    first, second = _lines(runs[0][0]), _lines(runs[1][0])
    stable = _matched(first, second)
    got = _lines(out)
    hit = _matched(first, got)
    outcome.unstable = len(first) - len(stable)
    outcome.checks = len(stable) + 1
    outcome.passed = len(stable & hit) + (1 if status == runs[0][1] else 0)
    outcome.bash_status, outcome.sandbash_status, outcome.error = runs[0][1], status, error
    outcome.identical = first == got and status == runs[0][1]
    if not outcome.identical:
        outcome.diff = list(difflib.unified_diff(first, got, "bash", "sandbash", lineterm="", n=1))[:400]
    outcome.seconds = round(time.monotonic() - start, 2)
    return outcome


def table(outcomes: list[Outcome], skipped: dict[str, str]) -> str:
    areas: dict[str, list[Outcome]] = {}
    for o in outcomes:
        areas.setdefault(o.area, []).append(o)
    rows = ["| area | checks passed | % | scripts identical |", "|---|---|---|---|"]
    total_c = total_p = total_i = 0
    for area in sorted(areas):
        c = sum(o.checks for o in areas[area])
        p = sum(o.passed for o in areas[area])
        i = sum(o.identical for o in areas[area])
        total_c, total_p, total_i = total_c + c, total_p + p, total_i + i
        rows.append(f"| {area} | {p}/{c} | {100 * p / max(c, 1):.1f} | {i}/{len(areas[area])} |")
    rows.append(
        f"| **all** | **{total_p}/{total_c}** | **{100 * total_p / max(total_c, 1):.1f}** | "
        f"**{total_i}/{len(outcomes)}** |"
    )
    rows.append("")
    rows.append("Skipped areas:")
    rows.extend(f"- `{area}`: {why}" for area, why in sorted(skipped.items()))
    return "\n".join(rows)


def cmd_run(args: argparse.Namespace) -> int:
    repo = args.bash_repo or os.environ.get("BASH_SUITE_REPO")
    if not repo:
        print(
            "bash_suite: give the bash source snapshot with --bash-repo or BASH_SUITE_REPO", file=sys.stderr
        )
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="bashsuite-"))
    tmp.chmod(0o755)  # mkdtemp makes it 0700: bash, run as uid 1000, could not `cd` back by absolute path
    try:
        pristine = extract_tests(Path(repo), tmp / "pristine")
        scripts, skipped = discover(pristine)
        if args.areas:
            wanted = set(args.areas.split(","))
            scripts = [s for s in scripts if s.area in wanted]
        with ThreadPoolExecutor(args.jobs) as pool:
            outcomes = list(
                pool.map(lambda s: compare(s, tmp / "runs", pristine, args.timeout, args.python), scripts)
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    Path(args.out).write_text(
        json.dumps({"outcomes": [asdict(o) for o in outcomes], "skipped": skipped}, indent=1)
    )
    print(table(outcomes, skipped))
    for o in outcomes:
        if o.error:
            print(f"{o.area}/{o.script}: {o.error[:300]}", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    data = json.loads(Path(args.out).read_text())
    for o in data["outcomes"]:
        if o["area"] == args.area or o["script"] == args.area:
            print(
                f"== {o['area']}/{o['script']}: {o['passed']}/{o['checks']} "
                f"status bash={o['bash_status']} sandbash={o['sandbash_status']} {o['error'][:500]}"
            )
            print("\n".join(o["diff"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run the suite and print the per-area table")
    run.add_argument("--bash-repo", help="bash source snapshot: a git dir or a checkout (or BASH_SUITE_REPO)")
    run.add_argument("--areas", help="comma-separated areas (the NAME of tests/run-NAME)")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--timeout", type=float, default=60.0, help="seconds per script and shell")
    run.add_argument("--python", default=sys.executable, help="the Python that imports sandbash")
    run.add_argument("--out", default="bash-suite-results.json")
    show = sub.add_parser("show", help="print the diff of one area or script from the last run")
    show.add_argument("area")
    show.add_argument("--out", default="bash-suite-results.json")
    args = p.parse_args(argv)
    return cmd_run(args) if args.cmd == "run" else cmd_show(args)


if __name__ == "__main__":
    sys.exit(main())
