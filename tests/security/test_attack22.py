"""Attack round 22: last round's leftovers and new ground (T-MCP-2, ...).

Fell and fixed: the MCP server gave every tool call a thread (a `bash` call waits for one of
`max_concurrent_calls` turns in it, up to its time limit), and nothing bounded the calls waiting:
a client sending thousands of calls at once held thousands of threads and requests. The server
now holds at most `max_pending_calls` tool calls at once (running or waiting) and answers the
rest at once with a one-line error.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize("tool_name", ["bash", "read_file", "list_dir", "write_file"])
def test_mcp_calls_held_at_once_are_capped(tool_name: str) -> None:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    from mcp import Client

    from sandbash.agent.mcp_server import ServerConfig, build_server, build_tool

    tool = build_tool(ServerConfig(max_concurrent_calls=1, limits={"timeout": 60}))
    server = build_server(tool, max_pending_calls=3)
    args = {
        "bash": {"command": "echo ok"},
        "read_file": {"path": "/tmp/f"},
        "list_dir": {"path": "/tmp"},
        "write_file": {"path": "/tmp/g", "content": "x"},
    }[tool_name]

    async def main() -> None:
        async with Client(server) as client:
            await client.call_tool("write_file", {"path": "/tmp/f", "content": "hello"})
            # three slow calls hold every place; the fourth and later calls are refused at once
            slow = [
                asyncio.create_task(client.call_tool("bash", {"command": "sleep 2", "session_id": f"s{i}"}))
                for i in range(3)
            ]
            await asyncio.sleep(0.5)
            threads = threading.active_count()
            refused = await asyncio.gather(*(client.call_tool(tool_name, args) for _ in range(20)))
            assert threading.active_count() <= threads + 1
            for r in refused:
                assert r.is_error
                assert (
                    _text(r)
                    == f"{tool_name}: the server holds 3 calls already (max_pending_calls); try again"
                )
            for r in await asyncio.gather(*slow):
                assert not r.is_error, _text(r)
            r = await client.call_tool(tool_name, args)  # places are given back
            assert not r.is_error, _text(r)

    asyncio.run(main())


def test_max_pending_calls_is_configurable() -> None:
    from sandbash.agent.mcp_server import ServerConfig, config_from_args

    cfg = config_from_args(["--max-pending-calls", "5"], lambda p: "", {})
    assert cfg.max_pending_calls == 5
    assert ServerConfig.from_toml("[sandbox]\nmax_pending_calls = 7\n").max_pending_calls == 7
    assert ServerConfig().max_pending_calls == 64
    with pytest.raises(ValueError, match="max_pending_calls"):
        config_from_args(["--max-pending-calls", "0"], lambda p: "", {})
