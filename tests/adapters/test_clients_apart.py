"""T-MCP-5: adapters that share one BashTool are separate clients: each keeps its shells in
its own scope, so a second adapter naming the same `session_id` (or using its
default session) never sees the first one's exported secret, cwd or functions,
while both see the same files. The first adapter's own shell keeps its state
(so the check is not vacuous)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from sandbash.agent.tool import BashTool

Call = Callable[[str], str]  # command -> the text the model reads
Factory = Callable[[BashTool, str | None], Call]  # (shared tool, session name the model uses) -> a client

SETUP = "export SECRET=hunter2; cd /tmp; greet() { echo hi; }; echo shared > /tmp/shared.txt"
PROBE = 'echo "[${SECRET-}]"; pwd; type -t greet || echo none; cat /tmp/shared.txt'


def _openai_function(tool: BashTool, sid: str | None) -> Call:
    from sandbash.agent.adapters.openai import OpenAIBash

    sb = OpenAIBash(tool)

    def call(command: str) -> str:
        args = {"command": command} | ({"session_id": sid} if sid else {})
        return str(sb.function_call_output({"call_id": "c", "arguments": json.dumps(args)})["output"])

    return call


def _openai_shell(tool: BashTool, _sid: str | None) -> Call:
    from sandbash.agent.adapters.openai import OpenAIBash

    sb = OpenAIBash(tool)
    return lambda command: "".join(r["stdout"] + r["stderr"] for r in sb.shell_commands([command]))


def _anthropic(tool: BashTool, _sid: str | None) -> Call:
    from sandbash.agent.adapters.anthropic import AnthropicBash

    bash = AnthropicBash(tool)
    # the model may send a session_id too: the adapter keeps its own session
    return lambda command: bash.run({"command": command, "session_id": "s1"})[0]


def _langchain(tool: BashTool, sid: str | None) -> Call:
    pytest.importorskip("langchain_core")
    from sandbash.agent.adapters.langchain import SandbashTool

    lc = SandbashTool.from_tool(tool)
    return lambda command: str(lc.invoke({"command": command} | ({"session_id": sid} if sid else {})))


def _pydantic_ai(tool: BashTool, sid: str | None) -> Call:
    pytest.importorskip("pydantic_ai")
    from sandbash.agent.adapters.pydantic_ai import sandbash_toolset

    fn: Any = sandbash_toolset(tool).tools["bash"].function
    return lambda command: str(asyncio.run(fn(command=command, **({"session_id": sid} if sid else {}))))


FACTORIES: dict[str, Factory] = {
    "openai-function": _openai_function,
    "openai-shell": _openai_shell,
    "anthropic": _anthropic,
    "langchain": _langchain,
    "pydantic-ai": _pydantic_ai,
}
NAMED = {"openai-function", "langchain", "pydantic-ai"}  # the model names sessions in these


@pytest.mark.parametrize("second", list(FACTORIES))
@pytest.mark.parametrize("first", list(FACTORIES))
def test_two_adapters_on_one_tool_share_files_not_shells(first: str, second: str) -> None:
    tool = BashTool()
    sid_a = "s1" if first in NAMED else None
    sid_b = "s1" if second in NAMED else None
    a = FACTORIES[first](tool, sid_a)
    b = FACTORIES[second](tool, sid_b)
    a(SETUP)
    if sid_a is not None or first in ("openai-shell", "anthropic"):  # a session: the state stays
        assert a(PROBE).startswith("[hunter2]\n/tmp\nfunction\nshared")
    seen = b(PROBE)
    assert seen.startswith("[]\n/home/user\nnone\nshared"), seen
    assert "hunter2" not in seen


def test_openai_shell_command_that_is_not_text() -> None:
    from sandbash.agent.adapters.openai import OpenAIBash

    sb = OpenAIBash()
    out = sb.shell_commands([5, "echo ok"])  # type: ignore[list-item]  # a malformed model call
    assert out[0] == {
        "stdout": "",
        "stderr": "input.command: expected string, got int\n",
        "outcome": {"type": "exit", "exit_code": 2},
    }
    assert out[1]["stdout"] == "ok\n" and out[1]["outcome"] == {"type": "exit", "exit_code": 0}


def test_an_explicit_scope_joins_a_client_again() -> None:
    pytest.importorskip("pydantic_ai")
    from sandbash.agent.adapters.pydantic_ai import sandbash_toolset

    tool = BashTool()
    first: Any = sandbash_toolset(tool, scope="user-42").tools["bash"].function
    again: Any = sandbash_toolset(tool, scope="user-42").tools["bash"].function
    asyncio.run(first(command="export N=7", session_id="s"))
    assert asyncio.run(again(command="echo $N", session_id="s")).startswith("7\n")
    assert tool.sessions(scope="user-42") == ["s"] and tool.sessions() == []
