"""BashTool sessions: kept per scope (one client's shell is not another's), bounded
in number and idle time (T-MCP-2), with unguessable server-made ids; the per-call knobs an
operator sets (timeout ceiling, file cap, network default, audit, files note)."""

from __future__ import annotations

import string
import threading
from typing import Any

import pytest

from sandbash import Bash, Limits, Policy
from sandbash.agent.tool import TOOL_CALL, BashTool, ToolInputError
from sandbash.audit import Audit, ListSink


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_same_id_in_two_scopes_is_two_shells() -> None:
    tool = BashTool()
    tool.run({"command": "export SECRET=s3; cd /tmp", "session_id": "s1"}, scope="alice")
    out = tool.run({"command": 'echo "[$SECRET]" $PWD', "session_id": "s1"}, scope="bob")
    assert out.stdout == "[] /home/user\n"
    out = tool.run({"command": "echo $SECRET $PWD", "session_id": "s1"}, scope="alice")
    assert out.stdout == "s3 /tmp\n"
    assert tool.sessions(scope="alice") == ["s1"] and tool.sessions(scope="bob") == ["s1"]
    assert tool.sessions() == []  # the default scope is a scope of its own
    tool.close_scope("alice")
    assert tool.sessions(scope="alice") == [] and tool.sessions(scope="bob") == ["s1"]
    assert tool.run({"command": 'echo "[$SECRET]"', "session_id": "s1"}, scope="alice").stdout == "[]\n"


def test_restart_and_find_respect_the_scope() -> None:
    tool = BashTool()
    tool.run({"command": "x=1", "session_id": "s"}, scope="a")
    tool.run({"command": "x=2", "session_id": "s"}, scope="b")
    tool.restart("s", scope="a")
    assert tool.run({"command": 'echo "[$x]"', "session_id": "s"}, scope="a").stdout == "[]\n"
    assert tool.run({"command": "echo $x", "session_id": "s"}, scope="b").stdout == "2\n"
    assert tool.find_session("s", scope="c") is None and tool.sessions(scope="c") == []
    assert tool.find_session("s", scope="b") is tool.session("s", scope="b")


def test_files_are_shared_across_scopes() -> None:
    tool = BashTool()
    tool.run({"command": "echo shared > /tmp/f", "session_id": "s"}, scope="a")
    assert tool.run({"command": "cat /tmp/f", "session_id": "s"}, scope="b").stdout == "shared\n"


def test_idle_sessions_are_forgotten() -> None:
    clock = Clock()
    tool = BashTool(session_idle_timeout=60, clock=clock)
    for sid in ("a", "b"):
        tool.run({"command": f"v={sid}", "session_id": sid})
    clock.now += 40
    tool.run({"command": "true", "session_id": "b"})  # b is used again: its idle time restarts
    clock.now += 30
    assert tool.sessions() == ["b"]
    assert tool.run({"command": 'echo "[$v]"', "session_id": "a"}).stdout == "[]\n"  # a fresh shell
    assert tool.run({"command": "echo $v", "session_id": "b"}).stdout == "b\n"
    clock.now += 61
    assert tool.sessions() == [] and tool.find_session("b") is None


@pytest.mark.parametrize(
    "kw", [{"max_sessions": 0}, {"session_idle_timeout": 0}, {"session_idle_timeout": -5}]
)
def test_bad_session_bounds(kw: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="BashTool"):
        BashTool(**kw)  # type: ignore[arg-type]


def test_the_cap_counts_every_scope() -> None:
    tool = BashTool(max_sessions=3, session_idle_timeout=None)
    for scope in ("a", "b"):
        for sid in ("1", "2"):
            tool.run({"command": "true", "session_id": sid}, scope=scope)
    assert tool.sessions(scope="a") == ["2"] and tool.sessions(scope="b") == ["1", "2"]


def test_the_kept_shells_memory_is_bounded_together() -> None:
    """T-MCP-2: max_sessions_memory bounds what every client's shells hold together (each shell
    alone is bounded by max_session_memory); the least recently used other shells go first, the
    one just used stays, and a shell that holds little is not forgotten for nothing."""
    mb = 1024 * 1024
    tool = BashTool(max_sessions_memory=10 * mb, session_idle_timeout=None)
    grow = "x=$(printf '%3000000s' .)"
    for scope, sid in (("a", "1"), ("b", "1"), ("a", "2")):
        tool.run({"command": grow, "session_id": sid}, scope=scope)
    assert tool.sessions(scope="a") == ["1", "2"] and tool.sessions(scope="b") == ["1"]
    tool.run({"command": "y=$x$x", "session_id": "1"}, scope="b")  # b/1 holds 9 MB: the others go
    assert tool.sessions(scope="a") == [] and tool.sessions(scope="b") == ["1"]
    out = tool.run({"command": "echo ${#x} ${#y}", "session_id": "1"}, scope="b")
    assert out.stdout == "3000000 6000000\n"
    tool.run({"command": "unset x y; small=1", "session_id": "1"}, scope="b")
    for sid in "123":
        tool.run({"command": "v=1", "session_id": sid}, scope="c")
    assert tool.sessions(scope="b") == ["1"] and tool.sessions(scope="c") == ["1", "2", "3"]
    held = sum(tool.session(sid, scope="c").held for sid in "123") + tool.session("1", scope="b").held
    assert held < 10 * mb
    with pytest.raises(ValueError, match="max_sessions_memory"):
        BashTool(max_sessions_memory=0)


def test_calls_at_once_are_bounded() -> None:
    """T-MCP-2: max_concurrent_calls bounds the calls that run at once (each within max_memory):
    another waits for a turn up to its time limit, then answers in one line; one that gets a turn
    in time runs."""
    tool = BashTool(max_concurrent_calls=2, session_idle_timeout=None)
    outs: list[str] = []
    running = [
        threading.Thread(
            target=lambda s=sid: outs.append(
                tool.run({"command": "sleep 3; echo ok", "session_id": s}).stdout
            )
        )
        for sid in ("s1", "s2")
    ]
    for t in running:
        t.start()
    for _ in range(3000):  # (a busy machine may start the threads late)
        if tool._turns._value == 0:  # type: ignore[attr-defined]
            break
        threading.Event().wait(0.01)
    late = tool.run({"command": "echo late", "session_id": "s3", "timeout_ms": 200})
    if tool._turns._value == 0 or not all(t.is_alive() for t in running):  # type: ignore[attr-defined]
        assert (late.stdout, late.exit_code) == ("", 1)
        assert late.stderr == "bash: too many concurrent calls; try again"
    waited = tool.run({"command": "echo waited", "session_id": "s3"})
    assert (waited.stdout, waited.exit_code) == ("waited\n", 0)
    for t in running:
        t.join()
    assert outs == ["ok\n", "ok\n"]
    with pytest.raises(ValueError, match="max_concurrent_calls"):
        BashTool(max_concurrent_calls=0)


def test_new_session_ids_are_unguessable() -> None:
    ids = {BashTool.new_session_id() for _ in range(2000)}
    assert len(ids) == 2000
    alphabet = set(string.ascii_letters + string.digits + "-_")
    assert all(len(i) >= 22 and set(i) <= alphabet for i in ids)


def test_concurrent_clients_with_one_name() -> None:
    tool = BashTool()
    seen: dict[str, str] = {}

    def client(n: int) -> None:
        scope = f"client-{n}"
        tool.run(
            {"command": f"export TOKEN=t{n}; mkdir -p /tmp/c{n}; cd /tmp/c{n}", "session_id": "main"},
            scope=scope,
        )
        seen[scope] = tool.run({"command": "echo $TOKEN $PWD", "session_id": "main"}, scope=scope).stdout

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert seen == {f"client-{n}": f"t{n} /tmp/c{n}\n" for n in range(8)}


def test_timeout_ms_can_rise_to_the_ceiling_only() -> None:
    limits = Limits.profile("default").with_overrides(timeout=0.3)
    capped = BashTool(limits=limits)
    assert capped.run({"command": "sleep 1; echo done", "timeout_ms": 5000}).limit == "timeout"
    raised = BashTool(limits=limits, max_timeout=3)
    assert raised.run({"command": "sleep 1; echo done", "timeout_ms": 2500}).stdout == "done\n"
    assert raised.run({"command": "sleep 1; echo done"}).limit == "timeout"  # no timeout_ms: the default
    out = raised.run({"command": "sleep 10; echo done", "timeout_ms": 600_000})
    assert out.limit == "timeout" and out.stdout == ""
    assert raised.run({"command": "sleep 1; echo done", "timeout_ms": 100}).limit == "timeout"  # lower: fine


def test_max_file_bytes_and_max_file_kb_take_the_smaller() -> None:
    tool = BashTool(max_file_bytes=100)
    big = {"command": "true", "files": [{"path": "f", "content": "x" * 101}]}
    with pytest.raises(ToolInputError, match="larger than max_file_kb"):
        tool.run(big)
    assert tool.run({**big, "files": [{"path": "f", "content": "x" * 100}]}).exit_code == 0
    with pytest.raises(ToolInputError, match=r"max_file_kb \(1 KiB\)"):
        BashTool().run({**big, "max_file_kb": 1, "files": [{"path": "f", "content": "y" * 1025}]})


def test_network_by_default_off() -> None:
    from sandbash.net import NetworkConfig

    net = NetworkConfig(allowed_url_prefixes=["https://api.example.com/"])
    tool = BashTool(network=net, network_by_default=False)
    assert tool.run({"command": "type -t curl"}).exit_code == 1
    assert tool.run({"command": "type -t curl", "allow_network": True}).stdout == "file\n"
    assert tool.run({"command": "type -t wget", "session_id": "s"}).exit_code == 1
    assert tool.run({"command": "type -t wget", "session_id": "s", "allow_network": True}).stdout == "file\n"


def test_one_audit_event_per_call() -> None:
    sink = ListSink()
    tool = BashTool(
        audit=Audit(sinks=[sink]), limits=Limits.profile("default").with_overrides(max_loop_iterations=50)
    )
    tool.run({"command": "echo hello; echo e >&2; exit 4", "session_id": "s"})
    tool.run({"command": "while :; do :; done"})
    calls = [e.to_dict() for e in sink.events if e.kind == TOOL_CALL]
    assert len(calls) == 2
    first, second = calls
    assert first["command"] == "echo hello; echo e >&2; exit 4" and first["exit_code"] == 4
    assert (first["stdout_bytes"], first["stderr_bytes"], first["session"]) == (6, 2, True)
    assert first["duration"] >= 0 and first["limit"] is None and first["tool"] == "bash"
    assert second["limit"] == "max_loop_iterations" and second["session"] is False
    assert not [e for e in sink.events if e.kind == "command.start"]  # the tool's audit is per call only


def test_files_note_reaches_the_model() -> None:
    tool = BashTool(files_note="The user's project is at /workspace.", cwd="/workspace")
    assert "Each call starts in /workspace. The user's project is at /workspace." in tool.description()
    assert "- The user's project is at /workspace." in tool.system_prompt()


REFUSED_INPUTS: list[tuple[dict[str, Any], str | None, str]] = [
    ({"command": "echo x", "bogus": 1}, "echo x", "input: unknown property 'bogus'"),
    ({"command": 5}, None, "input.command: expected string, got int"),
    ({"timeout_ms": 5}, None, "input: missing required property 'command'"),
    (
        {"command": "cat b", "max_file_kb": 1, "files": [{"path": "b", "content": "x" * 2000}]},
        "cat b",
        "files: b is larger than max_file_kb (1 KiB)",
    ),
    ({"command": "true", "env": {"A-B": "1"}, "session_id": "s"}, "true", "env: invalid variable name 'A-B'"),
]


@pytest.mark.parametrize("entry", ["run", "arun", "mcp"])
def test_refused_calls_are_recorded_too(entry: str) -> None:
    import asyncio

    sink = ListSink()
    tool = BashTool(audit=Audit(sinks=[sink]))
    for args, _, message in REFUSED_INPUTS:
        if entry == "mcp":
            pytest.importorskip("mcp")
            from mcp import Client

            from sandbash.agent.mcp_server import build_server

            async def call(args: dict[str, Any] = args) -> str:
                async with Client(build_server(tool)) as client:
                    r = await client.call_tool("bash", args)
                    assert r.is_error
                    return "".join(getattr(b, "text", "") for b in r.content)

            assert asyncio.run(asyncio.wait_for(call(), 60)) == message
        else:
            with pytest.raises(ToolInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
                if entry == "run":
                    tool.run(args)
                else:
                    asyncio.run(tool.arun(args))
    calls = [e.to_dict() for e in sink.events if e.kind == TOOL_CALL]
    assert [(c["command"], c["error"], c["exit_code"]) for c in calls] == [
        (command, message, None) for _, command, message in REFUSED_INPUTS
    ]


@pytest.mark.parametrize(
    "kw", [{"cwd": "/workspace"}, {"env": {"A": "1"}}, {"limits": "strict"}, {"policy": Policy()}]
)
def test_settings_for_a_made_bash_are_refused_with_a_given_one(kw: dict[str, Any]) -> None:
    # (they configure the Bash the tool makes: with bash= they were dropped without a word)
    with pytest.raises(ValueError, match=f"BashTool: {next(iter(kw))} configure"):
        BashTool(Bash(), **kw)


def test_a_given_bash_keeps_its_cwd_and_gets_the_files() -> None:
    tool = BashTool(Bash(cwd="/srv"), files={"/srv/a.txt": "x\n"})
    out = tool.run({"command": "pwd; cat a.txt"})
    assert out.stdout == "/srv\nx\n"
