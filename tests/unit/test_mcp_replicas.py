"""Stateless MCP replicas on one session store: any replica serves any session, and the health
endpoints say whether a replica can serve."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")

import httpx2
from mcp import Client

from .mcphttp import http_server


def _text(r: Any) -> str:
    return str(r.content[0].text)


def _args(tmp_path: Path) -> list[str]:
    return [
        "-m",
        "sandbash",
        "mcp",
        "--store",
        f"sqlite://{tmp_path}/sessions.db",
        "--stateless",
        "--cwd",
        "/work",
    ]


def test_two_replicas_serve_one_session(tmp_path: Path) -> None:
    with http_server(_args(tmp_path)) as one, http_server(_args(tmp_path)) as two:

        async def main() -> None:
            async with Client(one) as a, Client(two) as b:
                r = await a.call_tool(
                    "bash", {"command": "cd /tmp; n=1; echo first > f", "session_id": "new"}
                )
                assert r.structured_content is not None
                sid = r.structured_content["session_id"]  # issued by the server (stateless client)
                assert sid != "new"
                r = await b.call_tool(
                    "bash", {"command": "n=$((n+1)); echo $n $PWD; cat f", "session_id": sid}
                )
                assert _text(r).startswith("2 /tmp\nfirst\n")
                await b.call_tool("write_file", {"path": "g", "content": "from two", "session_id": sid})
                r = await a.call_tool("read_file", {"path": "g", "session_id": sid})
                assert _text(r) == "from two"
                r = await a.call_tool("list_dir", {"path": ".", "session_id": sid})
                assert "f" in _text(r) and "g" in _text(r)
                r = await a.call_tool("read_file", {"path": "g", "session_id": "never-issued"})
                assert r.is_error and "unknown session_id" in _text(r)

        asyncio.run(asyncio.wait_for(main(), 600))


def test_health_endpoints(tmp_path: Path) -> None:
    with http_server(_args(tmp_path)) as url:
        base = url.rsplit("/", 1)[0]
        with httpx2.Client(timeout=60) as http:
            assert http.get(f"{base}/healthz").text == "ok\n"
            r = http.get(f"{base}/readyz")
            assert (r.status_code, r.text) == (200, "ready\n")


def test_readyz_fails_when_the_store_is_gone(tmp_path: Path) -> None:
    args = ["-m", "sandbash", "mcp", "--store", "redis://127.0.0.1:9/0", "--stateless"]  # nothing listens
    pytest.importorskip("redis")
    with http_server(args) as url, httpx2.Client(timeout=60) as http:
        r = http.get(url.rsplit("/", 1)[0] + "/readyz")
        assert r.status_code == 503 and "session store unavailable" in r.text


def test_store_flag_and_sessions_table() -> None:
    from sandbash.agent.mcp_server import config_from_args

    files = {"c.toml": '[sessions]\nstore = "memory://"\nstateless = true\n[filesystem]\nstore = "fs.db"\n'}
    cfg = config_from_args(["--config", "c.toml"], files.__getitem__)
    assert (cfg.session_store, cfg.stateless, cfg.store) == ("memory://", True, "fs.db")
    cfg = config_from_args(["--store", "redis://127.0.0.1:6379/0"], files.__getitem__)
    assert (cfg.session_store, cfg.store, cfg.stateless) == ("redis://127.0.0.1:6379/0", None, False)
    cfg = config_from_args(["--store", "state.db"], files.__getitem__)
    assert (cfg.session_store, cfg.store) == (None, "state.db")  # a file: the root filesystem, as before


def test_workers_need_a_store() -> None:
    from sandbash.agent.mcp_server import config_from_args

    with pytest.raises(ValueError, match="--workers needs --store URL"):
        config_from_args(["--workers", "2"], {}.__getitem__)


def test_a_replica_with_worker_processes(tmp_path: Path) -> None:
    with http_server([*_args(tmp_path), "--workers", "1"]) as url:

        async def main() -> None:
            async with Client(url) as c:
                r = await c.call_tool("bash", {"command": "x=7; echo $BASHPID > /tmp/p", "session_id": "w"})
                assert r.structured_content is not None
                sid = r.structured_content["session_id"]
                r = await c.call_tool("bash", {"command": "echo $x", "session_id": sid})
                assert _text(r).startswith("7\n")

        asyncio.run(asyncio.wait_for(main(), 600))


def test_sigterm_lets_a_running_call_finish(tmp_path: Path) -> None:
    """A replica told to stop (SIGTERM) answers the call it is running, then exits."""
    import json
    import signal
    import threading
    import time

    from .mcphttp import last_server_process

    marks = tmp_path / "marks"
    marks.mkdir()
    with http_server([*_args(tmp_path), "--mount", f"{marks}:/marks:rw"]) as url:
        proc = last_server_process()
        results: list[str] = []
        command = "echo > /marks/started; sleep 4; echo finished"
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": command, "session_id": "g"}},
        }
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
        }

        def call() -> None:
            with httpx2.Client(timeout=600) as http:
                text = http.post(url, json=body, headers=headers).text
            data = next(json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:"))
            results.append(data["result"]["structuredContent"]["stdout"])

        t = threading.Thread(target=call)
        t.start()
        # the call is running once its script has written the mark (an established connection alone is not
        # enough on a busy machine: the request may not have been read yet, and a stopping server drops it)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not (marks / "started").exists():
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        t.join(600)
        assert results == ["finished\n"]
        assert proc.wait(120) in (0, -signal.SIGTERM)  # uvicorn ends by the signal it caught, once done
