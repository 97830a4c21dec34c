"""T-MCP-1: one MCP client cannot reach another's shell (issue 22): a `session_id` is bound
to the client that made it. One `sandbash mcp --transport http` server on
127.0.0.1; each case is a pair of clients (MCP-session clients, stateless
clients, raw HTTP requests) trying to read or change the other's shell state.
Files are shared by design and stay shared."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")

import httpx2
from mcp import Client

from unit.mcphttp import http_server

SECRET = "hunter2-do-not-leak"


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path: Path = tmp_path_factory.mktemp("mcp") / "c.toml"
    path.write_text('[sandbox]\ncwd = "/work"\ntimeout = 20\n')
    with http_server(["-m", "sandbash", "mcp", "--config", str(path)]) as u:
        yield u


async def _victim(client: Client, name: str = "s1") -> str:
    """The victim's shell: an exported secret, a function, a cwd; returns its session id."""
    r = await client.call_tool(
        "bash",
        {
            "command": f"export TOKEN={SECRET}; mkdir -p /work/v; cd /work/v; "
            f"f() {{ echo {SECRET}; }}; echo shared > /work/v/file",
            "session_id": name,
        },
    )
    assert not r.is_error, _text(r)
    assert r.structured_content is not None
    return str(r.structured_content["session_id"])


PROBE = 'echo "[$TOKEN]" $PWD; declare -F f; type -t f; env | grep -c hunter2'


def _assert_clean(result: Any) -> None:
    text = _text(result)
    assert SECRET not in text and "/work/v" not in text.split("\n")[0], text


ATTEMPTS = [
    "same name",
    "same name with restart",
    "same name via read_file",
    "same name via list_dir",
    "same name via write_file",
    "other names",
    "empty name",
]


async def _attempt(attacker: Client, kind: str, victim_id: str) -> None:
    if kind == "same name":
        _assert_clean(await attacker.call_tool("bash", {"command": PROBE, "session_id": "s1"}))
    elif kind == "same name with restart":
        _assert_clean(
            await attacker.call_tool("bash", {"command": PROBE, "session_id": "s1", "restart": True})
        )
    elif kind in ("same name via read_file", "same name via list_dir", "same name via write_file"):
        tool = kind.rsplit(" ", 1)[1]
        args = {
            "read_file": {"path": "file"},
            "list_dir": {},
            "write_file": {"path": "planted", "content": "x"},
        }
        r = await attacker.call_tool(tool, {**args[tool], "session_id": "s1"})
        # "s1" is unknown to the attacker, or the attacker's own shell (in /work): never the victim's cwd
        text = _text(r)
        assert "shared" not in text and "/work/v" not in text and SECRET not in text, text
    elif kind == "other names":
        for name in ("S1", "s1 ", "s2", "default", victim_id[:-1] + ("A" if victim_id[-1] != "A" else "B")):
            _assert_clean(await attacker.call_tool("bash", {"command": PROBE, "session_id": name}))
    elif kind == "empty name":
        _assert_clean(await attacker.call_tool("bash", {"command": PROBE, "session_id": ""}))


@pytest.mark.parametrize("kind", ATTEMPTS)
@pytest.mark.parametrize(
    "victim_mode, attacker_mode",
    [("legacy", "legacy"), ("auto", "auto"), ("legacy", "auto"), ("auto", "legacy")],
)
def test_another_client_cannot_reach_the_shell(
    url: str, kind: str, victim_mode: str, attacker_mode: str
) -> None:
    async def main() -> None:
        async with Client(url, mode=victim_mode) as victim, Client(url, mode=attacker_mode) as attacker:
            victim_id = await _victim(victim)
            await _attempt(attacker, kind, victim_id)
            # the victim's shell is intact, and the files are shared as documented
            r = await victim.call_tool("bash", {"command": "echo $TOKEN $PWD; f", "session_id": victim_id})
            assert _text(r).startswith(f"{SECRET} /work/v\n{SECRET}\n"), _text(r)
            r = await attacker.call_tool("read_file", {"path": "/work/v/file"})
            assert _text(r) == "shared\n"

    asyncio.run(asyncio.wait_for(main(), 600))  # generous: a loaded host starts the server processes slowly


def test_a_forged_mcp_session_header_is_refused(url: str) -> None:
    """An HTTP client cannot claim an MCP session the server did not issue to it."""
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": PROBE, "session_id": "s1"}},
    }
    with httpx2.Client(timeout=30) as http:
        for forged in ("0" * 32, "s1", "local", "../", "mcp:s1"):
            resp = http.post(
                url,
                content=json.dumps(call),
                headers={**accept, "mcp-session-id": forged, "mcp-protocol-version": "2025-06-18"},
            )
            assert resp.status_code in (400, 404), (forged, resp.status_code)
            assert SECRET not in resp.text


def test_issued_ids_are_not_enumerable(url: str) -> None:
    async def main() -> None:
        async with Client(url) as client:
            ids = set()
            for _ in range(20):
                r = await client.call_tool("bash", {"command": "true", "session_id": "new"})
                assert r.structured_content is not None
                ids.add(r.structured_content["session_id"])
            assert len(ids) == 20 and all(len(i) >= 22 for i in ids)

    asyncio.run(asyncio.wait_for(main(), 600))  # generous: a loaded host starts the server processes slowly


def test_stdio_clients_are_separate_processes(tmp_path: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "sandbash", "mcp", "--cwd", "/work"])

    async def main() -> None:
        async with Client(params) as victim, Client(params) as attacker:
            victim_id = await _victim(victim)
            for kind in ATTEMPTS:
                await _attempt(attacker, kind, victim_id)

    asyncio.run(asyncio.wait_for(main(), 600))  # generous: a loaded host starts the server processes slowly
