"""A LangChain tool (`pip install 'sandbash[langchain]'`).

    tool = SandbashTool()                  # or SandbashTool.from_tool(BashTool(files=...))
    llm_with_tools = chat_model.bind_tools([tool])
    tool.invoke({"command": "ls /"})       # or a model's ToolCall -> ToolMessage

The model reads the text rendering; the structured tool output (stdout,
stderr, exit_code, result_json, ...) travels as the ToolMessage's artifact.
A non-zero exit or a limit gives the ToolMessage `status="error"` (as MCP's
`isError` and Anthropic's `is_error`), with the output and artifact kept; input
that breaks the tool contract gives `status="error"` with its one-line message.
Each SandbashTool is one client: the shells its model names by `session_id` live in
its own `scope`, so tools sharing one BashTool share files, never shell state.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, Field

from ...aio import run_cancellable
from ..tool import BashTool, ToolInputError, ToolOutput


class SandbashTool(BaseTool):  # type: ignore[misc, unused-ignore]  # BaseTool is Any without langchain
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "bash"
    description: str = ""
    bash_tool: BashTool = Field(default_factory=BashTool, exclude=True)
    scope: str = Field(default_factory=BashTool.new_session_id, exclude=True)  # this client's sessions
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True
    args_schema: Any = None  # filled with the tool contract's JSON schema

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        if not self.description:
            self.description = self.bash_tool.description()
        if self.args_schema is None:
            self.args_schema = self.bash_tool.input_schema

    @classmethod
    def from_tool(cls, tool: BashTool, **kw: Any) -> SandbashTool:
        return cls(bash_tool=tool, **kw)

    @staticmethod
    def _answer(out: ToolOutput) -> tuple[str, dict[str, Any]]:
        return out.text(), out.to_dict()

    @staticmethod
    def _mark(message: Any) -> Any:
        """A ToolMessage for a failed run gets status="error" (LangChain sets it only for exceptions)."""
        if isinstance(message, ToolMessage) and isinstance(message.artifact, dict):
            art = message.artifact
            if art.get("exit_code", 0) != 0 or art.get("limit") is not None:
                message.status = "error"
        return message

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._mark(super().run(*args, **kwargs))

    async def arun(self, *args: Any, **kwargs: Any) -> Any:
        return self._mark(await super().arun(*args, **kwargs))

    def _run(self, run_manager: Any = None, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        try:
            return self._answer(self.bash_tool.run(kwargs, scope=self.scope))
        except ToolInputError as e:
            raise ToolException(str(e)) from None

    async def _arun(self, run_manager: Any = None, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        try:
            out = await run_cancellable(
                lambda token: self.bash_tool.run(kwargs, cancel=token, scope=self.scope)
            )
            return self._answer(out)
        except ToolInputError as e:
            raise ToolException(str(e)) from None
