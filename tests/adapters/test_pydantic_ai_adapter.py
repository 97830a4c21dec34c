"""The pydantic-ai toolset with the real `pydantic_ai` agent loop (a function model drives it)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from sandbash.agent.adapters.pydantic_ai import sandbash_toolset
from sandbash.agent.tool import INPUT_SCHEMA


def test_agent_runs_the_bash_tool() -> None:
    seen: dict[str, Any] = {}
    calls = iter(
        [
            {"command": "cd /tmp; echo hi > f; wc -c < f", "session_id": "s"},
            {"command": "pwd", "bogus": 1},
            {"command": "pwd; exit 3", "session_id": "s"},
        ]
    )

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen.setdefault("tools", info.function_tools)
        seen.setdefault("instructions", info.instructions)
        parts = messages[-1].parts
        seen.setdefault("returns", []).extend(
            p.content for p in parts if isinstance(p, ToolReturnPart | RetryPromptPart)
        )
        nxt = next(calls, None)
        if nxt is None:
            return ModelResponse(parts=[TextPart("finished")])
        return ModelResponse(parts=[ToolCallPart("bash", nxt)])

    agent = Agent(FunctionModel(model), toolsets=[sandbash_toolset()])
    result = agent.run_sync("go")
    assert result.output == "finished"
    tool = seen["tools"][0]
    assert tool.name == "bash" and tool.parameters_json_schema == INPUT_SCHEMA
    assert "sandbox" in (seen["instructions"] or "")
    returns = seen["returns"]
    assert returns[0] == "3\n[exit code: 0]"
    assert "unknown property 'bogus'" in str(returns[1])  # a retry prompt, not a crash
    assert returns[2] == "/tmp\n[exit code: 3]"
