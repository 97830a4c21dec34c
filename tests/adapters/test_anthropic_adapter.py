"""Claude's bash tool through the real `anthropic` client."""

from __future__ import annotations

from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")

from sandbash.agent.adapters.anthropic import AnthropicBash  # noqa: E402
from sandbash.agent.tool import BashTool  # noqa: E402

from .conftest import ScriptedModel  # noqa: E402


def tool_use(i: int, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{i}",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "text", "text": "running"},
            {"type": "tool_use", "id": f"toolu_{i}", "name": "bash", "input": tool_input},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def last_result(body: dict[str, Any]) -> dict[str, Any]:
    block = body["messages"][-1]["content"][0]
    assert block["type"] == "tool_result"
    return block


def test_agent_loop_with_the_bash_tool() -> None:
    seen: list[dict[str, Any]] = []

    def step(i: int, tool_input: dict[str, Any] | None) -> Any:
        def reply(body: dict[str, Any]) -> dict[str, Any]:
            if i > 1:
                seen.append(last_result(body))
            if tool_input is None:
                return {
                    "id": "msg_end",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [{"type": "text", "text": "done"}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                }
            return tool_use(i, tool_input)

        return reply

    model = ScriptedModel(
        step(1, {"command": "cd /tmp && printf 'a\\nb\\n' > f && wc -l f && x=5"}),
        step(2, {"command": "echo $PWD $x; ls nope"}),
        step(3, {"restart": True}),
        step(4, {"command": "echo $PWD [$x]; cat /tmp/f | wc -l"}),
        step(5, None),
    )
    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://model.test",
        http_client=httpx2.Client(transport=httpx2.MockTransport(model)),
    )
    bash = AnthropicBash()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "explore"}]
    for _ in range(10):
        msg = client.messages.create(
            model="claude-test", max_tokens=1024, tools=[bash.definition()], messages=messages
        )
        if msg.stop_reason != "tool_use":
            break
        messages += [
            {"role": "assistant", "content": msg.content},
            {"role": "user", "content": bash.tool_results(msg)},
        ]
    assert msg.content[0].text == "done"
    assert model.requests[0]["tools"] == [{"type": "bash_20250124", "name": "bash"}]
    assert [r["tool_use_id"] for r in seen] == ["toolu_1", "toolu_2", "toolu_3", "toolu_4"]
    assert seen[0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "2 f\n[exit code: 0]",
        "is_error": False,
    }
    assert seen[1]["is_error"] is True
    assert seen[1]["content"].startswith("/tmp 5\nSTDERR:\nls: cannot access 'nope'")
    assert seen[2] == {
        "type": "tool_result",
        "tool_use_id": "toolu_3",
        "content": "bash tool has been restarted.",
        "is_error": False,
    }
    assert seen[3]["content"] == "/home/user []\n2\n[exit code: 0]"
    # the assistant turn went back to the API as the SDK serialises it
    assert model.requests[1]["messages"][1]["content"][1]["type"] == "tool_use"


def test_custom_tool_definition_and_limits() -> None:
    bash = AnthropicBash(BashTool(limits="hardened"))
    definition = bash.custom_definition()
    assert definition["name"] == "bash" and definition["input_schema"]["required"] == ["command"]
    text, is_error = bash.run({"command": "while :; do :; done"})
    assert is_error and "[limit exceeded: max_" in text
    assert bash.run({}) == ("input: missing required property 'command'", True)
    assert bash.run({"command": "x", "bogus": 1})[1] is True
