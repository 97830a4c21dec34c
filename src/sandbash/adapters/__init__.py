"""Framework adapters over `sandbash.tool.BashTool`, one module per framework,
each importing its library only when used (optional extras):

- `anthropic`: Claude's `bash` tool (`{"command", "restart"}`) -> tool_result blocks.
- `openai`: function-calling definitions, the Responses `shell` tool, the Agents SDK.
- `langchain`: a LangChain `BaseTool`.
- `pydantic_ai`: a pydantic-ai toolset.

The MCP server is `sandbash.mcp_server` (`sandbash mcp`).
"""
