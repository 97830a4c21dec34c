"""Limits: validation, profiles, the knob each message names, and the README table."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits
from sandbash.limits import LIMIT_KINDS, LimitExceeded, limits_table

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("value", [-1, -0.5, "10", None, float("nan"), True, [1]])
@pytest.mark.parametrize("name", ["max_memory", "timeout", "max_command_count", "max_arguments"])
def test_limits_refuse_negative_and_non_numeric_values(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"limit {name} must be a non-negative number"):
        Limits(**{name: value})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=name):
        Limits().with_overrides(**{name: value})  # type: ignore[arg-type]


def test_every_limit_is_described_once() -> None:
    names = [k.name for k in LIMIT_KINDS]
    assert sorted(names) == sorted(f.name for f in fields(Limits))
    assert len(set(names)) == len(names)


def test_limit_docs_read_as_the_named_tuples_they_were() -> None:
    """LimitDoc is a tuple with named fields (no typing.NamedTuple at import): the same fields,
    unpacking, equality, hash and repr as `NamedTuple('LimitDoc', name, caps, reported)`."""
    from collections import namedtuple

    twin = namedtuple("LimitDoc", "name caps reported")  # type: ignore[name-match]  # the old class
    for doc in LIMIT_KINDS:
        same: Any = twin(*doc)
        name, caps, reported = doc
        assert (doc.name, doc.caps, doc.reported) == (name, caps, reported) == tuple(same)
        assert doc == same and hash(doc) == hash(same) and repr(doc) == repr(same)
        assert isinstance(doc, tuple) and len(doc) == 3
    with pytest.raises(AttributeError):
        LIMIT_KINDS[0].caps = "x"  # type: ignore[misc]


@pytest.mark.parametrize("profile", ["default", "hardened", "generous", "bashbox"])
def test_profiles_build(profile: str) -> None:
    assert isinstance(Limits.profile(profile), Limits)


def test_bashbox_profile_keeps_bashbox_counts() -> None:
    lim = Limits.profile("bashbox")
    assert (lim.max_command_count, lim.max_loop_iterations) == (10_000, 10_000)


def test_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="default, hardened, generous, bashbox"):
        Limits.profile("huge")


@pytest.mark.parametrize(
    ("limit", "value", "shown"),
    [
        ("max_command_count", 10_000, "max_command_count (10000)"),
        ("timeout", 2.0, "timeout (2s)"),
        ("timeout", 0.5, "timeout (0.5s)"),
    ],
)
def test_message_names_the_knob(limit: str, value: float, shown: str) -> None:
    msg = LimitExceeded(limit, value).message()
    assert msg == (f"sandbash limit exceeded: {shown}; raise it with --limit {limit}=N or Limits({limit}=N)")


def test_default_budget_fits_ordinary_loops() -> None:
    bash = Bash()
    r = bash.exec("n=0; for ((i=0; i<100000; i++)); do n=$((n+1)); done; echo $n")
    assert r.stdout == "100000\n"
    r = bash.exec("seq 50000 > /tmp/l; c=0; while read -r line; do c=$((c+1)); done < /tmp/l; echo $c")
    assert r.stdout == "50000\n"


def test_bashbox_profile_stops_the_same_loop() -> None:
    with pytest.raises(ExecutionLimitError) as e:
        Bash(limits="bashbox").exec("for ((i=0; i<100000; i++)); do :; done")
    assert e.value.limit in ("max_loop_iterations", "max_command_count")
    assert "raise it with --limit" in e.value.result.stderr or "raise it with --limit" in str(e.value)


def test_readme_table_is_the_generated_one() -> None:
    text = README.read_text()
    section = text.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    table = "\n".join(line for line in section.splitlines() if line.startswith("|")) + "\n"
    assert table == limits_table(), (
        "README limits table is stale: regenerate it from sandbash.limits.limits_table()"
    )


@pytest.mark.parametrize(
    "script",
    [
        's=; for ((i=0;i<30000;i++)); do s="$s$i,"; done; echo ${#s}',
        "s=; for i in $(seq 0 29999); do s=$s$i,; done; echo ${#s}",
        's=; i=0; while [ $i -lt 30000 ]; do s="${s}${i},"; i=$((i+1)); done; echo ${#s}',
        's=; for ((i=0;i<30000;i++)); do printf -v s "%s%s," "$s" "$i"; done; echo ${#s}',
    ],
)
def test_accumulating_a_string_in_a_loop_is_not_ended_by_the_expansion_count(script: str) -> None:
    # each step expands the whole string again (30,000 steps count ~2.5 GB of expanded text;
    # bash 5.2 takes ~11 s CPU): the default bound on expanded text must not end what bash finishes
    r = Bash().exec(script, limits={"timeout": 120})
    assert (r.exit_code, r.stdout, r.stderr) == (0, "168890\n", "")
