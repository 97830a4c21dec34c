"""OpenAI: the real `openai` client (Responses shell tool, function calling) and the Agents SDK."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

openai = pytest.importorskip("openai")
httpx2 = pytest.importorskip("httpx2")

from sandbash.agent.adapters.openai import OpenAIBash  # noqa: E402
from sandbash.agent.tool import BashTool, Limits  # noqa: E402

from .conftest import ScriptedModel  # noqa: E402


def response(*output: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "status": "completed",
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def shell_call(call_id: str, commands: list[str], **action: Any) -> dict[str, Any]:
    return {
        "type": "shell_call",
        "id": f"sh_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "action": {"commands": commands, **action},
    }


def function_call(call_id: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": "bash",
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def item_of(body: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(i for i in body["input"] if isinstance(i, dict) and i.get("type") == kind)


def client_for(model: ScriptedModel) -> Any:
    return openai.OpenAI(
        api_key="test",
        base_url="http://model.test/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(model)),
    )


def test_responses_shell_tool_loop() -> None:
    model = ScriptedModel(
        lambda body: response(shell_call("c1", ["cd /tmp; echo one > f", "cat f; pwd", "cat nope"])),
        lambda body: response(shell_call("c2", ["seq 100"], max_output_length=20)),
        lambda body: response(message("all done")),
    )
    client = client_for(model)
    sb = OpenAIBash()
    items: list[Any] = [{"role": "user", "content": "go"}]
    for _ in range(5):
        resp = client.responses.create(model="gpt-test", tools=[sb.shell_definition()], input=items)
        answers = sb.outputs(resp)
        if not answers:
            break
        items += [*resp.output, *answers]
    assert resp.output_text == "all done"
    assert model.requests[0]["tools"] == [{"type": "shell", "environment": {"type": "local"}}]
    first = item_of(model.requests[1], "shell_call_output")
    assert first["call_id"] == "c1"
    assert first["output"] == [
        {"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "one\n/tmp\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {
            "stdout": "",
            "stderr": "cat: nope: No such file or directory\n",
            "outcome": {"type": "exit", "exit_code": 1},
        },
    ]
    second = [i for i in model.requests[2]["input"] if isinstance(i, dict) and i.get("call_id") == "c2"]
    capped = second[-1]
    assert capped["max_output_length"] == 20
    assert (
        capped["output"][0]["stdout"].startswith("1\n2\n")
        and "characters omitted" in capped["output"][0]["stdout"]
    )


def test_shell_timeout_outcome() -> None:
    sb = OpenAIBash(BashTool(limits=Limits(max_loop_iterations=10**9, max_command_count=10**9)))
    out = sb.shell_commands(["while :; do :; done", "echo after"], timeout_ms=200)
    assert out[0]["outcome"] == {"type": "timeout"}
    assert out[1] == {"stdout": "after\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}


def test_responses_function_tool() -> None:
    model = ScriptedModel(
        lambda body: response(function_call("f1", {"command": "echo '__RESULT__:[1,2]'; exit 4"})),
        lambda body: response(function_call("f2", {"command": "x", "nope": True})),
        lambda body: response(message("ok")),
    )
    client = client_for(model)
    sb = OpenAIBash()
    items: list[Any] = [{"role": "user", "content": "go"}]
    for _ in range(5):
        resp = client.responses.create(model="gpt-test", tools=[sb.responses_function()], input=items)
        answers = sb.outputs(resp)
        if not answers:
            break
        items += [*resp.output, *answers]
    tool_def = model.requests[0]["tools"][0]
    assert tool_def["type"] == "function" and tool_def["parameters"]["required"] == ["command"]
    out = item_of(model.requests[1], "function_call_output")
    assert out == {
        "type": "function_call_output",
        "call_id": "f1",
        "output": "__RESULT__:[1,2]\n[exit code: 4]",
    }
    bad = [i for i in model.requests[2]["input"] if isinstance(i, dict) and i.get("call_id") == "f2"][-1]
    assert bad["output"] == "input: unknown property 'nope'"


def test_chat_completions_function_tool() -> None:
    def completion(content: str | None, tool_calls: list[dict[str, Any]] | None) -> dict[str, Any]:
        return {
            "id": "chat_1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "message": {"role": "assistant", "content": content, "tool_calls": tool_calls},
                }
            ],
        }

    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "echo hi | rev"})},
    }
    model = ScriptedModel(lambda body: completion(None, [call]), lambda body: completion("bye", None))
    client = client_for(model)
    sb = OpenAIBash()
    msgs: list[Any] = [{"role": "user", "content": "go"}]
    for _ in range(3):
        done = client.chat.completions.create(model="gpt-test", tools=[sb.chat_function()], messages=msgs)
        answers = sb.chat_tool_messages(done.choices[0].message)
        if not answers:
            break
        msgs += [done.choices[0].message, *answers]
    assert done.choices[0].message.content == "bye"
    assert model.requests[0]["tools"][0]["function"]["name"] == "bash"
    assert model.requests[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "ih\n[exit code: 0]",
    }


agents = pytest.importorskip("agents")


def run_agent(tool: Any, *replies: Any) -> tuple[Any, ScriptedModel]:
    from agents import Agent, Runner, set_tracing_disabled
    from agents.models.openai_responses import OpenAIResponsesModel

    set_tracing_disabled(True)
    model = ScriptedModel(*replies)
    client = openai.AsyncOpenAI(
        api_key="test",
        base_url="http://model.test/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(model)),
    )
    agent = Agent(
        name="sandbox",
        instructions="use bash",
        tools=[tool],
        model=OpenAIResponsesModel(model="gpt-test", openai_client=client),
    )
    result = asyncio.run(Runner.run(agent, "go"))
    return result, model


def test_agents_sdk_shell_tool() -> None:
    sb = OpenAIBash()
    result, model = run_agent(
        sb.agents_shell_tool(),
        lambda body: response(shell_call("c1", ["x=7; echo $x", "echo $x; exit 2"])),
        lambda body: response(message("finished")),
    )
    assert result.final_output == "finished"
    assert model.requests[0]["tools"][0]["type"] == "shell"
    out = item_of(model.requests[1], "shell_call_output")
    assert out["call_id"] == "c1"
    assert [o["stdout"] for o in out["output"]] == ["7\n", "7\n"]
    assert out["output"][1]["outcome"] == {"type": "exit", "exit_code": 2}


def test_agents_sdk_function_tool() -> None:
    sb = OpenAIBash()
    result, model = run_agent(
        sb.agents_function_tool(),
        lambda body: response(function_call("f1", {"command": "printf 'a\\nb\\n' | wc -l"})),
        lambda body: response(message("two")),
    )
    assert result.final_output == "two"
    tool_def = model.requests[0]["tools"][0]
    assert tool_def["name"] == "bash" and tool_def["strict"] is False
    out = item_of(model.requests[1], "function_call_output")
    assert out["call_id"] == "f1" and "2\n[exit code: 0]" in json.dumps(out["output"]).replace("\\n", "\n")
