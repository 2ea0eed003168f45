"""An MCP server over every session search covers: search, list, read and usage as an agent's tools."""
