"""A pydantic-ai toolset (`pip install 'sandbash[pydantic-ai]'`).

    agent = Agent(model, toolsets=[sandbash_toolset()])

One `bash` tool with the full tool contract as its JSON schema, plus the
sandbox's system-prompt section as the toolset's instructions. Invalid input
asks the model to retry; a failing script is an ordinary result (the model
reads the exit code). Each toolset is one client: the shells its model names by
`session_id` live in its own `scope` (default: a fresh unguessable one), so toolsets
sharing one BashTool share files, never shell state.
"""

from __future__ import annotations

from pydantic_ai import ModelRetry, Tool
from pydantic_ai.toolsets import FunctionToolset

from ...aio import run_cancellable
from ..tool import BashTool, ToolInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def sandbash_toolset(
    tool: BashTool | None = None, *, instructions: bool = True, scope: str | None = None
) -> FunctionToolset[Any]:
    bash_tool = tool or BashTool()
    client = scope if scope is not None else bash_tool.new_session_id()

    async def bash(**arguments: Any) -> str:
        try:
            out = await run_cancellable(lambda token: bash_tool.run(arguments, cancel=token, scope=client))
        except ToolInputError as e:
            raise ModelRetry(str(e)) from None
        return out.text()

    definition = Tool.from_schema(
        bash, name=bash_tool.name, description=bash_tool.description(), json_schema=bash_tool.input_schema
    )
    return FunctionToolset([definition], instructions=bash_tool.system_prompt() if instructions else None)
