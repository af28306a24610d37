from __future__ import annotations

import pytest

from reme_workbench.errors import RemeError
from reme_workbench.vault.checks import CHECKS, CheckSpec, build_check
from reme_workbench.vault.store import Changeset, CheckContext, Create, Delete, Edit, Stamp

STAMP = Stamp("0" * 64, 1)
P = "digest/wiki/x.md"
MAT = "daily/2026-10-05/log.md"


def ctx(
    after: dict[str, str | None], before: dict[str, str | None] | None = None, ops=None
) -> CheckContext:
    ops = ops or tuple(Edit(p, (t or "").encode(), STAMP) for p, t in after.items())
    enc = lambda d: {p: (None if t is None else t.encode()) for p, t in d.items()}  # noqa: E731
    return CheckContext(Changeset(ops=tuple(ops)), enc(before or {}), enc(after))


def run(name, params, context):
    return build_check(CheckSpec(name, params)).fn(context)


def test_keeps_outbound_is_e1_with_predicates():
    keys = [["digest/wiki/a.md", None], ["digest/wiki/b.md", "is_a"]]
    ok = ctx({P: "[[digest/wiki/a.md]]\nis_a:: [[digest/wiki/b.md]] [[digest/wiki/new.md]]"})
    assert run("keeps_outbound", {"path": P, "keys": keys}, ok) == []
    # same target, predicate dropped: a different edge, so it counts as lost
    bad = ctx({P: "[[digest/wiki/a.md]] [[digest/wiki/b.md]]"})
    assert run("keeps_outbound", {"path": P, "keys": keys}, bad) == [
        f"{P} drops the link is_a:: [[digest/wiki/b.md]]"
    ]


def test_union_keeps_outbound_for_split_and_merge():
    keys = [["digest/wiki/a.md", None], ["digest/wiki/b.md", None]]
    c = ctx({P: "[[digest/wiki/a.md]]", "digest/wiki/child.md": "[[digest/wiki/b.md]]"})
    assert (
        run("union_keeps_outbound", {"paths": [P, "digest/wiki/child.md"], "keys": keys}, c) == []
    )
    assert run("union_keeps_outbound", {"paths": [P], "keys": keys}, c)


def test_has_provenance_needs_the_predicate_and_the_material():
    good = ctx({P: f"body\nderived_from:: [[{MAT}]]\n"})
    assert run("has_provenance", {"path": P, "material": MAT}, good) == []
    plain = ctx({P: f"body [[{MAT}]]\n"})
    assert run("has_provenance", {"path": P, "material": MAT}, plain)
    other = ctx({P: "derived_from:: [[daily/2026-10-06/other.md]]\n"})
    assert run("has_provenance", {"path": P, "material": MAT}, other)


def test_keeps_some_provenance_only_counts_sources():
    assert run("keeps_some_provenance", {"paths": [P]}, ctx({P: f"derived_from:: [[{MAT}]]"})) == []
    assert run(
        "keeps_some_provenance", {"paths": [P]}, ctx({P: "derived_from:: [[digest/wiki/a.md]]"})
    )


def test_no_new_anchors_allows_a_users_existing_anchor():
    before = {P: "[[digest/wiki/a.md#Intro]]"}
    kept = ctx({P: "[[digest/wiki/a.md#Intro]] more"}, before)
    assert run("no_new_anchors", {"paths": [P]}, kept) == []
    added = ctx({P: "[[digest/wiki/a.md#Intro]] [[digest/wiki/b.md#Part]]"}, before)
    assert run("no_new_anchors", {"paths": [P]}, added) == [
        f"{P} writes an anchor link [[digest/wiki/b.md#Part]]; link the note itself"
    ]


def test_name_matches_basename():
    assert run("name_matches_basename", {"paths": [P]}, ctx({P: "---\nname: x\n---\n"})) == []
    assert run("name_matches_basename", {"paths": [P]}, ctx({P: "---\nname: y\n---\n"}))
    assert run("name_matches_basename", {"paths": [P]}, ctx({P: "no frontmatter\n"}))


def test_only_paths_and_bucket_and_sources():
    two = ctx({P: "a", "digest/wiki/other.md": "b"})
    assert run("only_paths", {"paths": [P]}, two) == [
        "digest/wiki/other.md is not the subject of this change and may not be touched"
    ]
    create = ctx({"digest/personal/x.md": "a"}, ops=(Create("digest/personal/x.md", b"a"),))
    assert (
        run("creates_in_bucket", {"path": "digest/personal/x.md", "bucket": "personal"}, create)
        == []
    )
    assert run("creates_in_bucket", {"path": "digest/personal/x.md", "bucket": "wiki"}, create)
    src = ctx({MAT: "x"})
    assert run("no_sources_written", {}, src) == [
        f"{MAT} is source material and may not be written"
    ]


def test_unknown_check_and_bad_params_are_clear_errors():
    with pytest.raises(RemeError, match="known checks"):
        build_check(CheckSpec("nope"))
    with pytest.raises(RemeError, match="bad parameters"):
        build_check(CheckSpec("keeps_outbound", {"wrong": 1}))
    assert set(CHECKS) >= {"keeps_outbound", "has_provenance", "only_paths"}


def test_links_resolve_needs_a_full_path_to_a_file_that_is_there():
    files = {"digest/wiki/a.md", MAT, "resource/2026-10-05/diagram.png"}
    new = "digest/wiki/new.md"
    text = (
        f"[[digest/wiki/a.md|a]] ![[resource/2026-10-05/diagram.png]] [[{new}]]\n"
        f"[[digest/wiki/a.md#Intro]]\nderived_from:: [[{MAT}]]\n"
    )
    ops = (Edit(P, text.encode(), STAMP), Create(new, b"x"))
    good = CheckContext(Changeset(ops=ops), {P: b"", new: None},
                        {P: text.encode(), new: b"x"}, exists=files.__contains__)
    assert run("links_resolve", {"path": P}, good) == []

    bad_text = (
        "[[a]] [[digest/wiki/gone.md]] [[#Heading]] [[./digest/wiki/a.md]] "
        "[[digest/wiki/deleted.md]]\n"
    )
    deleted = "digest/wiki/deleted.md"
    bad = CheckContext(
        Changeset(ops=(Edit(P, bad_text.encode(), STAMP), Delete(deleted, STAMP))),
        {P: b"", deleted: b"x"},
        {P: bad_text.encode(), deleted: None},
        exists=(files | {deleted}).__contains__,
    )
    failures = run("links_resolve", {"path": P}, bad)
    assert [f.split(" ", 1)[0] for f in failures] == [f"{P}:1:{c}" for c in (1, 7, 31, 44, 67)]
    assert "[[a]] names no file" in failures[0]  # `a` would be a file at the vault root
    assert "[[digest/wiki/gone.md]] names no file" in failures[1]
    assert "points into the note itself" in failures[2]
    assert "not a full vault path" in failures[3]
    assert "[[digest/wiki/deleted.md]] names no file" in failures[4]  # this change deletes it
    # an update's old links are exempt, broken or not (E-1 keeps them)
    keep = [["a", None], ["digest/wiki/gone.md", None], ["", None], ["./digest/wiki/a.md", None],
            [deleted, None]]
    assert run("links_resolve", {"path": P, "keep": keep}, bad) == []


def test_links_resolve_without_exists_blocks_visibly():
    """A context built without `exists=` cannot decide, so the check fails the write."""
    plain = ctx({P: "[[digest/wiki/a.md]]"})
    with pytest.raises(RemeError, match="exists="):
        run("links_resolve", {"path": P}, plain)
    assert run("keeps_outbound", {"path": P, "keys": []}, plain) == []  # others need no exists


# -- abstract (docs/spec.md §7.6) ------------------------------------------------------


def test_links_share_counts_distinct_targets_against_the_share():
    members = [f"digest/wiki/m{i}.md" for i in range(5)]
    three = ctx({P: "[[digest/wiki/m0.md]] [[digest/wiki/m1.md|one]]\nsee:: [[digest/wiki/m2.md]]"})
    assert run("links_share", {"path": P, "targets": members, "share": 0.6}, three) == []
    # the same note linked twice, and an embed, count once / not at all
    two = ctx({P: "[[digest/wiki/m0.md]] [[digest/wiki/m0.md]] ![[digest/wiki/m1.md]] [[digest/wiki/m3.md]]"})
    (failure,) = run("links_share", {"path": P, "targets": members, "share": 0.6}, two)
    assert "links 2 of 5 notes (40%)" in failure and "at least 60%" in failure
    assert "[[digest/wiki/m2.md]]" in failure  # names what to add
    assert run("links_share", {"path": P, "targets": members, "share": 0.4}, two) == []
    gone = ctx({P: None})
    assert run("links_share", {"path": P, "targets": members, "share": 0.6}, gone)


def test_pillars_are_members_refuses_strangers_and_too_few():
    members = ["digest/wiki/a.md", "digest/wiki/b.md", "digest/wiki/c.md", "digest/wiki/d.md"]
    plain = ctx({P: ""})
    ok = {"pillars": members[:3], "members": members, "min_pillars": 3}
    assert run("pillars_are_members", ok, plain) == []
    stranger = {"pillars": [*members[:3], "digest/wiki/elsewhere.md"], "members": members}
    assert run("pillars_are_members", stranger, plain) == [
        "pillar digest/wiki/elsewhere.md is not a note of this community; pick pillars among its members"
    ]
    repeated = {"pillars": [members[0]] * 3, "members": members}
    assert run("pillars_are_members", repeated, plain) == [
        "the hub names 1 distinct pillar(s); it needs at least 3"
    ]


def test_links_to_needs_every_target_from_every_path():
    parent, a, b = "digest/wiki/parent.md", "digest/wiki/a.md", "digest/wiki/b.md"
    c = ctx({a: f"Part of [[{parent}|the parent]].", b: "Nothing here.",
             parent: f"See [[{a}]] and is_a:: [[{b}]]."})
    assert run("links_to", {"paths": [a, b], "targets": [parent]}, c) == [
        f"{b} must link [[{parent}]]"]
    assert run("links_to", {"paths": [parent], "targets": [a, b]}, c) == []  # any predicate
    embed = ctx({a: f"![[{parent}]]"})
    assert run("links_to", {"paths": [a], "targets": [parent]}, embed)  # an embed is no link
    gone = ctx({a: None})
    assert run("links_to", {"paths": [a], "targets": [parent]}, gone)


def test_carries_provenance_needs_each_source_as_provenance():
    other = "resource/2026-10-01/handbook.md"
    c = ctx({P: f"derived_from:: [[{MAT}]]\nSee [[{other}]].\n"})
    assert run("carries_provenance", {"paths": [P], "sources": [MAT]}, c) == []
    failures = run("carries_provenance", {"paths": [P], "sources": [MAT, other]}, c)
    assert failures == [f"{P} must carry `derived_from:: [[{other}]]` (the provenance it derives from)"]


def test_retargeted_links_keeps_every_other_link_and_no_form_of_the_old_one():
    old, new = "digest/wiki/loser.md", "digest/wiki/winner.md"
    keys = [[new, None], [new, "is_a"], ["digest/wiki/c.md", None]]
    files = {P: {"forms": [old, "loser"], "keys": keys}}
    # the keys are exact: a short `[[winner]]` is another edge than the expected full path
    short = ctx({P: f"[[{new}|x]] [[digest/wiki/c.md]]\nis_a:: [[winner]]\n"})
    assert run("retargeted_links", {"old": old, "new": new, "files": files}, short) == [
        f"{P} drops the link is_a:: [[{new}]]",
        f"{P} gains the link is_a:: [[winner]]; a retarget only points the links to {old} at {new}",
    ]
    good = ctx({P: f"[[{new}|x]] [[digest/wiki/c.md]]\nis_a:: [[{new}]]\n"})
    assert run("retargeted_links", {"old": old, "new": new, "files": files}, good) == []
    left = ctx({P: f"[[{new}|x]] [[digest/wiki/c.md]] [[loser]]\nis_a:: [[{new}]]\n"})
    failures = run("retargeted_links", {"old": old, "new": new, "files": files}, left)
    assert failures[0] == f"{P} still links to {old}; retarget it to [[{new}]]"
    assert any("gains the link [[loser]]" in f for f in failures)  # not in the expected keys
    lost = ctx({P: f"[[{new}|x]]\nis_a:: [[{new}]]\n"})
    assert run("retargeted_links", {"old": old, "new": new, "files": files}, lost) == [
        f"{P} drops the link [[digest/wiki/c.md]]"
    ]
    gone = ctx({P: None}, ops=(Delete(P, STAMP),))
    assert run("retargeted_links", {"old": old, "new": new, "files": files}, gone) == [
        f"{P} would be deleted, so it cannot keep its links"
    ]


def test_body_under_tokens_counts_the_body_not_the_frontmatter():
    from reme_workbench.vault.checks import CheckSpec, build_check
    from reme_workbench.vault.store import Changeset, CheckContext

    long_frontmatter = "---\nname: n\ndescription: " + "word " * 400 + "\n---\nShort body.\n"
    long_body = "---\nname: n\n---\n" + "word " * 400 + "\n"
    check = build_check(CheckSpec("body_under_tokens", {"path": "digest/wiki/n.md",
                                                        "max_tokens": 100, "hint": "trim it"}))

    def run(text):
        ctx = CheckContext(Changeset(ops=()), {}, {"digest/wiki/n.md": text.encode()})
        return check.fn(ctx)

    assert run(long_frontmatter) == []
    (why,) = run(long_body)
    assert "keep it under 100 (trim it)" in why and "400" in why
