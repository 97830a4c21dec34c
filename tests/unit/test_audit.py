"""Audit: events, sinks, redaction and the run's events in ExecResult."""

from __future__ import annotations

import io
import json
import logging

import pytest

from sandbash import Bash
from sandbash.audit import (
    Audit,
    AuditEvent,
    CallbackSink,
    JsonLinesSink,
    ListSink,
    LoggingSink,
    Recorder,
    redact_secrets,
    script_hash,
)
from sandbash.errors import ExecutionLimitError
from sandbash.limits import Limits
from sandbash.policy import Policy


def test_event_shape() -> None:
    e = AuditEvent("decision", 3, 12.5, "run-1", {"action": "fs:read", "target": "/x"})
    assert e.to_dict() == {
        "kind": "decision",
        "seq": 3,
        "time": 12.5,
        "run_id": "run-1",
        "action": "fs:read",
        "target": "/x",
    }
    assert json.loads(e.to_json()) == e.to_dict()


def test_sinks() -> None:
    text = io.StringIO()
    binary = io.BytesIO()
    got: list[dict[str, object]] = []
    listed = ListSink()
    rec = Recorder(Audit([listed, JsonLinesSink(text), JsonLinesSink(binary), CallbackSink(got.append)]))
    rec.emit("run.start", script_hash="h")
    rec.emit("run.end", status=0)
    assert listed.kinds() == ["run.start", "run.end"]
    lines = [json.loads(x) for x in text.getvalue().splitlines()]
    assert [x["kind"] for x in lines] == ["run.start", "run.end"] and lines[0]["seq"] == 1
    assert binary.getvalue().decode().splitlines()[1] == text.getvalue().splitlines()[1]
    assert [g["kind"] for g in got] == ["run.start", "run.end"]


def test_logging_sink(caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder(Audit([LoggingSink("sandbash.test")]))
    with caplog.at_level(logging.INFO, logger="sandbash.test"):
        rec.emit("decision", action="shell:exec", target="rm", decision="deny")
        rec.emit("decision", action="shell:exec", target="ls", decision="allow")
    levels = [(r.levelno, r.getMessage().split()[1]) for r in caplog.records]
    assert levels == [(logging.WARNING, "decision"), (logging.INFO, "decision")]
    assert caplog.records[0].audit["target"] == "rm"  # type: ignore[attr-defined]


def test_a_failing_sink_does_not_stop_the_run() -> None:
    def broken(event: AuditEvent) -> None:
        raise OSError("disk full")

    listed = ListSink()
    bash = Bash(audit=Audit([broken, listed]))
    r = bash.exec("echo hi")
    assert r.stdout == "hi\n" and listed.kinds()[0] == "run.start"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["curl", "-u", "bob:pw", "https://x"], ["curl", "-u", "***", "https://x"]),
        (["curl", "-H", "Authorization: Bearer abc", "u"], ["curl", "-H", "Authorization: ***", "u"]),
        (
            ["env", "API_KEY=abc", "TOKEN=t", "NAME=n", "cmd"],
            ["env", "API_KEY=***", "TOKEN=***", "NAME=n", "cmd"],
        ),
        (["mysql", "--password=x", "-p", "y"], ["mysql", "--password=***", "-p", "***"]),
        (["echo", "password"], ["echo", "password"]),
    ],
)
def test_redaction(argv: list[str], expected: list[str]) -> None:
    assert redact_secrets(argv) == expected


def test_run_events_in_the_result() -> None:
    bash = Bash()
    r = bash.exec("echo hi; exit 3")
    kinds = [e["kind"] for e in r.events]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    start, end = r.events[0], r.events[-1]
    assert start["script_hash"] == script_hash("echo hi; exit 3")
    assert (
        isinstance(start["limits"], dict)
        and start["limits"]["max_command_count"] == Limits().max_command_count
    )
    assert start["policy"] is None
    assert end["status"] == 3 and end["stdout_bytes"] == 3 and end["stderr_bytes"] == 0
    assert isinstance(end["duration"], float)
    assert len({e["run_id"] for e in r.events}) == 1
    assert bash.exec("true").events[0]["run_id"] != r.events[0]["run_id"]


def test_decisions_go_to_the_run_and_the_sinks() -> None:
    listed = ListSink()
    bash = Bash(
        files={"/data/a": "A\n"},
        policy=Policy(["cat"], paths=["/data:ro"], mode="remediation"),
        audit=Audit([listed]),
    )
    r = bash.exec("cat /data/a; cat /etc/x 2>/dev/null; rm /data/a")
    assert r.exit_code == 126
    decisions = [(e["action"], e["target"], e["decision"]) for e in r.events if e["kind"] == "decision"]
    assert ("shell:exec", "cat", "allow") in decisions
    assert ("fs:read", "/data/a", "allow") in decisions
    assert ("shell:exec", "rm", "deny") in decisions
    assert [e.kind for e in listed.events] == [e["kind"] for e in r.events]
    assert r.events[0]["policy"]["allow"] == ["cat"]  # type: ignore[index]


def test_limit_event() -> None:
    bash = Bash(limits=Limits().with_overrides(max_loop_iterations=5))
    with pytest.raises(ExecutionLimitError) as e:
        bash.exec("while true; do :; done")
    kinds = [ev["kind"] for ev in e.value.result.events]
    assert kinds[-2:] == ["limit", "run.end"]
    assert e.value.result.events[-2]["limit"] == "max_loop_iterations"


def test_session_events() -> None:
    s = Bash().session()
    r1 = s.exec("x=1")
    r2 = s.exec("echo $x")
    assert r2.stdout == "1\n"
    assert r1.events[0]["run_id"] != r2.events[0]["run_id"]


def test_recorder_command_interface() -> None:
    rec = Recorder(Audit(redact=redact_secrets))
    cid = rec.command_start(["curl", "-u", "a:b", "x"], "command")
    rec.command_end(cid, 7)
    start, end = rec.dicts()
    assert start["argv"] == ["curl", "-u", "***", "x"] and start["command_kind"] == "command"
    assert end["command_id"] == cid and end["status"] == 7 and end["name"] == "curl"


def test_command_events_from_the_executor() -> None:
    r = Bash(audit=Audit()).exec("echo a | cat")
    kinds = [e["kind"] for e in r.events]
    assert kinds.count("command.start") == 2 and kinds.count("command.end") == 2
