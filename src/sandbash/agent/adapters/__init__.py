"""Framework adapters over `sandbash.agent.tool.BashTool`, one module per framework,
each importing its library only when used (optional extras):

- `anthropic`: Claude's `bash` tool (`{"command", "restart"}`) -> tool_result blocks.
- `openai`: function-calling definitions, the Responses `shell` tool, the Agents SDK.
- `langchain`: a LangChain `BaseTool`.
- `pydantic_ai`: a pydantic-ai toolset.
- `cruvero`: Cruvero's `bash_exec` contract as a profile (`BashTool.cruvero()`).

All of them validate input with the tool contract's validator (one-line errors,
the same text as `BashTool`) and mark a non-zero exit or a limit as an error
wherever their framework has a flag for it.

The MCP server is `sandbash.agent.mcp_server` (`sandbash mcp`).
"""
