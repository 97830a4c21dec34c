"""Attack round 31: what jq's decoder builds, charged before it is built; awk's record loop.

The values a JSON text decodes to were not charged: `jq -s` charged each slurped value's top-level
shell only, and one value the C scanner built in a single call was charged nothing. Under the
default 256 MB max_memory, 5,000,000 `[[[[1]]]]` slurped held 1.1 GB, 5,000,000
`{"a":1,"b":[1,2],"c":"xyz"}` 435 MB, a 60 MB array of `[]` 1.8 GB (and answered), a 120 MB array
of floats 842 MB. The decoder now charges what a text decodes to by counting its brackets, commas,
colons and quotes (jq/memory.py text_cost): values as they are read, a value spanning more than
1 MB of text before the scanner builds it.

awk's record loop (records_batched) counted a round of its array check per batch of records, and
measured the arrays every 64 rounds: a batch of `yes` is 32,768 records, so `{c[NR][1]=1}` grew
1 GB (`{a[NR]=$1; b[NR]=$1}` 816 MB) under a 64 MB max_memory before the first check. A batch now
counts a round per 64 records, as the one-record path does.

Rows run in a forked child (secharness: peak RSS watched, RLIMIT_AS) with the default profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from secharness import Outcome, batch, param, pooled, verify_bomb

MEM = ("max_memory",)

BOMBS = {
    # each row: the shape it guards
    "slurp-nested-arrays": ("yes '[[[[1]]]]' | head -n 5000000 | jq -s length", MEM),
    "slurp-mixed-objects": ('yes \'{"a":1,"b":[1,2],"c":"xyz"}\' | head -n 5000000 | jq -s length', MEM),
    "inputs-nested-objects": (
        'yes \'{"a":{"b":{"c":{}}}}\' | head -n 5000000 | jq -n \'[inputs] | length\'',
        MEM,
    ),
    "one-array-of-empty-arrays": (
        "(printf '['; yes '[],' | head -n 20000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
    "one-array-of-floats": (
        "(printf '['; yes '1.5,' | head -n 30000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
    "one-object-from-a-file": (
        "{ printf '{'; seq -f '\"k%g\":{},' 1 3000000 | tr -d '\\n'; echo '\"z\":1}'; } > /tmp/o.json; jq length /tmp/o.json",
        MEM,
    ),
    # the slow parser (a lone surrogate escape sends a value to it) builds as it reads
    "slow-parser-array": (
        "(printf '[\"\\\\ud83d\\\\ude00\",'; yes '[],' | head -n 20000000 | tr -d '\\n'; echo '1]') | jq length",
        MEM,
    ),
}

# awk arrays grown by the record loop (a batch of records between two checks)
AWK = ("max_memory", "max_array_elements")
AWK_BOMBS = {
    "awk-record-array": "{a[NR]=$0}",
    "awk-record-two-arrays": "{a[NR]=$1; b[NR]=$1}",
    "awk-record-subarrays": "{c[NR][1]=1}",
    "awk-record-counts": "{a[NR]++}",
    "awk-record-split": '{n = split($0 NR, t, ""); a[NR] = t[1]}',
}
BOMBS.update(
    {name: (f"yes | head -n 3000000 | awk '{prog}' | tail -1", AWK) for name, prog in AWK_BOMBS.items()}
)

CASES = [
    param(name, script, timeout=60, profile="default", expect=expect)
    for name, (script, expect) in sorted(BOMBS.items())
]


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_decoded_json_is_charged_before_it_is_built")


@pytest.mark.parametrize("case", CASES)
def test_decoded_json_is_charged_before_it_is_built(
    case: dict[str, Any], outcomes: dict[str, Outcome]
) -> None:
    verify_bomb(case, outcomes[case["id"]])


# what fits answers as jq does
RESULTS = {
    "slurp-200k-objects": ('yes \'{"a":1,"b":[1,2]}\' | head -n 200000 | jq -s length', "200000\n"),
    "slurp-nested-200k": ("yes '[[[[1]]]]' | head -n 200000 | jq -s 'map(.[0][0][0][0]) | add'", "200000\n"),
    "stream-a-file-of-600k": (
        'yes \'{"a":1,"b":[1,2],"c":"xyz"}\' | head -n 600000 > /tmp/x.json; jq -c .b /tmp/x.json | uniq -c',
        " 600000 [1,2]\n",
    ),
    "one-array-of-1m-floats": (
        "(printf '['; yes '1.5,' | head -n 1000000 | tr -d '\\n'; echo '1]') | jq add",
        "1500001\n",
    ),
    "awk-record-array-fits": ("yes | head -n 200000 | awk '{a[NR]=$0} END{print length(a)}'", "200000\n"),
    "slow-parser-value": (
        "printf '[\"\\\\ud83d\\\\ude00\",[1],{\"a\":[2]}]\\n[3]' | jq -c '.[1:]'",
        '[[1],{"a":[2]}]\n[]\n',
    ),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_json_within_the_budget_answers_as_jq(name: str) -> None:
    specs = {
        k: {"script": s, "limits": "default", "overrides": {"timeout": 60}} for k, (s, _) in RESULTS.items()
    }
    out = pooled("attack31-jq-decoded", specs)[name]
    assert out.kind == "result", out.describe()
    assert out.stdout.decode() == RESULTS[name][1], out.describe()
    assert out.extra["peak_rss"] < (256 << 20) + (150 << 20), out.describe()


# ------------------------------------------------------------ the audit events a run keeps

# The events a run keeps (ExecResult.events) and each sink gets held every argument whole: 400 calls
# of `f "$x$i"` with a 1 MB x held 386 MB past a 64 MB max_memory, with nothing charged. An event
# shows an argument (or a decision's target) up to audit.ARG_CHARS characters, its argv up to
# ARGV_CHARS, and a run keeps events up to Recorder.MAX_KEPT_CHARS of them.


def _audited_bash() -> Any:
    from sandbash import Bash, Policy

    return Bash(policy=Policy(deny=["curl"]))


_MB_WORD = "x=$(head -c 1000000 /dev/zero | tr '\\0' a)"
AUDIT_BOMBS = {
    "audit-function-argument": f'{_MB_WORD}; f() {{ :; }}; for i in $(seq 600); do f "$x$i"; done; echo ok',
    "audit-program-argument": f'{_MB_WORD}; for i in $(seq 600); do /bin/true "$x$i"; done; echo ok',
    "audit-refused-argument": f'{_MB_WORD}; for i in $(seq 600); do curl "$x$i" 2>/dev/null; done; echo ok',
    "audit-builtin-argument": f'{_MB_WORD}; for i in $(seq 600); do : "$x$i"; done; echo ok',
    "audit-many-arguments": "x=$(seq 100000); for i in $(seq 300); do /bin/true $x $i; done; echo ok",
}
AUDIT_CASES = [
    param(
        name, script, timeout=60, profile="default", overrides={"max_memory": 64 << 20}, build=_audited_bash
    )
    for name, script in sorted(AUDIT_BOMBS.items())
]


@pytest.fixture(scope="module")
def audit_outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    return batch(request, "test_audit_events_hold_bounded_arguments")


@pytest.mark.parametrize("case", AUDIT_CASES)
def test_audit_events_hold_bounded_arguments(
    case: dict[str, Any], audit_outcomes: dict[str, Outcome]
) -> None:
    out = audit_outcomes[case["id"]]
    assert out.kind == "result" and out.stdout == b"ok\n", out.describe()
    assert out.extra["peak_rss"] < (64 << 20) + (150 << 20), out.describe()


def test_audit_event_shows_a_cut_argument_and_target() -> None:
    from sandbash import Bash, Policy
    from sandbash.audit import ARG_CHARS, ARGV_CHARS

    b = Bash(policy=Policy(deny=["curl"]), files={"/w/a": "x"})
    long = "a" * (ARG_CHARS + 10)
    r = b.exec(f'f() {{ :; }}; f "{long}" b; curl "{long}"; [ -e "/w/{long}" ]; /bin/true $(seq 20000)')
    starts = [e["argv"] for e in r.events if e["kind"] == "command.start"]
    assert ["f", "a" * ARG_CHARS + "...[10 more characters]", "b"] in starts
    refused = [e for e in r.events if e["kind"] == "decision" and e["decision"] == "deny"]
    assert refused and all(len(a) <= ARG_CHARS + 40 for e in refused for a in e["argv"])
    targets = [e["target"] for e in r.events if e["kind"] == "decision" and e["target"].startswith("/w/a")]
    assert targets and all(len(t) <= ARG_CHARS + 40 for t in targets)
    many = next(a for a in starts if a[0] == "/bin/true")
    assert many[-1].startswith("...[") and many[-1].endswith(" more arguments]")
    assert sum(map(len, many[:-1])) <= ARGV_CHARS and many[:3] == ["/bin/true", "1", "2"]


def test_a_run_keeps_events_up_to_a_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash import Bash, Policy
    from sandbash.audit import Recorder

    monkeypatch.setattr(Recorder, "MAX_KEPT_CHARS", 100_000)
    b = Bash(policy=Policy(deny=["curl"]))
    r = b.exec('x=$(printf "%4000s" ""); for i in $(seq 100); do /bin/true "$x"; done; echo done')
    kept = sum(len(a) for e in r.events for a in e.get("argv", ()))
    assert kept <= 100_000 and r.stdout == "done\n"
    end = r.events[-1]
    assert end["kind"] == "run.end" and end["events_dropped"] > 0
