"""The Vfs gate's short cuts (policy.path_decision skipping normpath for a canonical path, shared
decisions, Gate.fs building no Action when `decide` is not asked) decide, record and refuse
exactly as the full rules: every spelling of a path gets one decision, and `decide` sees every
action the static rules allow and none they refuse."""

from __future__ import annotations

import itertools

import pytest

from sandbash.audit import Recorder
from sandbash.policy import Action, Decision, Gate, Policy
from sandbash.vfs import FsError
from sandbash.vfs.ops import FileOp

POLICIES = {
    "grants": Policy(paths=["/work:rw", "/work/.git:ro", "/data:ro", "/tmp:rw"]),
    "read-only": Policy(paths=["/work:rw"], mode="read-only"),
    "unrestricted": Policy(),
}
PATHS = [
    "/",
    "/work",
    "/work/a/b",
    "/work/.git",
    "/work/.git/config",
    "/work/.gitignore",
    "/data/x",
    "/datax",
    "/dev/null",
    "/dev",
    "/devx",
    "/tmp/f",
    "/bin",
    "/usr/bin/ls",
    "/etc/passwd",
    "/home",
]


def _spellings(path: str) -> list[str]:
    """Other texts normpath turns into `path`."""
    out = [path + "/", "/." + path, path.replace("/", "//"), "/x/.." + path]
    if path != "/":
        head, _, name = path.rpartition("/")
        out.append(f"{head}/./{name}")
        out.append(f"{head}/{name}/../{name}")
    return out


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_spelling_of_a_path_gets_one_decision(name: str) -> None:
    policy = POLICIES[name]
    for action, path in itertools.product(FileOp, PATHS):
        want = policy.path_decision(action, path)
        for other in _spellings(path):
            assert policy.path_decision(action, other) == want, (action, other)
        assert policy.path_decision(str(action.value), path) == want  # the static check's text names
    assert not policy.path_decision("frobnicate", "/work").allowed


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_gate_asks_decide_about_what_the_rules_allow_only(name: str) -> None:
    asked: list[tuple[str, str]] = []

    def decide(action: Action) -> Decision | None:
        asked.append((action.kind, action.target))
        return Decision.deny("host", "no") if action.target.endswith("/b") else None

    policy = POLICIES[name].replace(decide=decide)
    rec = Recorder(None)
    gate = Gate(policy, rec)
    expected_asks = []
    for action, path in itertools.product(FileOp, PATHS):
        static = policy.path_decision(action, path)
        refused = not static.allowed or path.endswith("/b")
        if static.allowed:
            expected_asks.append((f"fs:{action.value}", path))
        if refused:
            with pytest.raises(FsError) as e:
                gate.fs(action, path)
            assert e.value.rule == (static.rule if not static.allowed else "host")
        else:
            gate.fs(action, path)
    assert asked == expected_asks
    kinds = [(e.fields["action"], e.fields["target"]) for e in rec.events]
    assert kinds == [(f"fs:{a.value}", p) for a, p in itertools.product(FileOp, PATHS)]
