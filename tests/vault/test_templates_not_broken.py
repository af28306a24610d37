"""A person's templates (Obsidian's `{{date}}`, Templater's `<% … %>`) are not broken notes:
an imported vault's templates folder printed "the frontmatter is not valid YAML" on every
command (issue #31). Broken YAML elsewhere is still said."""

from __future__ import annotations

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.scan import is_template

TEMPLATE = "---\ncreated-at: {{date}}\ntags: []\n---\n# {{title}}\n\n## Definição\n"
TEMPLATER = "---\ncreated: <% tp.date.now() %>\n---\n# <% tp.file.title %>\n"
BROKEN = "---\nname: [unclosed\n---\nbody\n"


def test_a_templates_placeholders_are_no_problem_and_broken_yaml_still_is(make_vault):
    root = make_vault({"resource/2026-12-01/my-vault/Templates/Aula.md": TEMPLATE,
                       "resource/2026-12-01/my-vault/Templates/Daily.md": TEMPLATER,
                       "digest/wiki/bad.md": BROKEN})
    result = CliRunner().invoke(cli, ["--vault", str(root), "status", "--text"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "digest/wiki/bad.md" in warnings[0], warnings


def test_is_template_reads_only_the_frontmatter():
    assert is_template(TEMPLATE) and is_template(TEMPLATER)
    assert not is_template(BROKEN)
    assert not is_template("---\nname: x\n---\nIn the body: {{date}}\n")
    assert not is_template("no frontmatter {{date}}\n")
