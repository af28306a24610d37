"""Link resolution (Obsidian's order) and the repair dream applies to every body it writes."""

from __future__ import annotations

import pytest

from reme_workbench.vault.links import format_link, parse_links
from reme_workbench.vault.resolve import LinkResolver, Resolution, is_linkable, repair_links

HELP = "resource/2026-11-20/help"
SRC = f"{HELP}/Internal links.md"
SETTINGS = f"{HELP}/Settings.md"
PATHS = [
    SRC,
    SETTINGS,
    f"{HELP}/属性列表.md",
    f"{HELP}/Figure 1.png",
    f"{HELP}/Figure 1.png.txt",  # a decoy: `x.png` must not become `x.png.md`-like guesses
    f"{HELP}/v1.2 notes.md",
    "resource/2026-11-20/Top.md",
    "resource/2026-11-20/other/Deep.md",
    "digest/wiki/canary.md",
    "digest/wiki/Case.md",
    "digest/procedure/case.md",
    "a/dir1/Note.md",
    "a/dir2/Note.md",
    "resource/C# guide/Sharp.md",
    "resource/odd [1]/Bracket.md",
    "Root.md",
    "digest/wiki/x.md",
    "digest/wiki/X.md",
    "digest/wiki/y.md",
    "digest/wiki/Y.md",
]


@pytest.fixture
def resolver() -> LinkResolver:
    return LinkResolver(PATHS)


def res(resolver, target, source=SRC):
    found = resolver.resolve(target, source)
    return (found.path, found.how)


def test_exact_vault_path_with_or_without_md_and_in_any_case(resolver):
    assert res(resolver, "digest/wiki/canary.md") == ("digest/wiki/canary.md", "exact")
    assert res(resolver, "digest/wiki/canary") == ("digest/wiki/canary.md", "exact")
    assert res(resolver, "DIGEST/Wiki/Canary.MD") == ("digest/wiki/canary.md", "exact")
    assert res(resolver, "  digest/wiki/canary  ") == ("digest/wiki/canary.md", "exact")  # trimmed
    assert res(resolver, "/Root") == ("Root.md", "exact")  # a leading / is the vault root


def test_case_variants_prefer_the_exact_spelling_else_are_ambiguous(resolver):
    assert res(resolver, "digest/wiki/x.md") == ("digest/wiki/x.md", "exact")
    assert res(resolver, "digest/wiki/X.md") == ("digest/wiki/X.md", "exact")
    found = resolver.resolve("DIGEST/WIKI/Y", SRC)
    assert found == Resolution(None, "ambiguous", ("digest/wiki/Y.md", "digest/wiki/y.md"))


def test_relative_to_the_source_folder(resolver):
    assert res(resolver, "Settings") == (SETTINGS, "relative")
    assert res(resolver, "./Settings") == (SETTINGS, "relative")
    assert res(resolver, "../Top") == ("resource/2026-11-20/Top.md", "relative")
    assert res(resolver, "../other/Deep.md") == ("resource/2026-11-20/other/Deep.md", "relative")
    # ./ and ../ are only ever relative: no vault-root or basename fallback
    assert res(resolver, "./Root") == (None, "missing")
    assert res(resolver, "../canary") == (None, "missing")
    assert res(resolver, "../../../../../etc/passwd") == (None, "missing")


def test_unique_basename_and_path_suffix(resolver):
    assert res(resolver, "canary") == ("digest/wiki/canary.md", "suffix")
    assert res(resolver, "Deep") == ("resource/2026-11-20/other/Deep.md", "suffix")
    assert res(resolver, "dir1/Note") == ("a/dir1/Note.md", "suffix")  # dir2/Note.md exists too
    assert res(resolver, "dir2/note") == ("a/dir2/Note.md", "suffix")
    assert res(resolver, "ir1/Note") == (None, "missing")  # whole segments only


def test_an_ambiguous_basename_names_its_candidates(resolver):
    found = resolver.resolve("Note", SRC)
    assert found == Resolution(None, "ambiguous", ("a/dir1/Note.md", "a/dir2/Note.md"))
    assert resolver.resolve("case", SRC).how == "ambiguous"  # Case.md vs case.md, two folders


def test_missing(resolver):
    assert res(resolver, "No such page") == (None, "missing")
    assert res(resolver, "../Top", source=None) == (None, "missing")  # no folder to start from
    assert LinkResolver([]).resolve("x", "daily/d/x.md") == Resolution(None, "missing")


def test_extensionless_means_md_and_an_extension_names_that_file(resolver):
    assert res(resolver, "Figure 1.png") == (f"{HELP}/Figure 1.png", "relative")
    assert res(resolver, "v1.2 notes") == (f"{HELP}/v1.2 notes.md", "relative")
    only_png = LinkResolver(["resource/d/diagram.png", "resource/d/diagram.md"])
    assert only_png.resolve("diagram", None).path == "resource/d/diagram.md"
    assert only_png.resolve("diagram.png", None).path == "resource/d/diagram.png"


def test_chinese_names_and_names_with_spaces(resolver):
    assert res(resolver, "属性列表") == (f"{HELP}/属性列表.md", "relative")
    assert res(resolver, "Internal links") == (SRC, "relative")
    link = format_link(SRC, alias="Internal links")
    (back,) = parse_links(link)
    assert (back.target, back.alias) == (SRC, "Internal links")


def test_add_makes_a_new_file_resolvable(resolver):
    assert res(resolver, "fresh") == (None, "missing")
    resolver.add("digest/wiki/fresh.md")
    resolver.add("digest/wiki/fresh.md")  # twice is once
    assert res(resolver, "fresh") == ("digest/wiki/fresh.md", "suffix")
    assert "digest/wiki/fresh.md" in resolver and len(resolver) == len(PATHS) + 1


def test_is_linkable():
    assert is_linkable("digest/wiki/x.md") and is_linkable(SRC)
    for bad in ("resource/C# guide/Sharp.md", "resource/odd [1]/Bracket.md", "a|b.md",
                "./digest/x.md", "digest//x.md", "digest/wiki/con.md", "/abs.md"):
        assert not is_linkable(bad), bad


# --- repair ------------------------------------------------------------------------------


def repair(text, resolver, **kw):
    return repair_links(text, SRC, resolver, **kw)


def test_short_links_become_full_paths_with_the_text_the_reader_saw(resolver):
    text, repairs = repair("See [[Settings]] and [[属性列表]].\n", resolver)
    assert text == (
        f"See [[{SETTINGS}|Settings]] and [[{HELP}/属性列表.md|属性列表]].\n"
    )
    assert [(r.raw, r.how, r.path) for r in repairs] == [
        ("[[Settings]]", "relative", SETTINGS),
        ("[[属性列表]]", "relative", f"{HELP}/属性列表.md"),
    ]
    assert all(lk.target in PATHS for lk in parse_links(text))


def test_anchors_are_dropped_and_aliases_kept(resolver):
    text, _ = repair(
        "[[Settings#Files and links|Files and links]] [[Settings#^abc123]] "
        "[[digest/wiki/canary.md#Intro]] [[digest/wiki/canary.md#Intro|the intro]]",
        resolver,
    )
    assert text == (
        f"[[{SETTINGS}|Files and links]] [[{SETTINGS}|Settings]] "
        "[[digest/wiki/canary.md]] [[digest/wiki/canary.md|the intro]]"
    )
    assert all(lk.anchor is None for lk in parse_links(text))


def test_canonical_links_are_left_byte_for_byte(resolver):
    text = (
        "derived_from:: [[resource/2026-11-20/help/Internal links.md]]\n"
        "see [[digest/wiki/canary.md|canaries]] and [[ digest/wiki/canary.md ]]\n"
        f"![[{HELP}/Figure 1.png|300]]\n"
    )
    assert repair(text, resolver) == (text, [])


def test_unresolved_and_ambiguous_links_become_their_text(resolver):
    text, repairs = repair(
        "[[No such page]], [[Gone#Part|the part]], [[Gone#Part]], [[Note]], "
        "[[digest/wiki/nowhere.md]].",
        resolver,
    )
    assert text == "No such page, the part, Gone, Note, digest/wiki/nowhere.md."
    assert [r.how for r in repairs] == ["missing", "missing", "missing", "ambiguous", "missing"]
    assert parse_links(text) == []


def test_unresolved_embeds_are_removed_captions_kept(resolver):
    text, repairs = repair(
        "Intro.\n![[missing.png]]\nAn inline ![[gone.png|200]] image and "
        "![[lost.png|The flow diagram]].\n",
        resolver,
    )
    assert text == "Intro.\nAn inline  image and The flow diagram.\n"
    assert [r.replacement for r in repairs] == ["", "", "The flow diagram"]


def test_resolved_embeds_keep_their_mark_and_get_no_invented_alias(resolver):
    text, _ = repair("![[Figure 1.png]] ![[Figure 1.png|300]]", resolver)
    assert text == f"![[{HELP}/Figure 1.png]] ![[{HELP}/Figure 1.png|300]]"
    assert [lk.embed for lk in parse_links(text)] == [True, True]


def test_same_note_links_become_text(resolver):
    text, repairs = repair("See [[#Heading]], [[#Heading|above]] and [[#^blk]] here.", resolver)
    assert text == "See Heading, above and  here."
    assert {r.how for r in repairs} == {"same-note"}


def test_predicates_are_kept(resolver):
    text, _ = repair(
        "related_to:: [[Settings]]\n- [is_a:: [[canary]]] and (part_of:: [[Top]]) [x:: [[Nope]]]\n",
        resolver,
    )
    assert text == (
        f"related_to:: [[{SETTINGS}|Settings]]\n- [is_a:: [[digest/wiki/canary.md|canary]]] and "
        "(part_of:: [[resource/2026-11-20/Top.md|Top]]) [x:: Nope]\n"
    )
    assert [(lk.target, lk.predicate) for lk in parse_links(text)] == [
        (SETTINGS, "related_to"),
        ("digest/wiki/canary.md", "is_a"),
        ("resource/2026-11-20/Top.md", "part_of"),
    ]


def test_links_in_code_and_frontmatter_are_untouched(resolver):
    text = (
        "---\nname: x\nsee: \"[[Settings]]\"\n---\n"
        "Inline `[[Settings]]` code.\n\n```\n[[Settings]]\n```\n\n    [[Settings]]\n"
    )
    assert repair(text, resolver) == (text, [])


def test_keep_leaves_the_old_links_alone(resolver):
    text = "[[Old broken#s]] and [[Settings]]\nis_a:: [[Old broken]]\n"
    new, repairs = repair(text, resolver, keep=frozenset({("Old broken", None)}))
    assert new == f"[[Old broken#s]] and [[{SETTINGS}|Settings]]\nis_a:: Old broken\n"
    assert [r.raw for r in repairs] == ["[[Settings]]", "[[Old broken]]"]  # is_a:: is another key


def test_a_file_whose_name_cannot_be_a_link_target_becomes_text(resolver):
    text, repairs = repair("[[Sharp]] and [[Bracket|the bracket page]]", resolver)
    assert text == "Sharp and the bracket page"
    assert [(r.how, r.path) for r in repairs] == [
        ("unlinkable", "resource/C# guide/Sharp.md"),
        ("unlinkable", "resource/odd [1]/Bracket.md"),
    ]


def test_a_link_in_a_table_row_escapes_its_pipe(resolver):
    text, _ = repair("| a | b |\n|---|---|\n| [[Settings]] | [[canary\\|c]] |\n", resolver)
    assert text == (
        f"| a | b |\n|---|---|\n| [[{SETTINGS}\\|Settings]] | [[digest/wiki/canary.md\\|c]] |\n"
    )
    assert [(lk.target, lk.alias) for lk in parse_links(text)] == [
        (SETTINGS, "Settings"), ("digest/wiki/canary.md", "c")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "See [[Settings]], [[Settings#Files and links|Files and links]], [[属性列表]].\n",
        "![[missing.png]]\n[[Note]] [[#H]] [[Sharp]] | [[canary]] |\n",
        "[![[gone.png]][Settings]]",  # removing the embed exposes a new link
        "related_to:: [[Top]] [x:: [[Internal links#Part]]]",
    ],
)
def test_repair_is_idempotent_and_leaves_only_resolving_links(resolver, text):
    once, _ = repair(text, resolver)
    assert repair(once, resolver) == (once, [])
    assert all(lk.target in PATHS and lk.anchor is None for lk in parse_links(once))


def test_every_rule_from_the_daily_folder_too():
    """The source decides `relative`: the same short link from another folder differs."""
    resolver = LinkResolver(["daily/2026-10-05/Settings.md", SETTINGS])
    assert resolver.resolve("Settings", "daily/2026-10-05/log.md").path == (
        "daily/2026-10-05/Settings.md"
    )
    assert resolver.resolve("Settings", SRC).path == SETTINGS
    assert resolver.resolve("Settings", "digest/wiki/x.md").how == "ambiguous"


def test_a_removed_embed_paragraph_leaves_one_blank_line(resolver):
    text, _ = repair("Intro.\n\n![[missing.png]]\n\nNext.\n", resolver)
    assert text == "Intro.\n\nNext.\n"
    assert repair("![[missing.png]]\n\nNext.\n", resolver)[0] == "Next.\n"
    assert repair("Intro.\n\n![[missing.png]]", resolver)[0] == "Intro.\n\n"
    assert repair("Intro.\n![[a.png]]\n![[b.png]]\nEnd.\n", resolver)[0] == "Intro.\nEnd.\n"
