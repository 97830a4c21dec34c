"""The agent-facing layer: the bash tool, its framework adapters, the MCP server and sandbox conveniences."""
