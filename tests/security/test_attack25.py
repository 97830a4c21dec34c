"""Attack round 25: last round's leftovers (T-TEN-8) and new ground.

Fell and fixed: an element store refused by max_memory (`z[3]=$x`, `m[k]+=$x`, `z=("$x")`, the
compiled `a[i]=v`, the arithmetic's store) stored the element first and charged it after: the
refusal left it held and uncharged in a Session's shell, one more at every call. Each store is
now charged before it is made (what a new element adds, settled once stored).

Fell and fixed: building an array held what it built before charging it: the item list of
`a=(...)`, mapfile and read -a (72 bytes an element), the new array beside the old one, read -a's
fields, the fields of an unquoted `$x` (split before they were charged), and the segment lists of
a split by any IFS but the default (~190 bytes a field, never charged): under max_memory 64 MiB
`IFS=$'\\n'; a=($x)` of a million lines grew 233 MB, `read -ra` 90 MB, `a=($(seq 1000000))` 82 MB.
Each is charged before it is made (an upper bound, settled after), and a split gives its fields
one at a time.
"""

from __future__ import annotations

import pytest
from secharness import run_isolated

from sandbash import Bash, ExecutionLimitError, Limits

# (the rows measured in a child process come first: a parent that has held more, as the session
# rows below make it, gives its heap to the child, whose resident set then grows less than it holds)
MIB = 1 << 20
MILLION_LINES = "seq 1000000 > /tmp/f; "
MILLION_WORDS = "seq 1000000 | tr '\\n' ' ' > /tmp/w; "

# grown beyond max_memory before the limit ended them (maxrss over the start, old src): each is
# now charged before it is made, and ends on max_memory within it
BUILT_OVER = {
    "ifs-newline-array": (64, "x=$(seq 1000000); IFS=$'\\n'; a=($x)"),  # 233 MB
    "ifs-newline-for": (64, "x=$(seq 1000000); IFS=$'\\n'; for i in $x; do :; done"),  # 241 MB
    "ifs-comma-array": (64, "x=$(seq 1000000 | tr '\\n' ,); IFS=,; a=($x)"),
    "read-a": (64, MILLION_WORDS + "read -ra a < /tmp/w"),  # 90 MB
    "read-a-comma": (64, "seq 1000000 | tr '\\n' , > /tmp/c; IFS=, read -ra a < /tmp/c"),
    "cmdsub-array": (64, "a=($(seq 1000000))"),  # 82 MB
    "unquoted-set": (64, "x=$(seq 1000000); set -- $x"),
    "copy-of-array": (256, 'a=($(seq 1000000)); b=("${a[@]}")'),  # 314 MB under 256 MiB
}


@pytest.mark.parametrize("name", sorted(BUILT_OVER))
def test_array_building_stays_within_max_memory(name: str) -> None:
    mib, script = BUILT_OVER[name]
    limits = Limits(max_memory=mib * MIB, max_expansion_bytes=1 << 30, max_output_size=1 << 30, timeout=120)
    out = run_isolated(script, limits=limits)
    assert out.kind == "limit" and out.limit == "max_memory", out.describe()
    assert out.extra["peak_rss"] <= mib * MIB, f"grew {out.extra['peak_rss'] >> 20} MiB: " + out.describe()


# ... while an honest million-element array still fits the default 256 MiB (the charges made
# ahead are upper bounds, settled: no false limit)
FITS = {
    "cmdsub-array": "a=($(seq 1000000)); echo ${#a[@]}",
    "mapfile": MILLION_LINES + "mapfile -t a < /tmp/f; echo ${#a[@]}",
    "mapfile-origin": MILLION_LINES + "mapfile -t -O 3 a < /tmp/f; echo ${#a[@]}",
    "read-a": MILLION_WORDS + "read -ra a < /tmp/w; echo ${#a[@]}",
    "ifs-newline-for": "x=$(seq 1000000); IFS=$'\\n'; n=0; for i in $x; do :; done; echo $i",
}


@pytest.mark.parametrize("name", sorted(FITS))
def test_a_million_elements_fit_the_default_budget(name: str) -> None:
    limits = Limits(max_memory=256 * MIB, max_expansion_bytes=1 << 30, max_output_size=1 << 30, timeout=120)
    out = run_isolated(FITS[name], limits=limits)
    assert out.kind == "result" and out.stdout == b"1000000\n", out.describe()
    assert out.extra["peak_rss"] <= 256 * MIB, out.describe()


TIGHT = Limits(max_memory=26 << 20, max_expansion_bytes=1 << 30, timeout=60)
BIG = "x=$(head -c 10000000 /dev/zero | tr '\\0' a)"

# (the variable made first, the store max_memory refuses, what shows whether it was stored)
REFUSED_STORES = [
    ("declare -A m; m[k]=$x", "m[j]=$x", "${#m[@]}:${#m[j]}", "1:0"),
    ("declare -a m; m[1]=$x", "m[2]=$x", "${#m[@]}:${#m[2]}", "1:0"),
    ("m=(); m[1]=$x", "m[2]=$x", "${#m[@]}:${#m[2]}", "1:0"),
    ("y=$x", "z[3]=$x", "${#z[@]}:${#z[3]}", "0:0"),
    ("declare -A m; m[a]=$x", "m[b]+=$x", "${#m[@]}:${#m[b]}", "1:0"),
    ("declare -a m; m[1]=$x", "m[1]+=$x", "${#m[@]}:${#m[1]}", "1:10000000"),
    ("y=$x", 'z=("$x")', "${#z[@]}", "0"),
    ("y=$x", "(( z[1]=1 )); z[2]=$x", "${#z[@]}:${#z[2]}", "1:0"),
    ("y=$x", "z=1; z[2]=$x", "${#z[@]}:${#z[2]}", "1:0"),
    ("y=$x", "f() { for i in 1 2; do z[i]=$x; done; }; f", "${#z[@]}", "0"),
    ("declare -A m; m[a]=$x", "for k in b c; do m[$k]=$x; done", "${#m[@]}", "1"),
    ("y=$x", "declare -a z; z[0]=$x", "${#z[@]}", "0"),
    ("y=$x", 'z=(1); z+=("$x")', "${#z[@]}", "1"),
]


@pytest.mark.parametrize(("made", "store", "shown", "expected"), REFUSED_STORES)
def test_a_refused_element_store_stores_nothing(made: str, store: str, shown: str, expected: str) -> None:
    sess = Bash(limits=TIGHT).session()
    sess.exec(f"{BIG}; {made}")
    with pytest.raises(ExecutionLimitError) as e:
        sess.exec(store)
    assert e.value.limit == "max_memory"
    assert sess.exec(f"echo {shown}").stdout == expected + "\n"


def test_refused_stores_do_not_pile_up_across_calls() -> None:
    # each call's store was refused, yet kept: six calls held 60 MB under 26 MiB
    sess = Bash(limits=TIGHT).session()
    sess.exec(f"{BIG}; y=$x")
    for i in range(6):
        with pytest.raises(ExecutionLimitError):
            sess.exec(f"z[{i}]=$x")
    assert sess.exec("echo ${#z[@]}").stdout == "0\n"


# Fell and fixed: `bash FILE` asked the policy twice about a refused FILE (a stat to see whether it
# is a directory, then the read), so the audit log held two refusals of one command. It reads, and
# a directory is the read's answer.
@pytest.mark.parametrize("script", ["bash /secret/s", "sh /secret/s", "bash /secret", "bash /secret/s a b"])
def test_a_refused_script_file_is_audited_once(script: str) -> None:
    from sandbash.audit import Audit, ListSink
    from sandbash.policy import Policy

    sink = ListSink()
    bash = Bash(
        policy=Policy(paths=["/tmp:rw"], mode="remediation"),
        audit=Audit([sink], decisions="deny"),
        files={"/secret/s": "echo leaked\n"},
    )
    r = bash.exec(script)
    assert "Permission denied [policy: paths.no-grant]" in r.stderr
    assert r.exit_code == 126 and "leaked" not in r.stdout
    refused = [e.fields["target"] for e in sink.events if e.kind == "decision"]
    assert len(refused) == 1, refused


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("mkdir -p /tmp/d; bash /tmp/d; echo $?", "/tmp/d: /tmp/d: Is a directory\n"),
        ("bash /tmp; echo $?", "/tmp: /tmp: Is a directory\n"),
        ("bash /tmp/none; echo $?", "bash: /tmp/none: No such file or directory\n"),
    ],
)
def test_bash_of_a_directory_or_nothing_still_says_so(script: str, expected: str) -> None:
    r = Bash().exec(script)
    assert r.stderr == expected
    assert r.stdout == ("127\n" if "none" in script else "126\n")


# Fell and fixed: a snapshot's ulimit table was saved and never restored; a restored table never
# raises the restoring sandbox's own limits (a hard limit is only lowered, as by a script).
def _snapshot_with(ulimits: dict[str, list[int | None]]) -> bytes:
    import json
    import zlib

    data = Bash().session().snapshot()
    doc = json.loads(zlib.decompress(data[7:]))
    doc["shell"]["ulimits"] = ulimits
    return data[:7] + zlib.compress(json.dumps(doc).encode())


def test_ulimits_are_restored_within_the_restoring_sandbox() -> None:
    src = Bash(limits=Limits(max_file_descriptors=4096, timeout=100)).session()
    src.exec("ulimit -n 2000; ulimit -S -s 100; ulimit -c 5; ulimit -St 50")
    data = src.snapshot()
    same = Bash(limits=Limits(max_file_descriptors=4096, timeout=100)).restore(data)
    assert (
        same.exec("ulimit -n; ulimit -Hn; ulimit -s; ulimit -c; ulimit -St").stdout
        == "2000\n2000\n100\n5\n50\n"
    )
    smaller = Bash(limits=Limits(max_file_descriptors=512, timeout=10)).restore(data)
    assert (
        smaller.exec("ulimit -n; ulimit -Hn; ulimit -s; ulimit -t; ulimit -Ht").stdout
        == "512\n512\n100\n10\n10\n"
    )
    r = smaller.exec("ulimit -n 600")
    assert r.exit_code == 1 and "Operation not permitted" in r.stderr


def test_a_crafted_ulimit_table_raises_nothing() -> None:
    data = _snapshot_with({"n": [None, None], "t": [10**9, None], "f": [1, 0]})
    s = Bash(limits=Limits(max_file_descriptors=256, timeout=10)).restore(data)
    assert (
        s.exec("ulimit -n; ulimit -Hn; ulimit -t; ulimit -Ht; ulimit -f; ulimit -Hf").stdout
        == "256\n256\n10\n10\n0\n0\n"
    )


@pytest.mark.parametrize(
    "table", [{"zz": [1, 2]}, {"n": [1]}, {"n": ["x", 1]}, {"n": [-1, 1]}, {"n": [1 << 70, None]}, []]
)
def test_a_malformed_ulimit_table_is_refused(table: object) -> None:
    from sandbash.sessions.errors import SnapshotError

    with pytest.raises(SnapshotError, match="ulimit"):
        Bash().restore(_snapshot_with(table))  # type: ignore[arg-type]
