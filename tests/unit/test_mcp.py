"""`sandbash mcp` end to end: the server runs as a subprocess and the official
MCP SDK client talks to it over stdio and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from sandbash.mcp_server import ServerConfig, build_tool

CONFIG = """
[sandbox]
cwd = "/work"
timeout = 20
max_output_chars = 2000

[limits]
max_loop_iterations = 500

[policy]
mode = "remediation"
[policy.commands]
deny = ["rm"]
"""


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _exercise(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"bash", "read_file", "write_file", "list_dir"}
    schema = tools["bash"].input_schema
    assert schema["required"] == ["command"] and "session_id" in schema["properties"]
    assert "jq" in (tools["bash"].description or "")

    r = await client.call_tool("bash", {"command": "pwd; cd /tmp; x=42; echo hi >&2", "session_id": "s1"})
    assert not r.is_error
    assert _text(r) == "/work\nSTDERR:\nhi\n[exit code: 0]"
    r = await client.call_tool("bash", {"command": "echo $PWD $x; echo '__RESULT__:{\"ok\": true}'; exit 3",
                                        "session_id": "s1"})
    assert r.is_error and r.structured_content is not None
    assert r.structured_content["exit_code"] == 3 and r.structured_content["result_json"] == {"ok": True}
    assert r.structured_content["stdout"].startswith("/tmp 42\n")
    r = await client.call_tool("bash", {"command": "echo \"[$x]\"", "session_id": "s1", "restart": True})
    assert _text(r).startswith("[]\n")

    r = await client.call_tool("bash", {"command": "seq 5000"})
    assert r.structured_content is not None and r.structured_content["stdout_truncated"]
    r = await client.call_tool("bash", {"command": "while :; do :; done"})
    assert r.is_error and r.structured_content is not None
    assert r.structured_content["limit"] == "max_loop_iterations"
    r = await client.call_tool("bash", {"command": "rm -f x; echo $?"})
    assert "policy" in _text(r) and "126" in _text(r)
    r = await client.call_tool("bash", {"command": "x", "files": [{"path": "a"}]})
    assert r.is_error and "missing required property 'content'" in _text(r)

    r = await client.call_tool("write_file", {"path": "notes/a.txt", "content": "one\ntwo\n"})
    assert not r.is_error and "/work/notes/a.txt" in _text(r)
    r = await client.call_tool("bash", {"command": "wc -l < notes/a.txt"})
    assert _text(r).startswith("2\n")
    r = await client.call_tool("read_file", {"path": "/work/notes/a.txt"})
    assert _text(r) == "one\ntwo\n"
    await client.call_tool("bash", {"command": "cd /work/notes", "session_id": "s2"})
    r = await client.call_tool("read_file", {"path": "a.txt", "session_id": "s2"})
    assert _text(r) == "one\ntwo\n"
    r = await client.call_tool("list_dir", {"path": "/work"})
    assert _text(r) == "notes/"
    r = await client.call_tool("list_dir", {"path": "notes"})
    assert _text(r) == "a.txt\t8"
    r = await client.call_tool("read_file", {"path": "missing.txt"})
    assert r.is_error and "No such file or directory" in _text(r)


def _server_args(tmp_path: Path) -> list[str]:
    config = tmp_path / "sandbash.toml"
    config.write_text(CONFIG)
    return ["-m", "sandbash", "mcp", "--config", str(config)]


def test_stdio(tmp_path: Path) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=_server_args(tmp_path))
        async with Client(params) as client:
            await _exercise(client)

    asyncio.run(asyncio.wait_for(main(), 120))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read() if proc.stderr else b''!r}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server did not start listening")


def test_streamable_http(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, *_server_args(tmp_path), "--transport", "http", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_listening(port, proc)

        async def main() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                await _exercise(client)
            # a second client shares the server's filesystem
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                r = await client.call_tool("read_file", {"path": "/work/notes/a.txt"})
                assert _text(r) == "one\ntwo\n"

        asyncio.run(asyncio.wait_for(main(), 120))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_config_file_and_flags() -> None:
    cfg = ServerConfig.from_toml(CONFIG + '\n[network]\nallow_urls = ["https://api.example.com/"]\n')
    assert cfg.cwd == "/work" and cfg.limits == {"max_loop_iterations": 500, "timeout": 20}
    assert cfg.build_limits().timeout == 20 and cfg.allow_urls == ["https://api.example.com/"]
    with pytest.raises(ValueError, match="unknown setting"):
        ServerConfig.from_toml("[server]\nprot = 1\n")
    with pytest.raises(ValueError, match="unknown section"):
        ServerConfig.from_toml("[sever]\n")


def test_policy_file_wins_over_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.mcp_server import config_from_args

    monkeypatch.delenv("SANDBASH_ALLOWED_COMMANDS", raising=False)
    files = {"c.toml": CONFIG, "p.toml": 'mode = "read-only"\n[commands]\ndeny = ["sed"]\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cfg = config_from_args(["--config", str(tmp_path / "c.toml"), "--policy", str(tmp_path / "p.toml")],
                           lambda p: Path(p).read_text())
    tool = build_tool(cfg)
    assert "sed" not in tool.available_commands() and "grep" in tool.available_commands()
    assert "read-only" in tool.description()
    monkeypatch.setenv("SANDBASH_ALLOWED_COMMANDS", "echo,cat")
    names = build_tool(cfg).available_commands()
    assert "cat" in names and "echo" in names and "grep" not in names


def test_bad_config_is_reported() -> None:
    p = subprocess.run([sys.executable, "-m", "sandbash", "mcp", "--config", "/nonexistent/x.toml"],
                       capture_output=True, timeout=60)
    assert p.returncode == 2 and b"sandbash mcp:" in p.stderr
