"""Attack round 24: last round's leftovers (T-TEN-7, T-TEN-8) and new ground.

Fell and fixed: positional parameters made by `set` (or `shift`) inside a run were charged to
nothing: four functions each `set -- $(seq 400000)` held 164 MB beyond the interpreter under
max_memory 64 MiB (each caller's list stays alive under its callee's). They are charged to the
shell's account as they are set (64 bytes and their text each) and given back as they are
replaced, shifted, or dropped when the call or sourced file that made them ends (T-TEN-8).

Fell and fixed (a false limit): the fields a subshell's last expansion charged to max_memory
(`(a=($(seq 100000)))`) were given back by its next command, which never came: twenty such
subshells in a row ended on max_memory 26 MiB holding nothing. A subshell gives them back as it
ends.

Fell and fixed: a subshell that runs while its shell goes on (a job, a coprocess, a process
substitution) shares the shell's values and keeps them alive when the shell replaces them, which
the shell's account cannot see (it charges the difference): `read -r x` of a 9 MB line then
`sleep 8 &`, a hundred times, held 916 MB resident under max_memory 64 MiB (T-TEN-8).

Fell and fixed: a crafted snapshot read a host file the restoring policy refuses, through a hard
link in its OverlayFs image to a file taken from the host layer (T-TEN-9).

Fell and fixed: one client's sessions (many, or large) made the tool forget other clients' shells;
`source` of a refused path was audited twice.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash, ExecutionLimitError, Limits
from sandbash.agent.tool import BashTool
from sandbash.policy import Policy
from sandbash.vfs.overlay import OverlayFs

MEMORY = Limits(max_memory=26 << 20, max_expansion_bytes=1 << 30, timeout=60)


def _limit_of(script: str, limits: Limits = MEMORY) -> str | None:
    """The limit that ended the run, or None when it completed (status 0 expected)."""
    try:
        r = Bash(limits=limits).exec(script)
    except ExecutionLimitError as e:
        return e.limit
    assert r.exit_code == 0, r
    return None


# each list of 100,000 parameters is charged ~7 MB: four held at once (a caller's list stays
# alive under its callee's `set`) are over 26 MiB, while one at a time fits
PARAMS_HELD = [
    "set -- $(seq 100000); f() { set -- $(seq 100000); g; }; g() { set -- $(seq 100000); h; };"
    " h() { set -- $(seq 100000); }; f",
    "set -- $(seq 100000); f() { set -- $(seq 100000); f2; }; f2() { set -- $(seq 100000); : ; };"
    " f; b=($(seq 60000))",
    "echo 'set -- $(seq 100000); f' > /tmp/s; f() { set -- $(seq 100000); g; }; g() { set -- $(seq 100000);"
    " source /tmp/s2 x; }; echo 'set -- $(seq 100000); set -- $(seq 100000) 1' > /tmp/s2; set -- $(seq 100000); f",
    'set -- $(seq 100000); shift; f() { set -- $(seq 100000); shift 2; g "$@"; }; g() { set -- $(seq 100000); }; f',
]


@pytest.mark.parametrize("script", PARAMS_HELD)
def test_positional_parameters_are_charged_to_max_memory(script: str) -> None:
    assert _limit_of(script) == "max_memory"


# ... and given back: each of these holds one such list at a time, twenty times over (140 MB)
PARAMS_GIVEN_BACK = [
    "for i in $(seq 20); do set -- $(seq 100000); done",
    "for i in $(seq 20); do set -- $(seq 100000); shift 99999; done",
    "f() { set -- $(seq 100000); shift 3; }; for i in $(seq 20); do f; done",
    "echo 'set -- $(seq 100000)' > /tmp/s; f() { source /tmp/s a; }; for i in $(seq 20); do f; source /tmp/s b; done",
    "set -- $(seq 100000); for i in $(seq 20); do (set -- $(seq 100000)); done",
    "for i in $(seq 20); do set - $(seq 100000); set +; done",
    # a subshell's last expansion: what it charged was kept past the subshell's end (no next
    # command of its own gave it back), so these ended on max_memory holding nothing
    "for i in $(seq 20); do (a=($(seq 100000))); done",
    "for i in $(seq 20); do : | b=($(seq 100000)); done",
    "for i in $(seq 20); do b=($(seq 100000)) & wait; done",
]


@pytest.mark.parametrize("script", PARAMS_GIVEN_BACK)
def test_positional_parameters_give_their_charge_back(script: str) -> None:
    assert _limit_of(script) is None


def test_positional_parameters_are_counted_once_in_a_session() -> None:
    session = Bash().session()
    session.exec(":")
    base = session.held
    session.exec("set -- $(seq 10000)")
    grown = session.held - base
    assert 10000 * 64 <= grown <= 10000 * 64 + 48894 + (64 << 10), grown  # (text 48,894 bytes; one grain)
    session.exec("f() { set -- 1; shift; }; f a b; shift 9999; set --")
    assert session.held - base <= len("f() { set -- 1; shift; }") * 4 + (64 << 10)
    # a snapshot's parameters are charged as set: restored, they are counted once too
    again = Bash().restore(session.snapshot())
    again.exec("set -- $(seq 10000)")
    restored = Bash().restore(again.snapshot())
    assert restored.exec("echo $# ${10000}").stdout == "10000 10000\n"
    assert restored.held <= again.held + (64 << 10)


# Fell and fixed: a subshell that runs while its shell goes on (a job, a coprocess, a process
# substitution) shares its shell's values and keeps them alive when the shell replaces them, which
# the shell's account cannot see (it charges the difference: a value replaced by one as long
# charges nothing): `read -r x` of a 9 MB line then `sleep 8 &`, a hundred times, held 916 MB
# under max_memory 64 MiB. Such a subshell is charged what its shell holds as it starts.
APART = Limits(max_memory=64 << 20, timeout=60)
LINE = "head -c 5000000 /dev/zero | tr '\\0' a > /tmp/f; echo >> /tmp/f; "
KEPT_ALIVE = [
    LINE + "for i in $(seq 30); do read -r x < /tmp/f; sleep 3 & done; wait",
    LINE + "for i in $(seq 30); do mapfile x < /tmp/f; sleep 3 & done; wait",
    LINE + "for i in $(seq 30); do read -r x < /tmp/f; coproc { sleep 3; } 2>/dev/null; done; wait",
    LINE + "for i in $(seq 30); do read -r x < /tmp/f; exec {fd}< <(sleep 3); done; wait",
    LINE + "f() { read -r x < /tmp/f; sleep 3 & }; for i in $(seq 30); do f; done; wait",
    "for i in $(seq 30); do set -- $(seq 100000); sleep 3 & done; wait",
]


@pytest.mark.parametrize("script", KEPT_ALIVE)
def test_a_subshell_apart_is_charged_what_it_shares(script: str) -> None:
    assert _limit_of(script, APART) == "max_memory"


# ... while a subshell its shell waits for shares without a charge (the shell changes nothing
# meanwhile), and a job's charge is given back as it ends
SHARED_FREE = [
    LINE + 'read -r x < /tmp/f; for i in $(seq 30); do (: "${#x}"); : | : ; y=$(echo ok); done',
    LINE + "for i in $(seq 30); do read -r x < /tmp/f; sleep 0.01 & wait; done",
    LINE + "for i in $(seq 30); do read -r x < /tmp/f; cat <(:) >/dev/null; done",
]


@pytest.mark.parametrize("script", SHARED_FREE)
def test_a_subshell_waited_for_is_not_charged_what_it_shares(script: str) -> None:
    assert _limit_of(script, APART) is None


# Fell and fixed: a crafted snapshot gave host files names the restoring policy never decides on:
# an OverlayFs image's file marked `lower: true` (streamed from the host layer) at a path the policy
# refuses, and a hard link to it at a granted path, read the refused host file through the link.
# Every file an image takes from the host layer must be readable under the restoring sandbox's
# policy (asked through its own gate, so `decide` and the audit see it), else SnapshotError (T-TEN-9).
def _overlay_bash(host: Path, decide: Any = None) -> Bash:
    return Bash(
        fs=OverlayFs(str(host)),
        policy=Policy(paths=["/w:rw", "/tmp:rw"], mode="remediation", decide=decide),
    )


def _crafted(host: Path, extra: list[dict[str, Any]]) -> bytes:
    from sandbash.sessions.snapshot import MAGIC, VERSION

    session = _overlay_bash(host).session()
    session.exec("echo mine > /w/f")
    doc = json.loads(zlib.decompress(session.snapshot()[len(MAGIC) + 1 :]))
    nodes = doc["mounts"][0]["image"]["nodes"]
    base = {k: v for k, v in next(n for n in nodes if n["path"] == "/w/f").items() if k != "data"}
    nodes.extend({**base, **e} if e.get("kind") != "h" else e for e in extra)
    return MAGIC + bytes([VERSION]) + zlib.compress(json.dumps(doc).encode())


SECRET_NAMES = [
    # a hard link at a granted name to the refused host file
    [
        {"path": "/secret", "kind": "d", "mode": 0o755},
        {"path": "/secret/s", "kind": "f", "lower": True},
        {"path": "/w/stolen", "kind": "h", "of": "/secret/s"},
    ],
    # the refused host file alone (its own name: refused all the same, nothing to restore it for)
    [{"path": "/secret", "kind": "d", "mode": 0o755}, {"path": "/secret/s", "kind": "f", "lower": True}],
]


@pytest.mark.parametrize("extra", SECRET_NAMES)
def test_snapshot_takes_no_host_file_the_policy_refuses(tmp_path: Path, extra: list[dict[str, Any]]) -> None:
    from sandbash.sessions.errors import SnapshotError

    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "s").write_text("HOSTSECRET\n")
    (tmp_path / "w").mkdir()
    data = _crafted(tmp_path, extra)
    target = _overlay_bash(tmp_path)
    with pytest.raises(SnapshotError, match="policy refuses"):
        target.restore(data)
    assert "HOSTSECRET" not in target.exec("cat /w/stolen /secret/s 2>&1").stdout


def test_snapshot_host_files_are_decided_by_the_restoring_policy(tmp_path: Path) -> None:
    from sandbash.sessions.errors import SnapshotError

    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "kept").write_text("host\n")
    asked: list[str] = []

    def decide(action: Any) -> bool:
        asked.append(action.target)
        return "kept" not in action.target

    session = _overlay_bash(tmp_path).session()
    session.exec("touch -d 2001-01-01 /w/kept")  # changed in metadata only: `lower: true` in the image
    data = session.snapshot()
    # the same policy restores it (its content streams from the host again) ...
    assert _overlay_bash(tmp_path).restore(data).exec("cat /w/kept").stdout == "host\n"
    # ... a policy whose `decide` refuses reading it does not
    with pytest.raises(SnapshotError, match="policy refuses"):
        _overlay_bash(tmp_path, decide).restore(data)
    assert "/w/kept" in asked


# Fell and fixed: `source` of a path the policy refuses asked the policy twice (its search, then
# again for the message), so the audit log held the one refusal twice. The search's answer says why.
@pytest.mark.parametrize(
    "script", ["source /secret/s", ". /secret/s", "command source /secret/s", "PATH=/secret; source s"]
)
def test_a_refused_source_is_audited_once(script: str) -> None:
    from sandbash.audit import Audit, ListSink

    sink = ListSink()
    bash = Bash(
        policy=Policy(paths=["/tmp:rw"], mode="remediation"),
        audit=Audit([sink], decisions="deny"),
        files={"/secret/s": "echo leaked\n"},
    )
    r = bash.exec(script)
    assert "Permission denied [policy: paths.no-grant]" in r.stderr
    assert "leaked" not in r.stdout
    refused = [e.fields["target"] for e in sink.events if e.kind == "decision"]
    assert refused.count("/secret/s") == 1, refused


# Fell and fixed: a client made the tool forget every other client's shell by making its own:
# max_sessions new session ids, or shells holding max_sessions_memory, evicted the least recently
# used shells of every scope. The shells of the scope holding the most go first (T-MCP-2).
def _state(tool: BashTool, scope: str) -> str:
    return tool.run({"command": "echo $KEPT", "session_id": "s1"}, scope=scope).stdout


def test_many_sessions_of_one_client_do_not_evict_another() -> None:
    tool = BashTool(max_sessions=8)
    tool.run({"command": "export KEPT=alice", "session_id": "s1"}, scope="alice")
    for i in range(20):
        tool.run({"command": "x=1", "session_id": f"m{i}"}, scope="mallory")
    assert _state(tool, "alice") == "alice\n"
    assert len(tool.sessions(scope="mallory")) == 7
    # the same client's shells still go least recently used first
    assert tool.sessions(scope="mallory") == [f"m{i}" for i in range(13, 20)]


def test_large_sessions_of_one_client_do_not_evict_another() -> None:
    tool = BashTool(max_sessions_memory=40 << 20)
    tool.run({"command": "export KEPT=alice", "session_id": "s1"}, scope="alice")
    for name in ("m1", "m2", "m3"):
        tool.run({"command": "a=($(seq 200000))", "session_id": name}, scope="mallory")
    assert _state(tool, "alice") == "alice\n"
    assert tool.sessions(scope="mallory") == ["m3"]


def test_the_heaviest_client_loses_its_shells_first() -> None:
    tool = BashTool(max_sessions=4)
    for scope, n in (("a", 1), ("b", 2)):
        for i in range(n):
            tool.run({"command": f"export KEPT={scope}", "session_id": f"s{i + 1}"}, scope=scope)
    tool.run({"command": "x=1", "session_id": "s1"}, scope="c")
    tool.run({"command": "x=1", "session_id": "s2"}, scope="c")  # five: b and c hold two each
    assert _state(tool, "a") == "a\n"
    assert len(tool.sessions(scope="b")) + len(tool.sessions(scope="c")) == 3
