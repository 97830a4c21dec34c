"""BashTool with a session store: any tool (any process) on the same store continues a session."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sandbash.agent.tool import BashTool


def _tool(url: str) -> BashTool:
    return BashTool(files={"/home/user/readme": "hello\n"}, store=url)


@pytest.fixture(params=["sqlite", "redis", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/sessions.db"
    return str(request.getfixturevalue(f"{request.param}_url"))


def test_a_second_tool_continues_the_session(url: str) -> None:
    a, b = _tool(url), _tool(url)
    sid = BashTool.new_session_id()
    assert (
        a.run({"command": "x=41; cd /tmp; echo made > note; f() { echo fn; }", "session_id": sid}).exit_code
        == 0
    )
    out = b.run({"command": "echo $((x+1)); pwd; cat note; f; cat ~/readme", "session_id": sid})
    assert out.stdout == "42\n/tmp\nmade\nfn\nhello\n"
    assert sid in a.sessions()
    other = b.run({"command": "echo ${x-unset}; ls /tmp", "session_id": BashTool.new_session_id()})
    assert other.stdout == "unset\n"  # each session has its own files and shell


def test_scopes_are_apart(url: str) -> None:
    t = _tool(url)
    t.run({"command": "v=alice", "session_id": "s"}, scope="alice")
    assert t.run({"command": "echo ${v-none}", "session_id": "s"}, scope="bob").stdout == "none\n"
    assert t.sessions(scope="bob") == ["s"] and t.sessions(scope="alice") == ["s"]
    t.close_session("s", scope="alice")
    assert t.sessions(scope="alice") == []


def test_restart_starts_over_in_store_mode(url: str) -> None:
    t = _tool(url)
    t.run({"command": "v=1; echo x > /tmp/f", "session_id": "r"})
    out = t.run(
        {
            "command": "echo ${v-unset}; ls /tmp/f 2>&1 | wc -l; cat ~/readme",
            "session_id": "r",
            "restart": True,
        }
    )
    assert out.stdout.startswith("unset\n") and out.stdout.endswith("hello\n")


def test_concurrent_calls_from_two_tools_lose_nothing(url: str) -> None:
    """Two tools (two replicas) append to one session's file and variable at once: every call counts."""
    tools = [_tool(url), _tool(url)]
    sid = "shared"
    tools[0].run({"command": "n=0; : > /tmp/log", "session_id": sid})
    errors: list[str] = []

    def work(t: BashTool, who: str) -> None:
        for i in range(6):
            out = t.run({"command": f"n=$((n+1)); echo {who}{i} >> /tmp/log", "session_id": sid})
            if out.exit_code != 0:
                errors.append(out.stderr)

    threads = [threading.Thread(target=work, args=(t, w)) for t, w in zip(tools, "ab", strict=True)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(300)
    assert not errors
    out = tools[1].run(
        {"command": "echo $n; wc -l < /tmp/log; sort /tmp/log | tr '\\n' ' '", "session_id": sid}
    )
    assert out.stdout.splitlines()[:2] == ["12", "12"]
    assert out.stdout.splitlines()[2].split() == sorted(
        [f"a{i}" for i in range(6)] + [f"b{i}" for i in range(6)]
    )
