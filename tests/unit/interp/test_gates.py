"""CommandGates (interp/gates.py) with fake parts: the order of the decisions, the audit events of
run and refused commands, and composition (nothing to ask: no gates at all)."""

from __future__ import annotations

from typing import cast

import pytest

from sandbash.audit import Recorder
from sandbash.interp.control import ExitShell
from sandbash.interp.gates import CommandGates
from sandbash.policy import Gate


class FakePolicy:
    def __init__(self, refuse: set[str], hidden: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.refuse, self.hidden = refuse, hidden
        self.asked: list[tuple[str, ...]] = []

    def command(self, argv: list[str], kind: str = "", runs: str | None = None) -> str | None:
        self.asked.append(("command", argv[0], kind, runs or ""))
        return "denied by policy" if runs in self.refuse else None

    def command_name(self, name: str, kind: str = "", runs: str | None = None) -> str | None:
        self.asked.append(("name", name, kind, runs or ""))
        return "denied by name" if runs in self.refuse else None

    def visible(self, name: str, kind: str = "", runs: str | None = None) -> bool:
        return name not in self.hidden


class FakeRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []

    def command_start(self, argv: list[str], kind: str = "") -> int:
        self.events.append(("start", tuple(argv), kind))
        return len(self.events)

    def command_end(self, command_id: int, status: int) -> None:
        self.events.append(("end", command_id, status))


def gates(
    policy: FakePolicy | None = None, embedder: object = None, recorder: FakeRecorder | None = None
) -> CommandGates:
    made = CommandGates.compose(cast(Gate, policy), embedder, cast(Recorder, recorder))  # type: ignore[arg-type]
    assert made is not None
    return made


def test_nothing_to_ask_composes_to_none() -> None:
    assert CommandGates.compose(None, None, None) is None
    assert CommandGates.compose(None, lambda argv: None, None) is not None


@pytest.mark.parametrize(
    ("refuse", "embedder_says", "expected", "embedder_asked"),
    [
        (set(), None, None, True),
        ({"rm"}, None, "denied by policy", False),  # the policy first: the embedder is not asked
        (set(), "no rm here", "no rm here", True),
        ({"rm"}, "no rm here", "denied by policy", False),
    ],
)
def test_policy_then_embedder(
    refuse: set[str], embedder_says: str | None, expected: str | None, embedder_asked: bool
) -> None:
    asked: list[list[str]] = []

    def embedder(argv: list[str]) -> str | None:
        asked.append(argv)
        return embedder_says

    g = gates(FakePolicy(refuse), embedder)
    assert g.refusal(["rm", "-f", "x"], "command", "rm") == expected
    assert (asked == [["rm", "-f", "x"]]) == embedder_asked


def test_decisions_see_what_really_runs() -> None:
    policy = FakePolicy({"rm"})
    g = gates(policy)
    assert g.refusal(["cat", "f"], "command", "rm") == "denied by policy"  # `hash -p /bin/rm cat`
    assert policy.asked == [("command", "cat", "command", "rm")]
    assert g.name_refusal("cat", "command", "rm") == "denied by name"


def test_without_a_policy_names_and_discovery_are_free() -> None:
    g = gates(None, lambda argv: "never")
    assert g.name_refusal("rm", "command", "rm") is None
    assert g.visible("rm", "command", "rm")
    assert not gates(FakePolicy(set(), {"secret"})).visible("secret", "command", "secret")


def test_run_records_start_and_end_with_the_status() -> None:
    rec = FakeRecorder()
    refused: list[str] = []
    status = gates(FakePolicy(set()), None, rec).run(["ls"], "command", "ls", lambda: 3, refused.append)
    assert status == 3 and not refused
    assert rec.events == [("start", ("ls",), "command"), ("end", 1, 3)]


def test_a_refused_command_is_reported_recorded_and_never_run() -> None:
    rec = FakeRecorder()
    refused: list[str] = []
    ran: list[bool] = []

    def run() -> int:
        ran.append(True)
        return 0

    status = gates(FakePolicy({"rm"}), None, rec).run(["rm", "x"], "command", "rm", run, refused.append)
    assert (status, ran, refused) == (126, [], ["denied by policy"])
    assert rec.events == [("start", ("rm", "x"), "command"), ("end", 1, 126)]


def test_exit_inside_the_command_is_recorded_with_its_status() -> None:
    rec = FakeRecorder()

    def run() -> int:
        raise ExitShell(7)

    with pytest.raises(ExitShell):
        gates(None, None, rec).run(["exit", "7"], "builtin", "exit", run, lambda m: None)
    assert rec.events[-1] == ("end", 1, 7)


def test_without_a_recorder_no_events() -> None:
    g = gates(FakePolicy(set()))
    assert g.recorder is None
    assert g.run(["ls"], "command", "ls", lambda: 0, lambda m: None) == 0
