"""Documentation that cannot drift: every command has help and a row in docs/cli.md, and
CI runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_PAGE = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_has_help_and_a_row_in_the_cli_page(name):
    command = cli.commands[name]
    assert command.help and len(command.help.strip()) > 20, f"{name} needs a help text"
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    # a row of the command table: `| `reme-workbench NAME …` | what it does |`
    row = re.compile(rf"^\| `reme-workbench {re.escape(name)}[ `]", re.M)
    assert row.search(CLI_PAGE), f"docs/cli.md has no row for `reme-workbench {name}`"


def readme_commands(marker: str) -> list[str]:
    """The lines of the first ```bash block after `marker` in the README: one command a
    line, to be run in order, each only when the one before succeeded."""
    section = README.split(marker, 1)[1]
    block = re.search(r"```bash\n(.+?)\n```", section, re.S).group(1)
    return [line.strip() for line in block.splitlines() if line.strip()]


MAIN_JOB = "**The main job**"
TESTS = "**The tests**"


def test_ci_runs_exactly_the_readme_test_command():
    # the README shows the command a step a line; .ci/run chains the same steps with &&
    test_command = " && ".join(readme_commands(TESTS))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines(), (
        f"README's test command and .ci/run disagree: .ci/run has no line\n{test_command}")


def test_readme_main_job_is_the_demo_on_the_sample_vault():
    main_job, tests = readme_commands(MAIN_JOB), readme_commands(TESTS)
    assert main_job[-1] == ".venv/bin/reme-workbench demo reme-demo"
    assert tests[-1] == ".venv/bin/python -m pytest"
    assert main_job[:-1] == tests[:-1], "the main job and the tests have one set-up"


# --- the README is the front door; docs/ holds the rest ----------------------------------

DOCS = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
# pages with a header of their own: the spec (the rules) and the experiments' findings
OWN_HEADER = {"spec.md", "experiments.md", "architecture.md"}


def test_the_readme_is_a_front_door_that_links_every_docs_page():
    lines = README.splitlines()
    assert len(lines) <= 250, f"the README has {len(lines)} lines; move detail to docs/"
    unlinked = [name for name in DOCS if f"](docs/{name})" not in README]
    assert not unlinked, f"the README links no {unlinked}"


@pytest.mark.parametrize("name", [n for n in DOCS if n not in OWN_HEADER])
def test_every_docs_page_says_what_it_covers_and_links_back(name):
    text = (ROOT / "docs" / name).read_text(encoding="utf-8")
    title, _, rest = text.partition("\n")
    assert title.startswith("# "), f"docs/{name} starts with its title"
    lead = rest.strip().split("\n\n", 1)[0]
    assert lead and not lead.startswith(("#", "|", "```", "*", "-")), (
        f"docs/{name}: the title is followed by a line saying what the page covers")
    assert "](../README.md)" in lead, f"docs/{name}: that line links back to the README"



_LOCAL_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)"
                         r"|(?:src|href)=\"(?!https?:|mailto:|#)([^\"]+)\"")


@pytest.mark.parametrize("doc", ["README.md", *sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))])
def test_every_local_link_of_the_docs_points_at_a_file_that_exists(doc):
    # README and docs/ link plots, screenshots and CSVs: a renamed or unwritten one is a
    # broken page on GitHub
    text = (ROOT / doc).read_text(encoding="utf-8")
    links = [(m.group(1) or m.group(2)).split("#")[0] for m in _LOCAL_LINK.finditer(text)]
    missing = [link for link in links if not ((ROOT / doc).parent / link).exists()]
    assert not missing, f"{doc} links files that do not exist: {missing}"


def test_the_experiments_page_shows_a_plot_and_a_table_for_every_sweep():
    import importlib.util

    spec = importlib.util.spec_from_file_location("experiments", ROOT / "benchmarks" / "experiments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    for name in module.SWEEPS:
        assert f"experiments/{name}-minilm.png" in page, f"docs/experiments.md shows no plot of {name}"
        assert f"experiments/{name}-minilm.csv" in page, f"docs/experiments.md links no table of {name}"

# --- docs/spec.md: the project's own spec ------------------------------------------------

SPEC_PATH = ROOT / "docs" / "spec.md"
SPEC = SPEC_PATH.read_text(encoding="utf-8")
_KEY = re.compile(r"`\[(\w+)\] (\w+)`")
_CODE_REF = re.compile(r"`([\w/]+)\.py` `(\w+)(?:\((\w+)\))?`")
_SECTION_NUMBER = re.compile(r"^(?:#{2,3} (\d+(?:\.\d+)?)\.? |- \*\*(\d+\.\d+\.\d+)\*\* )", re.M)
_CITATION = re.compile(r"§(\d+(?:\.\d+)*)")


def _threshold_rows() -> list[dict]:
    """The rows of the table in '## 10. Thresholds', as {threshold, default, key, code, section}."""
    section = SPEC.split("\n## 10. Thresholds", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["threshold", "default", "config key", "code", "§"], header
    rows = []
    for line in lines[2:]:  # after the header and the |---| line
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5, f"a threshold row needs 5 cells: {line}"
        rows.append(dict(zip(("threshold", "default", "key", "code", "section"), cells, strict=True)))
    return rows


def _default(cell: str):
    """The default of a row: its first code span, read as a TOML value (`none`: no value)."""
    import tomllib

    found = re.search(r"`([^`]+)`", cell)
    assert found, f"the default {cell!r} must be a code span such as `0.15`"
    text = found.group(1)
    return None if text == "none" else tomllib.loads(f"v = {text}")["v"]


def _settings_defaults() -> dict[str, object]:
    """'[section] key' -> the default of every field of Settings."""
    from reme_workbench.config import Settings

    settings = Settings()
    out = {}
    for section in Settings.model_fields:
        values = getattr(settings, section)
        for key in type(values).model_fields:
            value = getattr(values, key)
            out[f"[{section}] {key}"] = list(value) if isinstance(value, tuple) else value
    return out


def _same(found, expected) -> bool:
    if isinstance(expected, bool) or isinstance(found, bool):
        return type(found) is type(expected) and found == expected
    return found == expected


def test_the_spec_has_a_threshold_table():
    rows = _threshold_rows()
    assert len(rows) >= 40
    assert all(r["section"].startswith("§") for r in rows)


def test_every_threshold_with_a_config_key_has_the_settings_default():
    defaults = _settings_defaults()
    problems = []
    for row in _threshold_rows():
        key = _KEY.search(row["key"])
        if key is None or "(planned)" in row["key"]:
            continue
        name = f"[{key.group(1)}] {key.group(2)}"
        if name not in defaults:
            problems.append(f"{name} is not a key of Settings (a typo, or mark it (planned))")
        elif not _same(_default(row["default"]), defaults[name]):
            problems.append(f"{name}: the spec says {row['default']}, config.py {defaults[name]!r}")
    assert not problems, "docs/spec.md §10 and config.py disagree:\n" + "\n".join(problems)


def test_every_setting_is_in_the_threshold_table():
    listed = {
        f"[{m.group(1)}] {m.group(2)}"
        for row in _threshold_rows()
        if "(planned)" not in row["key"]
        for m in [_KEY.search(row["key"])]
        if m
    }
    missing = sorted(set(_settings_defaults()) - listed)
    assert not missing, f"add these reme.toml keys to docs/spec.md §10 (not as planned): {missing}"


def test_every_threshold_constant_the_spec_names_has_that_value_in_the_code():
    import importlib
    import inspect

    checked, problems = 0, []
    for row in _threshold_rows():
        ref = _CODE_REF.search(row["code"])
        if ref is None:
            continue
        path, name, param = ref.groups()
        module = importlib.import_module("reme_workbench." + path.replace("/", "."))
        value = getattr(module, name)
        if param is not None:
            value = inspect.signature(value).parameters[param].default
        value = list(value) if isinstance(value, tuple) else value  # TOML writes a list
        if not _same(_default(row["default"]), value):
            problems.append(f"{path}.py {name}{f'({param})' if param else ''}: the spec says "
                            f"{row['default']}, the code {value!r}")
        checked += 1
    assert checked >= 30
    assert not problems, "docs/spec.md §10 and the code disagree:\n" + "\n".join(problems)


def _spec_numbers() -> set[str]:
    return {a or b for a, b in _SECTION_NUMBER.findall(SPEC)}


def test_the_spec_numbers_its_sections_and_rules_in_order_without_gaps():
    numbers = [a or b for a, b in _SECTION_NUMBER.findall(SPEC)]
    assert len(numbers) == len(set(numbers)), "a section or rule number is used twice"
    for number in numbers:
        parent, _, last = number.rpartition(".")
        if parent:
            assert parent in numbers, f"§{number} has no §{parent} above it"
        siblings = [n for n in numbers if n.rpartition(".")[0] == parent]
        previous = f"{parent + '.' if parent else ''}{int(last) - 1}"
        assert last == "1" or previous in siblings, f"§{number} follows no §{previous}"
        # in the order of the page, too: §7.6.5 once stood before §7.6.4 (issue #33.7)
        assert last == "1" or numbers.index(previous) < numbers.index(number), (
            f"§{number} stands before §{previous}; put the rules in order")


def _citing_files():
    import os

    skip = {".git", ".venv", "node_modules", "__pycache__", "docs"}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in skip and not d.startswith(".")
                   and not d.endswith(".egg-info")]
        for name in files:
            if name.endswith((".py", ".md", ".ipynb", ".toml")):
                yield Path(folder) / name


def test_every_citation_of_the_spec_names_a_section_or_rule_it_has():
    numbers = _spec_numbers()
    bad = [f"docs/spec.md cites §{n}" for n in _CITATION.findall(SPEC) if n not in numbers]
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"spec\.md,? §(\d+(?:\.\d+)*)", text):
            if m.group(1) not in numbers:
                bad.append(f"{path.relative_to(ROOT)} cites docs/spec.md §{m.group(1)}")
    assert not bad, "no such section or rule in docs/spec.md:\n" + "\n".join(bad)


def test_code_cites_the_spec_not_documents_the_repository_does_not_ship():
    """Code, tests, benchmarks and the README cite docs/spec.md; the design documents the
    project started from are not in the repository, so a citation of them cannot be
    followed."""
    pattern = re.compile(r"seed 00\d|DESIGN\.md|STYLE\.md|the seeds'", re.I)
    offenders = []
    for folder in ("reme_workbench", "tests", "benchmarks", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".md", ".txt", ".toml") or path.name == "test_docs.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    for number, line in enumerate(README.splitlines(), 1):
        if pattern.search(line):
            offenders.append(f"README.md:{number}: {line.strip()[:80]}")
    assert not offenders, "cite docs/spec.md instead:\n" + "\n".join(offenders)
