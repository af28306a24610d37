"""Links a person commented out are not links (docs/spec.md §2.1.3): health does not
report them, `health --fix` neither normalises nor proposes to unlink them, rename and
the graph do not follow them, and every writer leaves the comments byte for byte.

Driven through the CLI entry point, as a person meets it.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.vault import Vault

LOG = "daily/2026-10-05/log.md"
PROV = f"derived_from:: [[{LOG}]]\n"
# Every comment form, each holding links of every kind: broken, short, full-path, embeds
# and a provenance link. None of them may be read, reported or rewritten.
COMMENTS = (
    "%% draft: [[gone-inline]] and [[target]] and [[digest/wiki/target.md|T]] %%",
    "%%\nBlock comment with [[gone-block]] and ![[missing.png]]\n\n"
    "and [[Target#Part|old alias]] and is_a:: [[target]]\n%%",
    "<!-- html [[gone-html]] and [[target]] -->",
    "<!--\n[[gone-html-block]]\nderived_from:: [[daily/2099-01-01/never.md]]\n-->",
)
COMMENTED = (
    "---\nname: commented\ndescription: Links a person commented out.\n---\n"
    "Live [[digest/wiki/target.md]] and short [[target]].\n"
    + "\n".join(COMMENTS) + "\n"
    "Text with `%%` in code and [[gone-visible]].\n"
    + PROV
    + "%% unclosed at the end: [[gone-after]] [[target]]\n"
)
ONLY_COMMENTED_PROVENANCE = (
    "---\nname: hidden-prov\ndescription: Its provenance is commented out.\n---\n"
    f"See [[digest/wiki/target.md]].\n%% {PROV.strip()} %%\n"
)


def comment_spans(text: str) -> list[str]:
    """The comments of COMMENTED as they stand in `text` (the unclosed one to the end)."""
    found = [c for c in COMMENTS if c in text]
    tail = text[text.index("%% unclosed"):] if "%% unclosed" in text else ""
    return [*found, tail]


def vault_with_comments(make_vault):
    return make_vault({
        LOG: "Worked on [[digest/wiki/target.md]].\n%% not yet: [[gone-in-log]] %%\n",
        "digest/wiki/target.md": "---\nname: target\ndescription: The target.\n---\nT.\n" + PROV,
        "digest/wiki/commented.md": COMMENTED,
        "digest/wiki/hidden-prov.md": ONLY_COMMENTED_PROVENANCE,
    })


def cli_run(root, *args):
    result = CliRunner().invoke(cli, ["--vault", str(root), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_health_reports_no_link_inside_a_comment(make_vault):
    root = vault_with_comments(make_vault)
    data = json.loads(cli_run(root, "health", "--json", "--no-report").stdout)
    # never resolved: a note not yet written (docs/spec.md §7.5.1), not a broken link
    assert data["broken_links"] == []
    assert [(b["source"], b["raw"]) for b in data["unwritten_links"]] == [
        ("digest/wiki/commented.md", "[[gone-visible]]")]
    assert [(s["source"], s["line"], s["raw"]) for s in data["short_links"]] == [
        ("digest/wiki/commented.md", 5, "[[target]]")]
    assert data["broken_provenance"] == [] and data["ambiguous_links"] == []
    # a provenance link inside a comment is no provenance (D10)
    assert data["missing_provenance"] == ["digest/wiki/hidden-prov.md"]


def test_health_fix_and_the_accepted_unlink_leave_comments_byte_for_byte(make_vault):
    root = vault_with_comments(make_vault)
    note = root / "digest/wiki/commented.md"
    # `[[gone-visible]]` resolved at a health run, then its note went: a D1 fault
    gone = root / "digest/wiki/gone-visible.md"
    gone.write_text("Soon gone.\n" + PROV, encoding="utf-8")
    cli_run(root, "health", "--json")
    gone.unlink()
    data = json.loads(cli_run(root, "health", "--fix", "--json").stdout)
    # both fixes are proposals a person accepts (docs/spec.md §7.5.3): no note is written yet
    assert data["normalized"] == 0 and data["fixed"] == 0
    assert data["normalize"]["links"] == 1 and data["normalize"]["state"] == "pending"  # the live one
    assert data["unlink"]["links"] == 1 and data["unlink"]["state"] == "pending"
    assert note.read_text(encoding="utf-8") == COMMENTED
    normalized = json.loads(cli_run(root, "proposals", "accept", data["normalize"]["proposal"],
                                    "--json").stdout)
    assert normalized["state"] == "applied", normalized
    text = note.read_text(encoding="utf-8")
    assert "Live [[digest/wiki/target.md]] and short [[digest/wiki/target.md|target]]." in text
    assert comment_spans(text) == comment_spans(COMMENTED)
    # the unlink was planned on the note before that edit: planned again, then accepted
    unlink = json.loads(cli_run(root, "health", "--fix", "--json").stdout)["unlink"]
    assert unlink["state"] == "pending" and unlink["superseded"] == [data["unlink"]["proposal"]]
    shown = json.loads(cli_run(root, "proposals", "show", unlink["proposal"], "--json").stdout)
    assert [row["raw"] for row in shown["story"]["links"]] == ["[[gone-visible]]"]
    accepted = json.loads(cli_run(root, "proposals", "accept", unlink["proposal"],
                                  "--json").stdout)
    assert accepted["state"] == "applied", accepted
    text = note.read_text(encoding="utf-8")
    assert "Text with `%%` in code and gone-visible.\n" in text
    assert comment_spans(text) == comment_spans(COMMENTED)
    assert text == COMMENTED.replace("short [[target]]", "short [[digest/wiki/target.md|target]]") \
        .replace("[[gone-visible]]", "gone-visible")


def test_rename_leaves_links_in_comments_as_written(make_vault):
    root = vault_with_comments(make_vault)
    log_before = (root / LOG).read_text(encoding="utf-8")
    data = json.loads(cli_run(root, "rename", "digest/wiki/target.md",
                              "digest/wiki/renamed.md", "--json").stdout)
    assert data["links_rewritten"] == {"digest/wiki/commented.md": 2,
                                       "digest/wiki/hidden-prov.md": 1, LOG: 1}
    text = (root / "digest/wiki/commented.md").read_text(encoding="utf-8")
    assert text == COMMENTED.replace("Live [[digest/wiki/target.md]] and short [[target]]",
                                     "Live [[digest/wiki/renamed.md]] and short [[renamed]]")
    assert (root / LOG).read_text(encoding="utf-8") == log_before.replace(
        "[[digest/wiki/target.md]]", "[[digest/wiki/renamed.md]]")


def test_the_graph_draws_no_edge_from_a_comment(make_vault):
    root = make_vault({
        "digest/wiki/a.md": "[[digest/wiki/b.md]] %% [[digest/wiki/c.md]] [[nowhere]] %%\n" + PROV,
        "digest/wiki/b.md": "B <!-- [[a]] -->\n" + PROV,
        "digest/wiki/c.md": "C\n" + PROV,
        LOG: "log\n",
    })
    vault = Vault.open(root, cache=False)
    assert vault.graph.outbound("digest/wiki/a.md") == {("digest/wiki/b.md", None)}
    assert vault.graph.inbound("digest/wiki/a.md") == set()
    assert vault.graph.dangling() == []
    data = json.loads(cli_run(root, "graph", "--json").stdout)
    assert data["edges"] == 1 and data["dangling_links"] == []
