"""Hubs on vaults people keep (issue #31, docs/spec.md §7.2, §7.6, §7.9.5), driven through
the CLI as a person runs it: `import` the Obsidian folder, `consolidate --only
communities --force` a week's worth of times, then `consolidate --only
communities,abstract --force` with the offline brain, and the hub proposals read back from
`meta/proposals/`.

* a Portuguese/English course vault (`person_vaults.course_vault`): hub names are whole
  words of their community, accents kept, never a stopword of any language; a community
  its author's index note lists gets that note as its hub (recorded, nothing written);
  hub text keeps the maths, code and links it quotes byte for byte;
* a vault of four planted communities gets a hub each;
* community ids stay with their communities from run to run, and a new community gets an
  id no community ever had.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from reme_workbench.vault.links import parse_links
from reme_workbench.vault.note import parse
from tests.conftest import _Home, _isolate
from tests.consolidate.person_vaults import (
    CALCULO,
    INDEXES,
    PLANTED,
    course_vault,
    imported,
    planted_vault,
)
from tests.consolidate.test_hubs import consolidate, hubs

LANGUAGES = ("en", "pt", "es", "fr", "de")


def spacy_stopwords() -> frozenset[str]:
    """spaCy's stop-word lists of five languages, read from its files (not imported: that
    would load spaCy): an oracle of stopwords the hub code does not use."""
    folder = Path(importlib.util.find_spec("spacy").submodule_search_locations[0]) / "lang"
    words: set[str] = set()
    for lang in LANGUAGES:
        scope: dict = {}
        exec((folder / lang / "stop_words.py").read_text(encoding="utf-8"), scope)  # noqa: S102
        words |= {w.lower() for w in scope["STOP_WORDS"]}
    return frozenset(words)


def new_vault(root: Path) -> Path:
    for layer in ("resource", "daily", "digest/wiki", "digest/procedure", "digest/personal",
                  "meta", "audit"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    (root / "reme.toml").write_text('[recall]\nembedder = "hashing"\n', encoding="utf-8")
    return root


def hub_body(proposal: dict) -> tuple[str, str]:
    (op,) = proposal["ops"]
    return op["path"], op["content"]


def meta(root: Path, name: str) -> dict:
    return json.loads((root / "meta" / f"{name}.json").read_text(encoding="utf-8"))


def two_weeks(root: Path) -> dict:
    consolidate(root, "communities")
    return consolidate(root, "communities,abstract")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course vault imported, then two weekly runs (the second with abstract); the
    index notes' text as the import wrote them."""
    base = tmp_path_factory.mktemp("course")
    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, _Home(base))
        root = new_vault(base / "vault")
        imported(root, course_vault(base / "Faculdade"))
        indexes = {f"digest/wiki/{t}.md": (root / f"digest/wiki/{t}.md").read_bytes() for t in INDEXES}
        phases = two_weeks(root)
    return root, phases, indexes


# -- names ---------------------------------------------------------------------------------


def _folded(word: str) -> str:
    """A word as a file name spells it (docs/spec.md: a note's name is its slug)."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                   if not unicodedata.combining(c))


def test_hub_names_are_whole_words_of_their_community_never_a_stopword(course):
    """Before: `de-fun-es.md` ("de" a stopword, "Funções" cut at "õ"), `aut-mato.md`."""
    root, phases, _ = course
    proposals = hubs(root)
    assert proposals, phases["abstract"]["details"]["summary"]
    stop = spacy_stopwords()
    for proposal in proposals:
        members = proposal["story"]["members"]
        texts = " ".join((root / m).read_text(encoding="utf-8") for m in members)
        written = {_folded(w) for w in re.findall(r"[^\W_]+", texts)} | {
            w.lower() for w in re.findall(r"[^\W_]+", texts)}
        path, text = hub_body(proposal)
        words = re.findall(r"[^\W_]+", parse(text, path).name)
        assert words, path
        # every word is one the members write, whole: no "aut", "fun", "vari", "es"
        assert all(w in written for w in words), (path, members)
        assert words[0] not in stop and words[-1] not in stop, path
    calculo = next(p for p in proposals if f"digest/wiki/{next(iter(CALCULO))}.md" in p["story"]["members"])
    path, text = hub_body(calculo)
    assert path == "digest/wiki/funções.md"  # the community's word as its notes write it
    # the words a person reads spell the topic as the notes do, accents kept
    hub = parse(text, path)
    assert hub.description.startswith("Overview of Funções in 6 notes: ") and "6 notes on Funções." in hub.body
    assert ".md" not in hub.description  # the topic in words, not file names


# -- the person's own index ----------------------------------------------------------------


def test_a_community_its_authors_index_lists_gets_that_index_as_its_hub(course):
    """'Programação Funcional' lists its 7 lectures; its community also holds the 5 concept
    notes the lectures link: 7 of 12 others (58 %, under the 60 % a hub note needs). It was
    given a second hub. Now the index is the community's hub, recorded in
    meta/communities.json, and nothing is written."""
    root, phases, indexes = course
    communities = meta(root, "communities")
    recorded = communities["hubs"]
    for index, text in indexes.items():
        cid = communities["communities"][index]
        assert recorded[cid] == index, (index, recorded)
        assert (root / index).read_bytes() == text  # nothing a person wrote is changed
        members = {p for p, c in communities["communities"].items() if c == cid}
        assert not [h for h in hubs(root) if set(h["story"]["members"]) & members]
    considered = {c["community"]: c for c in phases["abstract"]["details"]["considered"]}
    pf = communities["communities"]["digest/wiki/Programação Funcional.md"]
    gate = considered[pf]["gates"][0]
    assert gate["name"] == "no_hub" and not gate["passed"]
    assert gate["detail"]["member"] == "digest/wiki/Programação Funcional.md"
    assert gate["detail"]["index"] is True and "index" in gate["reason"]


# -- what a hub quotes ---------------------------------------------------------------------

MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$")
CODE = re.compile(r"`[^`\n]+`")


def test_a_hub_quotes_maths_code_and_links_as_its_members_write_them(course):
    root, _, _ = course
    quoted = 0
    for proposal in hubs(root):
        path, text = hub_body(proposal)
        body = parse(text, path).body
        sources = "\n".join((root / m).read_text(encoding="utf-8") for m in proposal["story"]["members"])
        for span in MATH.findall(body) + CODE.findall(body):
            assert span in sources, (span, path)  # `\lim_{h \to 0}`, never `\lim{h \to 0}`
            quoted += 1
        for link in parse_links(body):
            assert link.target in proposal["story"]["members"] + proposal["story"]["provenance"]
    assert quoted >= 3  # the Cálculo pillars open with maths: the check above is not idle


# -- the planted vault ---------------------------------------------------------------------


def test_four_planted_communities_get_a_hub_each(tmp_path):
    """Each note links the next three of its own 5–6: every member links 60 % or more of
    the others, so each community read as having its hub already and none got one."""
    root = new_vault(tmp_path / "vault")
    imported(root, planted_vault(tmp_path / "planted"))
    phases = two_weeks(root)
    outcomes = phases["abstract"]["details"]["outcomes"]
    assert [o["state"] for o in outcomes] == ["pending"] * 4, phases["abstract"]["details"]["summary"]
    topics = {frozenset(f"digest/wiki/{n}.md" for n in names) for names in PLANTED.values()}
    assert {frozenset(h["story"]["members"]) for h in hubs(root)} == topics


# -- ids -----------------------------------------------------------------------------------


def test_community_ids_stay_with_their_communities_and_are_never_reused(tmp_path):
    root = new_vault(tmp_path / "vault")
    imported(root, planted_vault(tmp_path / "planted"))

    def ids() -> dict[str, str]:  # topic -> its community id
        found = meta(root, "communities")["communities"]
        out = {}
        for topic, names in PLANTED.items():
            held = {found[f"digest/wiki/{n}.md"] for n in names if f"digest/wiki/{n}.md" in found}
            if held:  # a topic whose notes are gone has no community
                (out[topic],) = held
        return out

    consolidate(root, "communities")
    first = ids()
    # a bigger community arrives: Leiden numbers by size, so it would take c_00
    loom = [f"Loom part {k}" for k in "abcdefgh"]
    for i, name in enumerate(loom):
        see = " ".join(f"[[digest/wiki/{loom[(i + k) % 8]}.md]]" for k in (1, 2, 3))
        (root / f"digest/wiki/{name}.md").write_text(
            f"---\nname: {name}\ndescription: Weaving on a floor loom.\n---\nSee {see}.\n\n"
            f"derived_from:: [[resource/loom.md]]\n", encoding="utf-8")
    (root / "resource/loom.md").write_text("Loom notes.\n", encoding="utf-8")
    consolidate(root, "communities")
    assert ids() == first  # the four keep their ids
    found = meta(root, "communities")["communities"]
    (loom_id,) = {found[f"digest/wiki/{n}.md"] for n in loom}
    assert loom_id not in first.values()
    # a community goes, another comes: the newcomer never gets the id of the one gone
    for name in PLANTED["bicycle"]:
        (root / f"digest/wiki/{name}.md").unlink()
    for name in loom:
        shutil.move(root / f"digest/wiki/{name}.md", root / f"digest/wiki/{name} (copy).md")
        text = (root / f"digest/wiki/{name} (copy).md").read_text(encoding="utf-8")
        (root / f"digest/wiki/{name} (copy).md").write_text(
            text.replace(".md]]", " (copy).md]]").replace("resource/loom (copy).md", "resource/loom.md"),
            encoding="utf-8")
    consolidate(root, "communities")
    found = meta(root, "communities")["communities"]
    (copy_id,) = {found[f"digest/wiki/{n} (copy).md"] for n in loom}
    used = set(first.values()) | {loom_id}
    assert copy_id not in used
    assert {t: c for t, c in ids().items() if t != "bicycle"} == {
        t: c for t, c in first.items() if t != "bicycle"}
