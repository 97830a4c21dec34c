"""A pydantic-ai toolset (`pip install 'sandbash[pydantic-ai]'`).

    agent = Agent(model, toolsets=[sandbash_toolset()])

One `bash` tool with the full tool contract as its JSON schema, plus the
sandbox's system-prompt section as the toolset's instructions. Invalid input
asks the model to retry; a failing script is an ordinary result (the model
reads the exit code).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import ModelRetry, Tool
from pydantic_ai.toolsets import FunctionToolset

from ..aio import run_cancellable
from ..tool import BashTool, ToolInputError


def sandbash_toolset(tool: BashTool | None = None, *, instructions: bool = True) -> FunctionToolset[Any]:
    bash_tool = tool or BashTool()

    async def bash(**arguments: Any) -> str:
        try:
            out = await run_cancellable(lambda token: bash_tool.run(arguments, cancel=token))
        except ToolInputError as e:
            raise ModelRetry(str(e)) from None
        return out.text()

    definition = Tool.from_schema(bash, name=bash_tool.name, description=bash_tool.description(),
                                  json_schema=bash_tool.input_schema)
    return FunctionToolset([definition], instructions=bash_tool.system_prompt() if instructions else None)
