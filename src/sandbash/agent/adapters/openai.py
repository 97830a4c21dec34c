"""OpenAI: function calling (Chat Completions and Responses), the Responses
`shell` tool, and the Agents SDK (`pip install 'sandbash[openai]'`).

    sb = OpenAIBash()
    # Responses API with the shell tool
    resp = client.responses.create(model=..., tools=[sb.shell_definition()], input=items)
    items += resp.output + sb.outputs(resp)
    # Chat Completions with a function tool
    done = client.chat.completions.create(model=..., tools=[sb.chat_function()], messages=msgs)
    msgs += [done.choices[0].message, *sb.chat_tool_messages(done.choices[0].message)]
    # Agents SDK
    agent = Agent(name="a", tools=[sb.agents_shell_tool()])   # or sb.agents_function_tool()

The `shell` tool's commands run one after another in the adapter's session;
each gets `{stdout, stderr, outcome}` (outcome `timeout` when the sandbox's
time limit stopped it). Only the Agents helpers import `agents`.
"""

from __future__ import annotations

import json

from ...aio import run_cancellable
from ...limits import CancelToken
from ..tool import BashTool, ToolInputError, ToolOutput, truncate_middle
from ._util import field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class OpenAIBash:
    """One client of `tool`: its shells (the default one, `session_id`, and any the model
    names) are kept in this adapter's own scope, so adapters sharing one BashTool share
    files but never shell state."""

    def __init__(
        self, tool: BashTool | None = None, *, session_id: str | None = None, name: str = "bash"
    ) -> None:
        self.tool = tool or BashTool()
        self.session_id = session_id or self.tool.new_session_id()
        self.name = name

    # -------------------------------------------------------------- definitions

    def chat_function(self) -> dict[str, Any]:
        """A Chat Completions `tools` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.tool.description(),
                "parameters": self.tool.input_schema,
            },
        }

    def responses_function(self) -> dict[str, Any]:
        """A Responses API function tool (not strict: most properties are optional)."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.tool.description(),
            "parameters": self.tool.input_schema,
            "strict": False,
        }

    @staticmethod
    def shell_definition() -> dict[str, Any]:
        """The Responses `shell` tool, executed here (a local environment)."""
        return {"type": "shell", "environment": {"type": "local"}}

    # -------------------------------------------------------------- running calls

    def call(self, arguments: str | dict[str, Any], cancel: CancelToken | None = None) -> ToolOutput | str:
        """One function call's JSON arguments -> the tool output, or the one-line error
        text `BashTool` gives for the same input (these APIs have no error flag)."""
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError as e:
            return self._refused(f"input: invalid JSON arguments: {e}")
        if not isinstance(args, dict):
            return self._refused(f"input: expected object, got {type(args).__name__}")
        args = {"session_id": self.session_id, **args}
        try:
            return self.tool.run(args, cancel=cancel, scope=self.session_id)
        except ToolInputError as e:
            return str(e)

    def _refused(self, message: str) -> str:
        self.tool.record_refused({}, message)  # still a call: the audit sees it
        return message

    def _text(self, arguments: str | dict[str, Any], cancel: CancelToken | None = None) -> str:
        out = self.call(arguments, cancel)
        return out if isinstance(out, str) else out.text()

    def function_call_output(self, item: object) -> dict[str, Any]:
        """A Responses `function_call` item -> its `function_call_output` input item."""
        return {
            "type": "function_call_output",
            "call_id": field(item, "call_id"),
            "output": self._text(field(item, "arguments") or "{}"),
        }

    def shell_commands(
        self,
        commands: list[str],
        timeout_ms: int | None = None,
        max_output_length: int | None = None,
        cancel: CancelToken | None = None,
    ) -> list[dict[str, Any]]:
        """Run a shell call's commands in turn: one `{stdout, stderr, outcome}` each."""
        results = []
        for command in commands:
            request: dict[str, Any] = {"command": command, "session_id": self.session_id}
            if timeout_ms:
                request["timeout_ms"] = timeout_ms
            try:
                out = self.tool.run(request, cancel=cancel, scope=self.session_id)
            except ToolInputError as e:  # e.g. a command that is not a string: the model reads why
                results.append(
                    {"stdout": "", "stderr": f"{e}\n", "outcome": {"type": "exit", "exit_code": 2}}
                )
                continue
            stdout, stderr = out.stdout, out.stderr
            if max_output_length:
                stdout = truncate_middle(stdout, max_output_length)[0]
                stderr = truncate_middle(stderr, max_output_length)[0]
            outcome = (
                {"type": "timeout"}
                if out.limit == "timeout"
                else {"type": "exit", "exit_code": out.exit_code}
            )
            results.append({"stdout": stdout, "stderr": stderr, "outcome": outcome})
        return results

    def shell_call_output(self, item: object) -> dict[str, Any]:
        """A Responses `shell_call` item -> its `shell_call_output` input item."""
        action = field(item, "action") or {}
        limit = field(action, "max_output_length")
        output: dict[str, Any] = {
            "type": "shell_call_output",
            "call_id": field(item, "call_id"),
            "output": self.shell_commands(
                list(field(action, "commands") or []), field(action, "timeout_ms"), limit
            ),
        }
        if limit:
            output["max_output_length"] = limit
        return output

    def outputs(self, response: object) -> list[dict[str, Any]]:
        """The input items answering every `shell_call` and `function_call` (of this
        tool) in a Responses API response (or its `output` list)."""
        items: list[object] = field(response, "output", response)
        answers = []
        for item in items:
            kind = field(item, "type")
            if kind == "shell_call":
                answers.append(self.shell_call_output(item))
            elif kind == "function_call" and field(item, "name") == self.name:
                answers.append(self.function_call_output(item))
        return answers

    def chat_tool_messages(self, message: object) -> list[dict[str, Any]]:
        """`role: tool` messages answering a Chat Completions assistant message's tool calls."""
        answers = []
        for call in field(message, "tool_calls") or []:
            fn = field(call, "function")
            if field(fn, "name") == self.name:
                answers.append(
                    {
                        "role": "tool",
                        "tool_call_id": field(call, "id"),
                        "content": self._text(field(fn, "arguments") or "{}"),
                    }
                )
        return answers

    # -------------------------------------------------------------- Agents SDK

    def agents_shell_tool(self) -> Any:
        """An Agents SDK `ShellTool` whose commands run in this sandbox."""
        from agents import ShellCallOutcome, ShellCommandOutput, ShellCommandRequest, ShellResult, ShellTool

        async def executor(request: ShellCommandRequest) -> ShellResult:
            action = request.data.action
            runs = await run_cancellable(
                lambda token: self.shell_commands(
                    list(action.commands), action.timeout_ms, action.max_output_length, token
                )
            )
            outputs = [
                ShellCommandOutput(
                    stdout=r["stdout"],
                    stderr=r["stderr"],
                    command=cmd,
                    outcome=ShellCallOutcome(
                        type=r["outcome"]["type"], exit_code=r["outcome"].get("exit_code")
                    ),
                )
                for cmd, r in zip(action.commands, runs, strict=True)
            ]
            return ShellResult(output=outputs, max_output_length=action.max_output_length)

        return ShellTool(executor=executor)

    def agents_function_tool(self) -> Any:
        """An Agents SDK `FunctionTool` with the full tool contract."""
        from agents import FunctionTool

        async def invoke(_ctx: Any, arguments: str) -> str:
            return await run_cancellable(lambda token: self._text(arguments, token))

        return FunctionTool(
            name=self.name,
            description=self.tool.description(),
            params_json_schema=self.tool.input_schema,
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )
