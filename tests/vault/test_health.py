"""Health checks D1 / D10 (docs/spec.md §7.5): the report, its Obsidian page, and the D1 fix."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from reme_workbench.errors import ChangesetRejectedError, StaleChangesetError
from reme_workbench.vault.health import (
    BrokenLink,
    HealthReport,
    check_health,
    plan_link_fixes,
    render_health_markdown,
    unlink_audit_lines,
)
from reme_workbench.vault.links import parse_links
from reme_workbench.vault.scan import VaultScan
from reme_workbench.vault.store import Changeset, Edit, Store

PROV = "derived_from:: [[daily/2026-10-05/log.md]]\n"
FIXME = (
    "---\nname: fixme\ndescription: Broken links of every kind.\n---\n"
    "Alias [[digest/wiki/gone.md|Foo]] and bare [[gone.md]] here.\n"
    "Image ![[resource/img.png]] and sized ![[resource/pic.png|300]].\n"
    "rel:: [[digest/wiki/gone2.md]] [[digest/wiki/ok.md]]\n"
    "Inline [see_also:: [[digest/wiki/gone3.md#Part]]] stays a field.\n"
    "Fine [[digest/wiki/ok.md|OK]] and `[[in-code.md]]`.\n"
    + PROV
)
FIXED = (
    "---\nname: fixme\ndescription: Broken links of every kind.\n---\n"
    "Alias Foo (gone) and bare gone.md here.\n"
    "Image resource/img.png and sized resource/pic.png.\n"
    "rel:: digest/wiki/gone2.md [[digest/wiki/ok.md]]\n"
    "Inline [see_also:: digest/wiki/gone3.md#Part] stays a field.\n"
    "Fine [[digest/wiki/ok.md|OK]] and `[[in-code.md]]`.\n"
    + PROV
)


@pytest.fixture
def vault(make_vault):
    return make_vault(
        {
            "digest/wiki/ok.md": "OK.\n" + PROV,
            "digest/wiki/fixme.md": FIXME,
            "digest/procedure/prov.md": (
                "Steps [[digest/wiki/ok.md]].\n"
                "derived_from:: [[daily/2026-10-05/gone.md]]\n"
                "Also [derived_from:: [[resource/2026-10-01/missing.pdf]]] inline.\n"
                "And [[daily/2026-10-06/plain-missing.md]] without a predicate.\n"
            ),
            "digest/personal/noprov.md": (
                "Only digest links [[digest/wiki/ok.md]].\n"
                "derived_from:: [[digest/wiki/ok.md]]\n"  # not into daily/resource
                "Outside [[../../etc/passwd]] and [[#Local heading]].\n"
            ),
            "digest/personal/broken-only.md": "derived_from:: [[daily/2099-01-01/never.md]]\n",
            "daily/2026-10-05/log.md": "log [[digest/wiki/ok.md]]\n",
        }
    )


def fresh_scan(root: Path) -> VaultScan:
    scan = VaultScan(root, cache=False)
    scan.refresh()
    return scan


def test_the_three_lists(vault):
    report = check_health(fresh_scan(vault))
    d1 = [(b.source, b.target, b.line, b.column, b.predicate, b.reason) for b in report.broken_links]
    assert d1 == [
        ("digest/personal/noprov.md", "../../etc/passwd", 3, 9, None, "points outside the vault"),
        ("digest/procedure/prov.md", "daily/2026-10-06/plain-missing.md", 4, 5, None, "no such file"),
        ("digest/wiki/fixme.md", "digest/wiki/gone.md", 5, 7, None, "no such file"),
        ("digest/wiki/fixme.md", "gone.md", 5, 44, None, "no such file"),
        ("digest/wiki/fixme.md", "resource/img.png", 6, 7, None, "no such file"),
        ("digest/wiki/fixme.md", "resource/pic.png", 6, 39, None, "no such file"),
        ("digest/wiki/fixme.md", "digest/wiki/gone2.md", 7, 7, "rel", "no such file"),
        ("digest/wiki/fixme.md", "digest/wiki/gone3.md", 8, 20, "see_also", "no such file"),
    ]
    assert report.broken_links[3].raw == "[[gone.md]]"
    d10 = [(b.source, b.target, b.line, b.predicate) for b in report.broken_provenance]
    assert d10 == [
        ("digest/personal/broken-only.md", "daily/2099-01-01/never.md", 1, "derived_from"),
        ("digest/procedure/prov.md", "daily/2026-10-05/gone.md", 2, "derived_from"),
        ("digest/procedure/prov.md", "resource/2026-10-01/missing.pdf", 3, "derived_from"),
    ]
    # broken-only.md has a (broken) provenance link, so it is not "missing"
    assert report.missing_provenance == ("digest/personal/noprov.md",)
    assert not report.ok


def test_a_healthy_vault_is_ok_and_paths_limit_the_check(vault):
    scan = fresh_scan(vault)
    ok = check_health(scan, ["digest/wiki/ok.md", "daily/2026-10-05/log.md", "digest/wiki/nope.md"])
    assert ok == HealthReport((), (), ())
    assert ok.ok
    only = check_health(scan, ["digest/procedure/prov.md"])
    assert {b.source for b in only.broken_links + only.broken_provenance} == {
        "digest/procedure/prov.md"
    }
    assert only.missing_provenance == ()


def test_a_short_link_obsidian_resolves_is_not_broken(vault):
    (vault / "digest/procedure/short.md").write_text(
        "[[ok]] [[OK|shown]] [[../wiki/ok]] ![[ok.md]]\n" + PROV, encoding="utf-8")
    report = check_health(fresh_scan(vault), ["digest/procedure/short.md"])
    assert report.broken_links == () and report.ok
    assert [(s.raw, s.resolved) for s in report.short_links] == [
        ("[[ok]]", "digest/wiki/ok.md"), ("[[OK|shown]]", "digest/wiki/ok.md"),
        ("[[../wiki/ok]]", "digest/wiki/ok.md"), ("![[ok.md]]", "digest/wiki/ok.md"),
    ]


def test_an_ambiguous_short_link_is_reported_not_broken(vault):
    (vault / "digest/procedure/ok.md").write_text("Steps.\n" + PROV, encoding="utf-8")
    (vault / "digest/personal/amb.md").write_text("[[ok]]\n" + PROV, encoding="utf-8")
    report = check_health(fresh_scan(vault), ["digest/personal/amb.md"])
    assert report.broken_links == () and report.ok
    assert [(a.raw, a.candidates) for a in report.ambiguous_links] == [
        ("[[ok]]", ("digest/procedure/ok.md", "digest/wiki/ok.md"))]


def test_a_hint_when_a_relative_link_misses_but_the_name_exists(vault):
    (vault / "digest/procedure/short.md").write_text("[[./ok]] " + PROV, encoding="utf-8")
    report = check_health(fresh_scan(vault), ["digest/procedure/short.md"])
    assert report.broken_links[0].reason == (
        "no such file (links are vault paths; did you mean digest/wiki/ok.md?)"
    )


def test_a_link_to_a_symlink_is_broken(vault, tmp_path):
    (tmp_path / "secret.md").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "secret.md", vault / "resource" / "secret.md")
    (vault / "digest/wiki/s.md").write_text("[[resource/secret.md]] " + PROV, encoding="utf-8")
    report = check_health(fresh_scan(vault), ["digest/wiki/s.md"])
    assert [b.reason for b in report.broken_links] == [
        "goes through a symlink, which reme-workbench does not follow"
    ]


def test_to_json(vault):
    data = check_health(fresh_scan(vault)).to_json()
    assert list(data) == ["broken_links", "broken_provenance", "missing_provenance",
                          "short_links", "ambiguous_links", "unwritten_links"]
    assert data["broken_links"][0] == {
        "source": "digest/personal/noprov.md",
        "target": "../../etc/passwd",
        "line": 3,
        "column": 9,
        "raw": "[[../../etc/passwd]]",
        "predicate": None,
        "reason": "points outside the vault",
    }
    assert data["missing_provenance"] == ["digest/personal/noprov.md"]


# --- the Obsidian page ---------------------------------------------------------------


def test_markdown_links_only_to_the_offending_notes(vault):
    report = check_health(fresh_scan(vault))
    page = render_health_markdown(report, date="2026-11-02")
    assert page.startswith("# Vault health 2026-11-02\n")
    for heading in ("## D1 broken links (8)", "## D10 broken provenance (3)",
                    "## D10 missing provenance (1)"):
        assert f"\n{heading}\n" in page
    assert "- [[digest/wiki/fixme.md]] 5:44 — `[[gone.md]]`: no such file\n" in page
    assert "- [[digest/personal/noprov.md]]\n" in page
    # broken targets sit in code spans: the page links only to the source notes
    assert {lk.target for lk in parse_links(page)} == {
        "digest/wiki/fixme.md",
        "digest/procedure/prov.md",
        "digest/personal/noprov.md",
        "digest/personal/broken-only.md",
    }


def test_markdown_of_a_healthy_vault_and_of_odd_names():
    assert "All clear" in render_health_markdown(HealthReport((), (), ()), date="2026-11-02")
    odd = BrokenLink("digest/wiki/a|b.md", "x`y.md", 1, 1, "[[x`y.md]]", None, "no such file")
    page = render_health_markdown(HealthReport((odd,), (), ()), date="d")
    assert "- `digest/wiki/a|b.md` 1:1 — ``[[x`y.md]]``: no such file" in page
    assert parse_links(page) == []


# --- the D1 fix ----------------------------------------------------------------------


def test_plan_link_fixes_rewrites_in_place_with_audit_lines(vault, clock):
    report = check_health(fresh_scan(vault))
    store = Store(vault, clock=clock)
    before_prov = (vault / "digest/procedure/prov.md").read_bytes()
    plan = plan_link_fixes(store, report)
    assert plan is not None
    assert [op.path for op in plan.ops] == [
        "digest/personal/noprov.md", "digest/procedure/prov.md", "digest/wiki/fixme.md",
    ]
    assert all(isinstance(op, Edit) for op in plan.ops)
    # stored specs, so a held proposal is checked again when a person accepts it
    assert {c.name for c in plan.checks} == {"removes_only_broken_links"}
    store.apply(plan.changeset())

    assert (vault / "digest/wiki/fixme.md").read_text(encoding="utf-8") == FIXED
    noprov = (vault / "digest/personal/noprov.md").read_text(encoding="utf-8")
    assert "Outside ../../etc/passwd and [[#Local heading]]." in noprov
    prov = (vault / "digest/procedure/prov.md").read_bytes()
    # D10 links stay; only the plain broken link became text
    assert prov == before_prov.replace(
        b"[[daily/2026-10-06/plain-missing.md]]", b"daily/2026-10-06/plain-missing.md"
    )
    audit = "\n".join(unlink_audit_lines(plan.links))
    assert len(plan.links) == 8
    assert "- [[digest/wiki/fixme.md]] 5:7 — `[[digest/wiki/gone.md|Foo]]` → `Foo (gone)` (no such file)" in audit
    assert "`![[resource/pic.png|300]]` → `resource/pic.png`" in audit
    assert "`[[digest/wiki/gone2.md]]` → `digest/wiki/gone2.md`" in audit
    after = check_health(fresh_scan(vault))
    assert after.broken_links == () and len(after.broken_provenance) == 3
    assert plan_link_fixes(store, after) is None


def test_nothing_to_fix_is_none(vault, clock):
    store = Store(vault, clock=clock)
    assert plan_link_fixes(store, HealthReport((), (), ())) is None
    only_d10 = check_health(fresh_scan(vault), ["digest/personal/broken-only.md"])
    assert only_d10.broken_provenance and plan_link_fixes(store, only_d10) is None


def test_a_link_whose_target_appeared_since_the_check_is_kept(vault, clock):
    report = check_health(fresh_scan(vault), ["digest/wiki/fixme.md"])
    (vault / "digest/wiki/gone.md").write_text("back\n", encoding="utf-8")
    plan = plan_link_fixes(Store(vault, clock=clock), report)
    text = plan.ops[0].content.decode("utf-8")
    assert "[[digest/wiki/gone.md|Foo]]" in text and "bare gone.md here" in text


def test_a_note_edited_after_planning_makes_the_fix_stale(vault, clock):
    store = Store(vault, clock=clock)
    changeset = plan_link_fixes(store, check_health(fresh_scan(vault), ["digest/wiki/fixme.md"])
                                ).changeset()
    path = vault / "digest/wiki/fixme.md"
    path.write_text(FIXME + "more\n", encoding="utf-8")
    with pytest.raises(StaleChangesetError):
        store.apply(changeset)
    assert path.read_text(encoding="utf-8") == FIXME + "more\n"


def test_the_check_rejects_a_fix_that_touches_other_links(vault, clock):
    store = Store(vault, clock=clock)
    changeset = plan_link_fixes(store, check_health(fresh_scan(vault), ["digest/wiki/fixme.md"])
                                ).changeset()
    op = changeset.ops[0]
    tampered = op.content.replace(b"[[digest/wiki/ok.md|OK]]", b"OK")
    bad = dataclasses.replace(changeset, ops=(Edit(op.path, tampered, op.expected),))
    with pytest.raises(ChangesetRejectedError) as info:
        store.apply(bad)
    assert info.value.failures[0][0] == "removes_only_broken_links"
    assert "digest/wiki/ok.md" in info.value.failures[0][1]
    assert (vault / "digest/wiki/fixme.md").read_text(encoding="utf-8") == FIXME
    assert isinstance(bad, Changeset)


def test_d1_reports_daily_logs_but_the_fix_never_rewrites_them(make_vault):
    root = make_vault(
        {
            "digest/wiki/a.md": "[[digest/wiki/gone.md]]\n" + PROV,
            "daily/2026-10-05/log.md": "log [[digest/wiki/nowhere.md]]\n",
        }
    )
    report = check_health(fresh_scan(root))
    assert [(b.source, b.target) for b in report.broken_links] == [
        ("daily/2026-10-05/log.md", "digest/wiki/nowhere.md"),
        ("digest/wiki/a.md", "digest/wiki/gone.md"),
    ]
    assert report.missing_provenance == ()  # D10 is for digest notes only
    plan = plan_link_fixes(Store(root), report)
    assert [op.path for op in plan.ops] == ["digest/wiki/a.md"]
