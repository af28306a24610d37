"""Tests of the HTTP API and the MCP server."""
