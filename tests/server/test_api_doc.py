"""docs/api.md says what the registry declares: every route has a row, and the MCP tools
it names, and how many, are the registry's (counted from it here, never a literal)."""

from __future__ import annotations

import re
from pathlib import Path

from reme_workbench.ops import registry

API_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
           "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
           "nineteen": 19, "twenty": 20}


def test_the_page_names_every_mcp_tool_and_counts_them_right():
    declared = {op.name for op in registry.OPERATIONS if op.mcp}
    said = re.search(r"as (\w+) tools — (.+?) — with", API_PAGE, re.S)
    assert said, "docs/api.md: the MCP section says 'as N tools — `a`, `b`, … — with'"
    count, names = said.group(1), set(re.findall(r"`(\w+)`", said.group(2)))
    assert names == declared, f"named but not declared: {names - declared}; " \
                              f"declared but not named: {declared - names}"
    assert NUMBERS.get(count, count) in (len(declared), str(len(declared))), (
        f"docs/api.md says {count} tools; the registry declares {len(declared)}")


def test_every_route_of_the_registry_has_a_row():
    rows = [line for line in API_PAGE.splitlines() if line.startswith("| `")]
    for op in registry.OPERATIONS:
        for route in op.routes:
            shown = f"{route.method} {route.path}"
            assert any(shown in row or f"{route.method} {route.path.split('{')[0]}" in row
                       for row in rows), f"docs/api.md has no row for {shown} ({op.name})"
