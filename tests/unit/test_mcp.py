"""`sandbash mcp` end to end: the server runs as a subprocess and the official
MCP SDK client talks to it over stdio and over streamable HTTP on 127.0.0.1
(modern stateless requests and legacy MCP sessions), with and without a
bearer token; plus the configuration, `--root`, `--help` and the policy table."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from sandbash.agent.mcp_server import ServerConfig, build_tool, config_from_args

from .mcphttp import INITIALIZE, free_port, http_server

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
TOKEN = "t0k3n-for-tests-0123456789"


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _exercise(client: Client, issued: bool) -> None:
    """The tools as one client uses them; `issued`: the server makes the session ids
    (a stateless HTTP client), else the client's own names are kept."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"bash", "read_file", "write_file", "list_dir"}
    schema = tools["bash"].input_schema
    assert schema["required"] == ["command"] and "session_id" in schema["properties"]
    assert "jq" in (tools["bash"].description or "")

    r = await client.call_tool("bash", {"command": "pwd; cd /tmp; x=42; echo hi >&2", "session_id": "s1"})
    assert not r.is_error and r.structured_content is not None
    s1 = r.structured_content["session_id"]
    if issued:
        assert s1 != "s1" and len(s1) >= 22 and f"[session_id: {s1} " in _text(r)
    else:
        assert s1 == "s1" and _text(r) == "/work\nSTDERR:\nhi\n[exit code: 0]"
    r = await client.call_tool(
        "bash", {"command": "echo $PWD $x; echo '__RESULT__:{\"ok\": true}'; exit 3", "session_id": s1}
    )
    assert r.is_error and r.structured_content is not None
    assert r.structured_content["exit_code"] == 3 and r.structured_content["result_json"] == {"ok": True}
    assert r.structured_content["stdout"].startswith("/tmp 42\n")
    r = await client.call_tool("bash", {"command": 'echo "[$x]"', "session_id": s1, "restart": True})
    assert _text(r).startswith("[]\n")

    r = await client.call_tool("bash", {"command": "seq 5000"})
    assert r.structured_content is not None and r.structured_content["stdout_truncated"]
    r = await client.call_tool("bash", {"command": "while :; do :; done"})
    assert r.is_error and r.structured_content is not None
    assert r.structured_content["limit"] == "max_loop_iterations"
    r = await client.call_tool("bash", {"command": "rm -f x; echo $?"})
    assert "policy" in _text(r) and "126" in _text(r)
    r = await client.call_tool("bash", {"command": "x", "files": [{"path": "a"}]})
    assert r.is_error and _text(r) == "input.files[0]: missing required property 'content'"

    r = await client.call_tool("write_file", {"path": "notes/a.txt", "content": "one\ntwo\n"})
    assert not r.is_error and "/work/notes/a.txt" in _text(r)
    r = await client.call_tool("bash", {"command": "wc -l < notes/a.txt"})
    assert _text(r).startswith("2\n")
    r = await client.call_tool("read_file", {"path": "/work/notes/a.txt"})
    assert _text(r) == "one\ntwo\n"
    r = await client.call_tool("bash", {"command": "cd /work/notes", "session_id": "s2"})
    assert r.structured_content is not None
    s2 = r.structured_content["session_id"]
    r = await client.call_tool("read_file", {"path": "a.txt", "session_id": s2})
    assert _text(r) == "one\ntwo\n"
    r = await client.call_tool("list_dir", {"path": "/work"})
    assert _text(r) == "notes/"
    r = await client.call_tool("list_dir", {"path": "notes"})
    assert _text(r) == "a.txt\t8"
    r = await client.call_tool("read_file", {"path": "missing.txt"})
    assert r.is_error and _text(r) == "missing.txt: No such file or directory"
    r = await client.call_tool("read_file", {"path": "a.txt", "session_id": "never-started"})
    assert r.is_error and "unknown session_id 'never-started'" in _text(r)


def _server_args(tmp_path: Path, config: str = CONFIG) -> list[str]:
    path = tmp_path / "sandbash.toml"
    path.write_text(config)
    return ["-m", "sandbash", "mcp", "--config", str(path)]


def _run(coro: Any) -> None:
    asyncio.run(asyncio.wait_for(coro, 180))


def test_stdio(tmp_path: Path) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=_server_args(tmp_path))
        async with Client(params) as client:
            await _exercise(client, issued=False)

    _run(main())


def _client(url: str, token: str | None = None, mode: str = "auto") -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode)  # type: ignore[arg-type]


def test_streamable_http(tmp_path: Path) -> None:
    with http_server(_server_args(tmp_path)) as url:

        async def main() -> None:
            async with Client(url) as client:  # stateless requests: the server issues session ids
                await _exercise(client, issued=True)
            async with Client(url, mode="legacy") as client:  # an MCP session: the client's names
                await client.call_tool("bash", {"command": "rm -rf /work/notes 2>/dev/null; true"})
                r = await client.call_tool("bash", {"command": "cat /work/notes/a.txt"})
                assert _text(r).startswith("one\ntwo\n")  # rm is denied; the files are the server's
                await _exercise(client, issued=False)

        _run(main())


async def _isolation(a: Client, b: Client, issued: bool) -> None:
    """Two clients, the same session name: two shells, one filesystem."""
    r = await a.call_tool(
        "bash", {"command": "export SECRET=hunter2; cd /tmp; echo shared > /work/f", "session_id": "s1"}
    )
    assert r.structured_content is not None
    sid_a = r.structured_content["session_id"]
    r = await b.call_tool("bash", {"command": 'echo "[$SECRET]" $PWD; cat /work/f', "session_id": "s1"})
    assert r.structured_content is not None
    assert r.structured_content["stdout"] == "[] /work\nshared\n"
    assert (r.structured_content["session_id"] != sid_a) == issued
    r = await b.call_tool("read_file", {"path": "f", "session_id": r.structured_content["session_id"]})
    assert _text(r) == "shared\n"
    r = await a.call_tool("bash", {"command": "echo $SECRET $PWD", "session_id": sid_a})
    assert _text(r).startswith("hunter2 /tmp\n")


def test_http_clients_do_not_share_shells(tmp_path: Path) -> None:
    with http_server(_server_args(tmp_path)) as url:

        async def main() -> None:
            for mode, issued in (("legacy", False), ("auto", True)):
                async with Client(url, mode=mode) as a, Client(url, mode=mode) as b:
                    await _isolation(a, b, issued)

        _run(main())


def test_stdio_servers_do_not_share_shells(tmp_path: Path) -> None:
    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=_server_args(tmp_path))
        async with Client(params) as a, Client(params) as b:
            r = await a.call_tool("bash", {"command": "export SECRET=hunter2", "session_id": "s1"})
            r = await b.call_tool("bash", {"command": 'echo "[$SECRET]"', "session_id": "s1"})
            assert _text(r).startswith("[]\n")

    _run(main())


def test_bearer_token_and_allowed_hosts(tmp_path: Path) -> None:
    args = [*_server_args(tmp_path), "--allowed-host", "127.0.0.1:*", "--allowed-host", "sandbash.test:*"]
    with http_server(args, env={"SANDBASH_MCP_TOKEN": TOKEN}) as url:
        probe = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        port = url.split(":")[2].split("/")[0]
        cases = [
            ({}, 401),
            ({"Authorization": "Bearer wrong-token-0123456789"}, 401),
            ({"Authorization": TOKEN}, 401),
            ({"Authorization": f"Basic {TOKEN}"}, 401),
            ({"Authorization": f"Bearer {TOKEN}", "Host": f"evil.example:{port}"}, 421),
            ({"Authorization": f"Bearer {TOKEN}", "Host": "localhost"}, 421),
            ({"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}, 403),
        ]
        with httpx2.Client(timeout=30) as http:
            for headers, status in cases:
                resp = http.post(url, json=probe, headers={**accept, **headers})
                assert resp.status_code == status, (headers, resp.status_code, resp.text)
            for host in (f"sandbash.test:{port}", f"127.0.0.1:{port}"):
                resp = http.post(
                    url, json=probe, headers={**accept, "Authorization": f"Bearer {TOKEN}", "Host": host}
                )
                assert resp.status_code not in (401, 403, 421), (host, resp.status_code)

        async def main() -> None:
            async with _client(url, TOKEN) as client:
                r = await client.call_tool("bash", {"command": "echo ok"})
                assert _text(r) == "ok\n[exit code: 0]"
            with pytest.raises(Exception):  # noqa: B017 - the SDK's error type for a 401 varies
                async with _client(url, None) as client:
                    await client.call_tool("bash", {"command": "echo ok"})

        _run(main())


@pytest.mark.parametrize(
    "flags, env, message",
    [
        (["--host", "0.0.0.0"], {}, "a bearer token is required"),
        (["--host", "192.0.2.7", "--allowed-host", "x:*"], {}, "a bearer token is required"),
        (["--host", "::"], {"SANDBASH_MCP_TOKEN": TOKEN}, "list the Host names"),
        (["--host", "example.com", "--token", TOKEN], {}, "list the Host names"),
        (
            ["--host", "0.0.0.0", "--allowed-host", "h:*"],
            {"SANDBASH_MCP_TOKEN": "short"},
            "at least 16 characters",
        ),
        (["--token", "short"], {}, "at least 16 characters"),
    ],
)
def test_public_address_needs_token_and_hosts(flags: list[str], env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        config_from_args(["--transport", "http", *flags], lambda p: "", env)


@pytest.mark.parametrize(
    "flags, env",
    [
        (["--host", "0.0.0.0", "--allowed-host", "mcp.example:*"], {"SANDBASH_MCP_TOKEN": TOKEN}),
        (["--host", "::", "--allowed-host", "h", "--token", TOKEN], {}),
        (["--host", "127.0.0.2"], {}),
        (["--host", "::1"], {}),
        (["--host", "localhost"], {}),
    ],
)
def test_accepted_http_addresses(flags: list[str], env: dict[str, str]) -> None:
    cfg = config_from_args(["--transport", "http", *flags], lambda p: "", env)
    assert cfg.token == (env.get("SANDBASH_MCP_TOKEN") or (TOKEN if "--token" in flags else None))


def test_public_address_refused_before_listening() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SANDBASH_MCP_TOKEN"}
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "sandbash",
            "mcp",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--port",
            str(free_port()),
        ],
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert p.returncode == 2 and b"bearer token is required" in p.stderr and b"Traceback" not in p.stderr


def test_root_starts_in_the_users_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "f.txt").write_text("abc\n")

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "sandbash", "mcp", "--root", str(project)]
        )
        async with Client(params) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "The user's directory is the root /" in (tools["bash"].description or "")
            assert (tools["bash"].description or "").count(
                "starts in"
            ) == 1  # said once: "Each call starts in /."
            assert "Each call starts in /." in (tools["bash"].description or "")
            r = await client.call_tool(
                "bash", {"command": "pwd; ls -d f.txt src; sed -i s/a/b/ f.txt; cat f.txt"}
            )
            assert _text(r) == "/\nf.txt\nsrc\nbbc\n[exit code: 0]"
            r = await client.call_tool("list_dir", {})
            assert {"f.txt\t4", "src/"} <= set(_text(r).splitlines())

    _run(main())
    assert (project / "f.txt").read_text() == "abc\n"  # copy-on-write: the host file is untouched


def test_help_documents_every_option_and_the_config_file() -> None:
    from sandbash.agent.mcp_server import _parser

    p = subprocess.run([sys.executable, "-m", "sandbash", "mcp", "--help"], capture_output=True, timeout=60)
    assert p.returncode == 0
    text = p.stdout.decode()
    for action in _parser()._actions:
        for flag in action.option_strings:
            assert flag in text
        assert action.help, action.option_strings
    for word in (
        "[sandbox]",
        "[limits]",
        "[network]",
        "[filesystem]",
        "[server]",
        "[policy]",
        "max_sessions",
        "session_idle_timeout",
        "token",
        "allowed_hosts",
        "SANDBASH_MCP_TOKEN",
        "SANDBASH_ALLOWED_COMMANDS",
    ):
        assert word in text, word


def test_config_file_and_flags() -> None:
    cfg = ServerConfig.from_toml(
        CONFIG + '\n[network]\nallow_urls = ["https://api.example.com/"]\n'
        '[server]\ntoken = "' + TOKEN + '"\nallowed_hosts = ["a.example:*"]\n'
    )
    assert cfg.cwd == "/work" and cfg.limits == {"max_loop_iterations": 500, "timeout": 20}
    assert cfg.build_limits().timeout == 20 and cfg.allow_urls == ["https://api.example.com/"]
    assert cfg.token == TOKEN and cfg.allowed_hosts == ["a.example:*"]
    cfg = ServerConfig.from_toml(
        "[sandbox]\nmax_sessions = 3\nsession_idle_timeout = 60\nmax_sessions_memory = 5000000\n"
    )
    tool = build_tool(cfg)
    assert tool.max_sessions == 3 and tool.session_idle_timeout == 60 and tool.max_sessions_memory == 5000000
    args = ["--max-sessions", "5", "--session-idle-timeout", "9", "--max-sessions-memory", "7000000"]
    cfg = config_from_args([*args, "--max-concurrent-calls", "3"], lambda p: "", {})
    assert (cfg.max_sessions, cfg.session_idle_timeout, cfg.max_sessions_memory) == (5, 9, 7000000)
    assert build_tool(cfg).max_concurrent_calls == 3
    assert (
        build_tool(ServerConfig.from_toml("[sandbox]\nmax_concurrent_calls = 4\n")).max_concurrent_calls == 4
    )
    default = build_tool(ServerConfig())
    assert (default.max_sessions_memory, default.max_concurrent_calls) == (1 << 30, 8)
    cfg = config_from_args(["--limit", "timeout=2m", "--limit", "max_output_size=50MB"], lambda p: "", {})
    assert cfg.build_limits().timeout == 120 and cfg.build_limits().max_output_size == 50 * 1024**2
    with pytest.raises(ValueError, match="unknown limit 'max_nope'"):
        config_from_args(["--limit", "max_nope=1"], lambda p: "", {})
    with pytest.raises(ValueError, match="unknown setting"):
        ServerConfig.from_toml("[server]\nprot = 1\n")
    with pytest.raises(ValueError, match="unknown section"):
        ServerConfig.from_toml("[sever]\n")


POLICIES = [
    'mode = "read-only"\n[commands]\ndeny = ["sed"]\n',
    'name = "agent"\npaths = ["/data:ro", "/work:rw"]\ncommands = ["cat", "grep", "ls"]\n',
    'mode = "remediation"\n[commands]\nallow = ["cat", "jq"]\ndeny = ["rm"]\n',
    '[paths]\nro = ["/data"]\nrw = ["/out"]\n',
    'implicit_builtins = false\ncommands = ["echo"]\n',
]


def _as_table(policy_toml: str) -> str:
    """The policy file's text as the MCP config's [policy] table."""
    out = ["[policy]"]
    for line in policy_toml.splitlines():
        out.append(f"[policy.{line[1:-1]}]" if line.startswith("[") else line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("policy_toml", POLICIES)
def test_policy_table_is_the_policy_file_format(
    policy_toml: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in (
        "SANDBASH_ALLOWED_COMMANDS",
        "SANDBASH_DENIED_COMMANDS",
        "SANDBASH_ALLOWED_PATHS",
        "SANDBASH_MODE",
    ):
        monkeypatch.delenv(var, raising=False)
    from sandbash.policy import Policy

    (tmp_path / "p.toml").write_text(policy_toml)
    (tmp_path / "c.toml").write_text(_as_table(policy_toml))
    read = lambda p: Path(p).read_text()  # noqa: E731
    from_file = build_tool(config_from_args(["--policy", str(tmp_path / "p.toml")], read, {}))
    from_table = build_tool(config_from_args(["--config", str(tmp_path / "c.toml")], read, {}))
    table = tomllib.loads(_as_table(policy_toml))["policy"]
    assert Policy.from_mapping(table).describe() == Policy.from_toml(policy_toml).describe()
    assert from_file.bash.policy is not None and from_table.bash.policy is not None
    assert from_file.bash.policy.describe() == from_table.bash.policy.describe()
    assert from_file.available_commands() == from_table.available_commands()


def test_bad_policy_table_is_reported(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('[policy]\nmood = "x"\n')
    p = subprocess.run(
        [sys.executable, "-m", "sandbash", "mcp", "--config", str(tmp_path / "c.toml")],
        capture_output=True,
        timeout=60,
    )
    assert p.returncode == 2 and b"unknown policy key(s): mood" in p.stderr and b"Traceback" not in p.stderr


def test_policy_file_wins_over_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SANDBASH_ALLOWED_COMMANDS", raising=False)
    files = {"c.toml": CONFIG, "p.toml": 'mode = "read-only"\n[commands]\ndeny = ["sed"]\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cfg = config_from_args(
        ["--config", str(tmp_path / "c.toml"), "--policy", str(tmp_path / "p.toml")],
        lambda p: Path(p).read_text(),
    )
    tool = build_tool(cfg)
    assert "sed" not in tool.available_commands() and "grep" in tool.available_commands()
    assert "read-only" in tool.description()
    monkeypatch.setenv("SANDBASH_ALLOWED_COMMANDS", "echo,cat")
    names = build_tool(cfg).available_commands()
    assert "cat" in names and "echo" in names and "grep" not in names


def test_bad_config_is_reported() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "sandbash", "mcp", "--config", "/nonexistent/x.toml"],
        capture_output=True,
        timeout=60,
    )
    assert p.returncode == 2 and b"sandbash mcp:" in p.stderr


def test_file_tools_after_a_run_that_hit_its_deadline() -> None:
    """A finished run's deadline never reaches the file tools (issue 22: it used to raise the
    interpreter's Cancelled outside any run and tear the server down)."""
    from sandbash.agent.mcp_server import build_server

    cfg = ServerConfig()
    cfg.limits = {"timeout": 1}
    deep = "/tmp/" + "/".join(["d"] * 80)

    async def main() -> None:
        async with Client(build_server(build_tool(cfg))) as client:
            r = await client.call_tool("bash", {"command": f"mkdir -p {deep} && echo x > {deep}/f"})
            assert not r.is_error, _text(r)
            for _ in range(2):
                r = await client.call_tool("bash", {"command": "sleep 5", "session_id": "s"})
                assert r.structured_content is not None and r.structured_content["limit"] == "timeout"
            await asyncio.sleep(1.5)  # past the finished runs' deadlines
            r = await client.call_tool("read_file", {"path": f"{deep}/f", "session_id": "s"})
            assert _text(r) == "x\n"
            r = await client.call_tool("list_dir", {"path": deep})
            assert _text(r) == "f\t2"
            r = await client.call_tool("write_file", {"path": f"{deep}/g", "content": "y"})
            assert not r.is_error and _text(r).endswith("/g")
            r = await client.call_tool("bash", {"command": f"cat {deep}/g"})
            assert _text(r) == "y\n[exit code: 0]"

    _run(main())


@pytest.mark.parametrize(
    "root, mounts, cwd, note",
    [
        (None, [], "/home/user", ""),
        (
            "/srv/p",
            [],
            "/",
            "The user's directory is the root / (a copy-on-write view: changes stay in the sandbox).",
        ),
        (
            None,
            ["./data:/data:ro", "/o:/out:rw", "/c:/cow"],
            "/data",
            "The user's directory /data is mounted read-only; the user's directory /out is mounted read-write; "
            "the user's directory /cow is mounted copy-on-write.",
        ),
    ],
)
def test_the_description_says_where_the_files_are(
    root: str | None, mounts: list[str], cwd: str, note: str
) -> None:
    from sandbash.agent.mcp_server import files_note

    cfg = ServerConfig(root=root, mounts=mounts, cwd=cwd if mounts else None)
    assert cfg.start_cwd() == cwd
    assert files_note(cfg) == note


def test_stdio_answers_every_request_read_before_the_end_of_input(tmp_path: Path) -> None:
    """A client that writes its requests and closes stdin (`printf ... | sandbash mcp`)
    gets every answer: the end of input waits for the calls still running, where the SDK
    alone would cancel them ("Connection closed"). A cancelled request is not waited for."""
    import json

    def req(rid: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }

    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        req(2, "bash", {"command": "sleep 1; echo slow"}),
        req(3, "bash", {"command": "echo fast; exit 3"}),
        req(4, "list_dir", {"path": "/"}),
        req(5, "bash", {"command": "x", "cwd": "/"}),
        req(6, "bash", {"command": "sleep 600"}),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}},
    ]
    data = "".join(json.dumps(m) + "\n" for m in lines).encode()
    p = subprocess.run(
        [sys.executable, *_server_args(tmp_path)], input=data, capture_output=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    answers = {m["id"]: m for m in map(json.loads, p.stdout.decode().splitlines())}
    assert sorted(answers) == [1, 2, 3, 4, 5]
    assert "slow" in answers[2]["result"]["content"][0]["text"]
    assert answers[3]["result"]["isError"] and answers[3]["result"]["structuredContent"]["exit_code"] == 3
    assert not answers[4]["result"]["isError"]
    assert answers[5]["result"]["content"][0]["text"] == "input: unknown property 'cwd'"


def test_http_server_says_where_it_listens() -> None:
    """uvicorn logs only warnings: once listening, the server names its URL on stderr
    (a newcomer running `sandbash mcp --transport http` otherwise saw nothing at all)."""
    import threading

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbash", "mcp", "--transport", "http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    lines: list[bytes] = []
    try:
        err = proc.stderr
        assert err is not None
        reader = threading.Thread(target=lambda: lines.append(err.readline()), daemon=True)
        reader.start()
        reader.join(60)
        assert lines == [f"sandbash mcp: serving on http://127.0.0.1:{port}/mcp\n".encode()]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
