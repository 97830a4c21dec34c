"""One tool contract (T-MCP-4: a bad call is one clear line, not a validation dump): the same inputs through `BashTool`, the MCP `bash` tool
(the official client, in process), and every adapter give the same text, and a
non-zero exit, a limit or bad input is marked as an error wherever the
framework has a flag for it, and every call, refused or not, is one `tool.call`
audit record (MCP `isError`, Anthropic `is_error`, LangChain
`ToolMessage.status`, a pydantic-ai retry for bad input). OpenAI's function
outputs and pydantic-ai's tool returns have no error flag: the text carries
`[exit code: N]`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from sandbash import Limits
from sandbash.agent.tool import TOOL_CALL, BashTool, ToolInputError
from sandbash.audit import Audit, ListSink

Outcome = tuple[str, bool | None]  # (text, error flag; None where the framework has none)
Driver = Callable[[BashTool, dict[str, Any]], Outcome]

CASES: list[tuple[str, dict[str, Any], str, bool]] = [
    ("ok", {"command": "echo hi"}, "hi\n[exit code: 0]", False),
    ("non-zero", {"command": "echo out; echo err >&2; exit 3"}, "out\nSTDERR:\nerr\n[exit code: 3]", True),
    (
        "not found",
        {"command": "nosuchcmd"},
        "STDERR:\nbash: line 1: nosuchcmd: command not found\n[exit code: 127]",
        True,
    ),
    (
        "failed read",
        {"command": "cat /missing"},
        "STDERR:\ncat: /missing: No such file or directory\n[exit code: 1]",
        True,
    ),
    ("false", {"command": "false"}, "(no output)\n[exit code: 1]", True),
    (
        "limit",
        {"command": "while :; do :; done"},
        "STDERR:\nbash: sandbash limit exceeded: max_loop_iterations",
        True,
    ),
    (
        "result json",
        {"command": "echo '__RESULT__:{\"a\": 1}'"},
        '__RESULT__:{"a": 1}\n[exit code: 0]',
        False,
    ),
    ("null is absent", {"command": "echo n", "timeout_ms": None, "env": None}, "n\n[exit code: 0]", False),
    ("env", {"command": "echo $A", "env": {"A": "x y"}}, "x y\n[exit code: 0]", False),
    (
        "files",
        {"command": "cat a.txt", "files": [{"path": "a.txt", "content": "in\n"}]},
        "in\n[exit code: 0]",
        False,
    ),
    ("unknown key", {"command": "echo x", "bogus": 1}, "input: unknown property 'bogus'", True),
    (
        "two unknown keys",
        {"command": "echo x", "cwd": "/", "shell": "sh"},
        "input: unknown property 'cwd'",
        True,
    ),
    ("missing command", {"timeout_ms": 5}, "input: missing required property 'command'", True),
    ("command type", {"command": 5}, "input.command: expected string, got int", True),
    ("command list", {"command": ["ls"]}, "input.command: expected string, got list", True),
    (
        "timeout type",
        {"command": "x", "timeout_ms": "5"},
        "input.timeout_ms: expected integer, got str",
        True,
    ),
    (
        "timeout bool",
        {"command": "x", "timeout_ms": True},
        "input.timeout_ms: expected integer, got bool",
        True,
    ),
    ("timeout zero", {"command": "x", "timeout_ms": 0}, "input.timeout_ms: must be at least 1", True),
    ("env value", {"command": "x", "env": {"A": 1}}, "input.env.A: expected string, got int", True),
    (
        "env name",
        {"command": "x", "env": {"A-B": "1"}, "session_id": "s"},
        "env: invalid variable name 'A-B'",
        True,
    ),
    (
        "file entry",
        {"command": "x", "files": [{"path": "a"}]},
        "input.files[0]: missing required property 'content'",
        True,
    ),
    (
        "file key",
        {"command": "x", "files": [{"path": "a", "content": "", "mode": 7}]},
        "input.files[0]: unknown property 'mode'",
        True,
    ),
    (
        "network flag",
        {"command": "x", "allow_network": "yes"},
        "input.allow_network: expected boolean, got str",
        True,
    ),
    ("output kb", {"command": "x", "max_output_kb": -1}, "input.max_output_kb: must be at least 1", True),
    (
        "long session id",
        {"command": "x", "session_id": "s" * 201},
        "input.session_id: longer than 200 characters",
        True,
    ),
    (
        "file too big",
        {"command": "x", "max_file_kb": 1, "files": [{"path": "b", "content": "x" * 2000}]},
        "files: b is larger than max_file_kb (1 KiB)",
        True,
    ),
]


def _tool() -> BashTool:
    return BashTool(
        limits=Limits.profile("default").with_overrides(max_loop_iterations=200),
        audit=Audit(sinks=[ListSink()]),
    )


def _direct(tool: BashTool, args: dict[str, Any]) -> Outcome:
    try:
        out = tool.run(args)
    except ToolInputError as e:
        return str(e), True
    return out.text(), out.is_error


def _mcp(tool: BashTool, args: dict[str, Any]) -> Outcome:
    pytest.importorskip("mcp")
    from mcp import Client

    from sandbash.agent.mcp_server import build_server

    async def call() -> Outcome:
        async with Client(build_server(tool)) as client:
            r = await client.call_tool("bash", args)
            return "".join(getattr(b, "text", "") for b in r.content), bool(r.is_error)

    return asyncio.run(asyncio.wait_for(call(), 60))


def _anthropic(tool: BashTool, args: dict[str, Any]) -> Outcome:
    from sandbash.agent.adapters.anthropic import AnthropicBash

    block = AnthropicBash(tool).tool_result({"type": "tool_use", "id": "t1", "name": "bash", "input": args})
    return block["content"], block["is_error"]


def _openai(tool: BashTool, args: dict[str, Any]) -> Outcome:
    from sandbash.agent.adapters.openai import OpenAIBash

    item = OpenAIBash(tool).function_call_output(
        {"type": "function_call", "call_id": "c1", "name": "bash", "arguments": json.dumps(args)}
    )
    return item["output"], None


def _openai_agents(tool: BashTool, args: dict[str, Any]) -> Outcome:
    pytest.importorskip("agents")
    from sandbash.agent.adapters.openai import OpenAIBash

    fn = OpenAIBash(tool).agents_function_tool()
    return asyncio.run(fn.on_invoke_tool(None, json.dumps(args))), None


def _langchain(tool: BashTool, args: dict[str, Any]) -> Outcome:
    pytest.importorskip("langchain_core")
    from sandbash.agent.adapters.langchain import SandbashTool

    msg = SandbashTool.from_tool(tool).invoke({"type": "tool_call", "id": "c1", "name": "bash", "args": args})
    return msg.content, msg.status == "error"


def _langchain_async(tool: BashTool, args: dict[str, Any]) -> Outcome:
    pytest.importorskip("langchain_core")
    from sandbash.agent.adapters.langchain import SandbashTool

    call = {"type": "tool_call", "id": "c1", "name": "bash", "args": args}
    msg = asyncio.run(SandbashTool.from_tool(tool).ainvoke(call))
    return msg.content, msg.status == "error"


def _pydantic_ai(tool: BashTool, args: dict[str, Any]) -> Outcome:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import ModelRetry

    from sandbash.agent.adapters.pydantic_ai import sandbash_toolset

    fn: Any = sandbash_toolset(tool).tools["bash"].function  # the toolset's own coroutine
    try:
        return asyncio.run(fn(**args)), None
    except ModelRetry as e:  # bad input: the model is asked to try again, with the same line
        return str(e), True


DRIVERS: dict[str, Driver] = {
    "BashTool": _direct,
    "mcp": _mcp,
    "anthropic": _anthropic,
    "openai": _openai,
    "openai-agents": _openai_agents,
    "langchain": _langchain,
    "langchain-async": _langchain_async,
    "pydantic-ai": _pydantic_ai,
}


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("name, args, text, error", CASES, ids=[c[0] for c in CASES])
def test_same_input_same_answer(driver: str, name: str, args: dict[str, Any], text: str, error: bool) -> None:
    tool = _tool()
    got_text, got_error = DRIVERS[driver](tool, dict(args))
    if name == "limit":
        assert got_text.startswith(text) and "[limit exceeded: max_loop_iterations]" in got_text
    else:
        assert got_text == text
    bad_input = text.startswith(("input", "env:", "files:"))
    assert tool.audit is not None
    sink = tool.audit.sinks[0]
    assert isinstance(sink, ListSink)
    calls = [
        e.to_dict() for e in sink.events if e.kind == TOOL_CALL
    ]  # one audit record per call, refused or not
    assert len(calls) == 1 and (calls[0].get("error") == text if bad_input else "error" not in calls[0]), (
        calls
    )
    if got_error is not None:
        assert got_error is error
    else:  # no flag in this framework: an input error still reads as one
        assert not bad_input or got_text == text
