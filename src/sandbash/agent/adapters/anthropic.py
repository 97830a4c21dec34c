"""Claude's `bash` tool on a sandbox session (`pip install 'sandbash[anthropic]'`).

    bash = AnthropicBash()
    msg = client.messages.create(model=..., tools=[bash.definition()], messages=messages, ...)
    messages += [{"role": "assistant", "content": msg.content},
                 {"role": "user", "content": bash.tool_results(msg)}]

The model sends `{"command": ...}` or `{"restart": true}`; each call runs in
one sandbox session (cwd, variables and functions persist, as in the tool's
reference implementation), and comes back as a `tool_result` block with
`is_error` set for a non-zero exit or a limit. This module does not import
`anthropic`: it reads the SDK's objects (or plain dicts) by field name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..tool import INPUT_SCHEMA, BashTool, ToolInputError, validate
from ._util import field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BASH_TOOL_TYPE = "bash_20250124"
RESTARTED = "bash tool has been restarted."
# Claude may send `{"restart": true}` alone; everything else is the tool contract's input
_RESTART_SCHEMA = {**INPUT_SCHEMA, "required": []}


class AnthropicBash:
    def __init__(
        self,
        tool: BashTool | None = None,
        *,
        session_id: str | None = None,
        tool_type: str = BASH_TOOL_TYPE,
        name: str = "bash",
    ) -> None:
        self.tool = tool or BashTool()
        self.session_id = session_id or self.tool.new_session_id()
        self.tool_type = tool_type
        self.name = name

    def definition(self) -> dict[str, Any]:
        """Anthropic's schema-less bash tool (the model knows its input shape)."""
        return {"type": self.tool_type, "name": self.name}

    def custom_definition(self) -> dict[str, Any]:
        """The full tool contract as a custom tool, for models or gateways without the built-in type."""
        return {
            "name": self.name,
            "description": self.tool.description(),
            "input_schema": self.tool.input_schema,
        }

    def run(self, tool_input: Mapping[str, Any]) -> tuple[str, bool]:
        """(text, is_error) for one call's input: the tool contract's input (`command` may be
        left out when `restart` is true), judged by the same validator as `BashTool`."""
        request = {k: v for k, v in tool_input.items() if v is not None}
        try:
            validate(request, _RESTART_SCHEMA)
        except ToolInputError as e:
            self.tool.record_refused(request, str(e))
            return str(e), True
        try:
            if request.pop("restart", False):
                self.tool.restart(self.session_id, scope=self.session_id)
                if "command" not in request:
                    return RESTARTED, False
            request["session_id"] = self.session_id
            out = self.tool.run(request, scope=self.session_id)  # this adapter is one client
        except ToolInputError as e:
            return str(e), True
        return out.text(), out.is_error

    def tool_result(self, block: object) -> dict[str, Any]:
        """The `tool_result` block answering one `tool_use` block."""
        text, is_error = self.run(field(block, "input") or {})
        return {
            "type": "tool_result",
            "tool_use_id": field(block, "id"),
            "content": text,
            "is_error": is_error,
        }

    def tool_results(self, message: object) -> list[dict[str, Any]]:
        """`tool_result` blocks for every call of this tool in an assistant message
        (a `Message` or its `content` list), for the next user turn."""
        content: Iterable[object] = field(message, "content", message)
        return [
            self.tool_result(b)
            for b in content
            if field(b, "type") == "tool_use" and field(b, "name") == self.name
        ]
