"""The CLI must start without importing the heavy stack (kept lazy for a fast --help)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ["networkx", "litellm", "faiss", "graspologic", "torch", "matplotlib", "ipywidgets", "pydantic", "yaml"]


def test_help_imports_no_heavy_module():
    code = (
        "import sys\n"
        "from reme_workbench.cli import cli\n"
        "try:\n"
        "    cli(['--help'], prog_name='reme-workbench')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('HEAVY=' + ','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Usage: reme-workbench" in out.stdout
    heavy = out.stdout.rsplit("HEAVY=", 1)[1].strip()
    assert heavy == "", f"--help imported heavy modules: {heavy}"


def test_console_script_help_lists_every_command():
    out = subprocess.run(
        [sys.executable, "-m", "reme_workbench", "--help"], capture_output=True, text=True, check=True
    )
    for command in ["init", "status", "links", "graph", "health", "rename"]:
        assert f"  {command}" in out.stdout
