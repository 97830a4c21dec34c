"""The LangChain tool with the real `langchain_core` (a scripted chat model drives it)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from sandbash.agent.adapters.langchain import SandbashTool
from sandbash.agent.tool import BashTool


def test_tool_calls_from_a_chat_model_become_tool_messages() -> None:
    tool = SandbashTool()
    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": "bash",
                            "id": "c1",
                            "args": {
                                "command": "mkdir -p /w && cd /w && echo x > f && ls",
                                "session_id": "s",
                            },
                        },
                        {
                            "name": "bash",
                            "id": "c2",
                            "args": {"command": "pwd; echo '__RESULT__:{\"n\": 1}'", "session_id": "s"},
                        },
                    ],
                ),
                AIMessage(content="done"),
            ]
        )
    )
    history: list[BaseMessage] = [HumanMessage("go")]
    for _ in range(3):
        ai = model.invoke(history)
        history.append(ai)
        if not ai.tool_calls:
            break
        history += [tool.invoke(call) for call in ai.tool_calls]
    results = [m for m in history if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in results] == ["c1", "c2"]
    assert results[0].content == "f\n[exit code: 0]"
    assert results[1].content.startswith("/w\n")
    assert results[1].artifact["result_json"] == {"n": 1}
    assert history[-1].content == "done"


def test_schema_errors_and_async() -> None:
    tool = SandbashTool.from_tool(BashTool(files={"/d/a": "1\n"}))
    spec = convert_to_openai_tool(tool)["function"]
    assert spec["name"] == "bash" and spec["parameters"]["required"] == ["command"]
    assert "jq" in tool.description
    bad = tool.invoke({"type": "tool_call", "id": "c", "name": "bash", "args": {"command": "x", "what": 1}})
    assert bad.status == "error" and "unknown property 'what'" in bad.content
    assert asyncio.run(tool.ainvoke({"command": "cat /d/a; exit 1"})) == "1\n[exit code: 1]"
