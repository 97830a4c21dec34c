"""Runs the policy table: each (policy, script) gives the expected status, stderr and events."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.net.config import NetworkConfig
from sandbash.policy import Policy
from sandbash.vfs.facade import Vfs

from .cases import CASES, Case


def sandbox(policy: Policy, network: bool = False) -> Bash:
    vfs = Vfs()
    view = vfs.view("/")
    for d in ("/data", "/secret", "/workspace"):
        view.mkdir(d, parents=True)
    files = {
        "/data/a.txt": b"alpha\n",
        "/data/b.txt": b"beta\n",
        "/data/lib.sh": b"echo sourced\n",
        "/secret/key": b"TOPSECRET\n",
        "/workspace/notes": b"n\n",
        "/workspace/run.sh": b"cat /data/a.txt\n",
    }
    for path, data in files.items():
        view.write_bytes(path, data)
    view.symlink("/secret/key", "/workspace/link")
    net = (
        NetworkConfig(
            allowed_url_prefixes=["https://api.example.com/"],
            allowed_methods=["GET", "POST"],
            resolver=lambda host: ["93.184.216.34"],
        )
        if network
        else None
    )
    return Bash(fs=vfs, cwd="/workspace", policy=policy, network=net)


def _params() -> list[object]:
    out: list[object] = []
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def test_enough_cases() -> None:
    assert len(CASES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", _params())
def test_case(case: Case) -> None:
    bash = sandbox(case.policy, case.network)
    r = bash.exec(case.script)
    where = f"\nstdout={r.stdout!r}\nstderr={r.stderr!r}"
    assert r.exit_code == case.status, where
    for piece in case.err:
        assert piece in r.stderr, where
    if case.out is not None:
        assert r.stdout == case.out, where
    if case.not_out:
        assert case.not_out not in r.stdout, where
    decisions = {
        (str(e["action"]), str(e["target"]), str(e["decision"])) for e in r.events if e["kind"] == "decision"
    }
    for ev in case.events:
        assert ev in decisions, f"{ev} not in {sorted(decisions)}"
    for ev in case.absent:
        assert ev not in decisions
    for path, exists in case.files.items():
        bash.vfs.gate = None  # look without asking the policy
        assert bash.vfs.view("/").exists(path) == exists, path
    assert r.events[0]["kind"] == "run.start" and r.events[-1]["kind"] == "run.end"
    assert r.events[-1]["status"] == case.status
