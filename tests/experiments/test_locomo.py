"""The LoCoMo recall benchmark's pieces: conversion, evidence ids, metrics, one smoke run."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

import pytest

from reme_lab import locomo
from reme_workbench.index.embeddings import HashingEmbedder
from tests.conftest import SHARED_DATA

DATA = SHARED_DATA / "locomo" / "locomo10_conv0-4.json"

SAMPLE = {
    "sample_id": "conv-7",
    "conversation": {
        "speaker_a": "Ada",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ada", "dia_id": "D1:1", "text": "Hi Bo! I adopted a greyhound."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Wow,\nshow me!",
             "img_url": ["http://x/1.jpg"], "blip_caption": "a photo of a dog on a sofa",
             "query": "dog"},
        ],
        "session_2_date_time": "10:05 am on 17 December, 2022",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "My pottery class starts today."},
            {"speaker": "Ada", "dia_id": "D2:2", "text": "Glazes are hard, good luck."},
        ],
    },
    "qa": [
        {"question": "What dog did Ada adopt?", "answer": "a greyhound", "evidence": ["D1:1"],
         "category": 4},
        {"question": "Which class did Bo start?", "evidence": ["D2:1; D1:2"], "category": 1},
        {"question": "Is Bo an artist?", "evidence": [], "category": 3},
        {"question": "What is Ada's pet?", "evidence": ["D", "D:1:1"], "category": 5,
         "adversarial_answer": "a cat"},
        {"question": "Unknown session", "evidence": ["D9:1"], "category": 2},
    ],
}


def test_conversion_file_names_dates_and_lines():
    files = locomo.conversation_files(SAMPLE)
    assert list(files) == [
        "daily/2023-05-08/conv-7-session-1.md",
        "daily/2022-12-17/conv-7-session-2.md",
    ]
    assert files["daily/2023-05-08/conv-7-session-1.md"] == (
        "# conv-7 session 1: 1:56 pm on 8 May, 2023\n"
        "\n"
        "**Ada** (D1:1): Hi Bo! I adopted a greyhound.\n"
        "**Bo** (D1:2): Wow, show me! [image: a photo of a dog on a sofa]\n"
    )
    assert "[image:" not in files["daily/2022-12-17/conv-7-session-2.md"]
    assert locomo.session_of_path("daily/2022-12-17/conv-7-session-2.md") == 2
    assert locomo.session_of_path("digest/wiki/x.md") is None


def test_session_dates_parse():
    assert locomo.session_datetime("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert locomo.session_datetime("12:48 am on 1 February, 2023") == datetime(2023, 2, 1, 0, 48)
    assert locomo.session_datetime(" 9:27  am on 7 Feb, 2022") == datetime(2022, 2, 7, 9, 27)
    with pytest.raises(ValueError, match="unrecognised"):
        locomo.session_datetime("yesterday")


def test_write_vault_rewrites_only_what_changed(tmp_path):
    written = locomo.write_vault(tmp_path, SAMPLE)
    assert written == {"daily/2023-05-08/conv-7-session-1.md": 1,
                       "daily/2022-12-17/conv-7-session-2.md": 2}
    stale = tmp_path / "daily/2020-01-01/old-session-1.md"
    stale.parent.mkdir()
    stale.write_text("old\n")
    first = tmp_path / "daily/2023-05-08/conv-7-session-1.md"
    before = first.stat().st_mtime_ns
    locomo.write_vault(tmp_path, SAMPLE)
    assert first.stat().st_mtime_ns == before and not stale.exists()


@pytest.mark.parametrize(
    ("evidence", "sessions"),
    [
        (["D1:3"], {1}),
        (["D1:3", "D4:12", "D1:9"], {1, 4}),
        (["D8:6; D9:17"], {8, 9}),  # two ids in one string
        (["D:11:26"], {11}),  # a stray colon
        (["D30:05"], {30}),  # a zero-padded turn
        (["D"], set()),  # bare D names nothing
        (["D", "D1:18"], {1}),
        (["d2 : 4", "D7"], {2, 7}),  # case, spaces, no turn
        ([], set()),
        ([None, 3], set()),
    ],
)
def test_evidence_ids_including_malformed_ones(evidence, sessions):
    assert locomo.evidence_sessions(evidence) == frozenset(sessions)


def test_questions_skip_those_without_usable_evidence():
    qs = locomo.questions(SAMPLE)
    assert [(q.qid, q.category, set(q.sessions)) for q in qs] == [
        ("conv-7#0", 4, {1}),
        ("conv-7#1", 1, {1, 2}),
        ("conv-7#3", 5, {1}),  # "D" is ignored, "D:1:1" kept
    ]  # #2 has no evidence; #4 names a session the conversation does not have


def test_metrics_on_hand_made_rankings():
    gold = frozenset({3, 7})
    assert locomo.recall_at([3, 1, 2, 4, 5, 7], gold, 5) == 0.5
    assert locomo.recall_at([3, 1, 2, 4, 5, 7], gold, 10) == 1.0
    assert locomo.hit_at([1, 2, 3], gold, 5) == 1.0 and locomo.hit_at([1, 2, 3], gold, 2) == 0.0
    assert locomo.reciprocal_rank([1, 2, 7, 3], gold) == pytest.approx(1 / 3)
    assert locomo.reciprocal_rank([1, 2], gold) == 0.0 and locomo.recall_at([], gold, 5) == 0.0
    with pytest.raises(ValueError):
        locomo.recall_at([1], frozenset(), 5)

    qs = [locomo.Question("a", "q", 4, frozenset({1})), locomo.Question("b", "q", 1, gold),
          locomo.Question("c", "q", 5, frozenset({9})), locomo.Question("d", "q", 2, gold)]
    rankings = {"a": [1, 2], "b": [7, 5, 6, 8, 9, 3], "c": []}  # "d" was not asked
    scores = locomo.score_rankings(rankings, qs)
    assert scores["all"].n == 3
    assert scores["all"].recall5 == pytest.approx((1 + 0.5 + 0) / 3)
    assert scores["all"].hit5 == pytest.approx(2 / 3)
    assert scores["all"].recall10 == pytest.approx(2 / 3)
    assert scores["all"].mrr == pytest.approx((1 + 1 + 0) / 3)
    assert scores[locomo.HEADLINE].n == 2  # without the adversarial question
    assert scores["multi-hop"].as_dict() == {"n": 1, "recall@5": 0.5, "recall@10": 1.0,
                                             "hit@5": 1.0, "hit@10": 1.0, "mrr": 1.0}
    assert "temporal" not in scores


def test_a_synthetic_conversation_end_to_end(tmp_path):
    run = locomo.run_conversation(SAMPLE, tmp_path / "v", HashingEmbedder(),
                                  ("keyword", "vector", "fused"))
    assert run.files == 2 and run.chunks == 2
    assert run.rankings["keyword"]["conv-7#0"][0] == 1  # "dog ... adopt" is in session 1
    assert run.rankings["fused"]["conv-7#1"][0] == 2  # "class" is in session 2
    assert all(len(t) == 3 for t in run.latency_ms.values())


@pytest.mark.skipif(not DATA.is_file(), reason=f"LoCoMo data not found at {DATA}")
def test_real_conversation_keyword_smoke(tmp_path):
    samples = locomo.load_conversations(DATA)
    assert len(samples) == 5
    run = locomo.run_conversation(samples[1], tmp_path / "conv1", HashingEmbedder(),
                                  ("keyword",))
    assert run.files == 19 and len(run.questions) == 105
    scores = locomo.score_rankings(run.rankings["keyword"], run.questions)["all"]
    assert scores.n == 105
    # measured 0.92 / 0.84 with windows + stop words (0.80 / 0.56 before): a floor, not a target
    assert scores.recall5 >= 0.85 and scores.mrr >= 0.75


def test_chat_layout_and_tracing_hits_to_sessions():
    from reme_lab.locomo import ranked_sessions, session_markdown, trace_sessions

    turns = [{"speaker": "Ada", "dia_id": "D1:1", "text": "I joined a choir.",
              "blip_caption": "a photo of a choir"}]
    chat = session_markdown("c", 1, "1:56 pm on 8 May, 2023", turns, layout="chat")
    assert "**Ada:** I joined a choir. [image: a photo of a choir]" in chat and "D1:1" not in chat
    note = ("- **2023-05-08**: Ada joined a choir. (derived_from:: [[daily/2023-05-08/c-session-1.md]])\n"
            "- **2023-06-01**: Ada sang a solo. (derived_from:: [[daily/2023-06-01/c-session-4.md]])\n")
    assert trace_sessions("digest/wiki/ada-s-choir.md", note) == [1, 4]
    assert trace_sessions("digest/wiki/ada-s-choir.md", note, [(2, 2)]) == [4, 1]  # matched line first
    assert trace_sessions("daily/2023-05-08/c-session-3.md") == [3]
    hits = [{"path": "digest/wiki/ada-s-choir.md", "chunks": [{"line_start": 2, "line_end": 2}]},
            {"path": "daily/2023-05-08/c-session-1.md", "chunks": []}]
    assert ranked_sessions(hits, lambda path: note) == [4, 1]


def test_tracing_a_note_to_its_matched_lines_alone():
    from reme_lab.locomo import ranked_sessions, trace_sessions

    note = ("- **2023-05-08**: Ada joined a choir. (derived_from:: [[daily/2023-05-08/c-session-1.md]])\n"
            "- **2023-06-01**: Ada sang a solo. (derived_from:: [[daily/2023-06-01/c-session-4.md]])\n")
    assert trace_sessions("digest/wiki/ada-s-choir.md", note, [(2, 2)], rest=False) == [4]
    assert trace_sessions("digest/wiki/ada-s-choir.md", note, rest=False) == []
    hits = [{"path": "digest/wiki/ada-s-choir.md", "chunks": [{"line_start": 2, "line_end": 2}]},
            {"path": "daily/2023-05-08/c-session-2.md", "chunks": []}]
    assert ranked_sessions(hits, lambda path: note, rest=False) == [4, 2]


def test_fusing_two_session_rankings():
    from reme_lab.locomo import fuse_rrf, one_slot_for

    raw, digest = [1, 2, 3, 4, 5, 6], [9, 3, 1]
    # a light second list only reorders near-ties; an equal one lifts its shared sessions
    assert fuse_rrf(raw, digest, rrf_k=60, weight=0.0) == [1, 2, 3, 4, 5, 6, 9]
    assert fuse_rrf(raw, digest, rrf_k=1, weight=1.0)[:4] == [1, 3, 9, 2]  # .75 .58 .5 .33
    assert fuse_rrf(raw, [3, 3], rrf_k=1, weight=1.0)[0] == 3  # a repeat counts once
    assert one_slot_for(raw, digest) == [1, 2, 3, 4, 9, 5, 6]
    assert one_slot_for(raw, [2, 4]) == [1, 2, 3, 4, 5, 6]  # nothing new: the raw order
    assert one_slot_for(raw, digest, slot=1) == [9, 1, 2, 3, 4, 5, 6]


# -- the forms people log: texting and a user ↔ assistant chat (issue #30) ------------------

LONG = {
    "sample_id": "conv-9",
    "conversation": {
        "speaker_a": "Ada",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ada", "dia_id": "D1:1", "text": "Hey Bo! I'm so glad you're here. "
             "I adopted a greyhound last week, she's called Pip and she's very shy. "
             "You should come and meet her, I'll make lunch."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "That's wonderful, Ada! I don't have "
             "time this week because I'm going to Lisbon for work, but I can't wait to meet her.",
             "blip_caption": "a photo of a grey dog on a sofa"},
            {"speaker": "Ada", "dia_id": "D1:3", "text": "No rush. You're always welcome."},
        ],
        "session_2_date_time": "10:05 am on 17 December, 2022",
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "My pottery class starts today. "
             "I've wanted to do it for years and I'm a bit nervous about it, to be honest."},
            {"speaker": "Ada", "dia_id": "D2:2", "text": "You'll love it. Glazes are hard, "
             "though, so don't worry if your first bowl is wonky. Tell me how it goes!"},
        ],
    },
    "qa": [
        {"question": "What is Ada's dog called?", "evidence": ["D1:1"], "category": 4},
        {"question": "Where does Bo travel?", "evidence": ["D1:2"], "category": 4},
        {"question": "Who adopted a dog and who started pottery?", "evidence": ["D1:1", "D2:1"],
         "category": 1},
        {"question": "What did Ada say about glazes?", "evidence": ["D2:02"], "category": 4},
        {"question": "Malformed", "evidence": ["D7:1"], "category": 4},
    ],
}


def _lines(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("**")]


def _turns(sample, n):
    return sample["conversation"][f"session_{n}"]


def test_every_layout_keeps_the_sessions_and_their_dates():
    expected = ["daily/2023-05-08/conv-9-session-1.md", "daily/2022-12-17/conv-9-session-2.md"]
    for layout in locomo.LAYOUTS:
        files = locomo.conversation_files(LONG, layout=layout)
        assert list(files) == expected, layout
        assert files[expected[0]].startswith("# conv-9 session 1: 1:56 pm on 8 May, 2023\n\n")
        assert [locomo.session_of_path(p) for p in files] == [1, 2]


def test_texting_bursts_keep_their_turn_ids_in_order():
    messages = locomo.texting_messages(_turns(LONG, 1), seed=3)
    assert len(messages) > 3  # the long turns went out as bursts
    assert [m.dia_id for m in messages] == sorted(m.dia_id for m in messages)
    assert {m.dia_id for m in messages} == {"D1:1", "D1:2", "D1:3"}
    by_turn = {t["dia_id"]: t["speaker"] for t in _turns(LONG, 1)}
    assert all(m.speaker == by_turn[m.dia_id] for m in messages)
    # the caption rides on the turn's last message, word for word
    captions = [(m.dia_id, m.caption) for m in messages if m.caption]
    assert captions == [("D1:2", "a photo of a grey dog on a sofa")]
    last_of_d12 = [m for m in messages if m.dia_id == "D1:2"][-1]
    assert last_of_d12.caption
    markdown = locomo.session_markdown("conv-9", 1, "x", _turns(LONG, 1), layout="texting", seed=3)
    assert "[image: a photo of a grey dog on a sofa]" in markdown
    assert len(_lines(markdown)) == len(messages)


def test_texting_keeps_every_word_that_says_something():
    """Typing changes case, apostrophes and a few spoken forms; the words that carry a
    fact (names, places, things) all reach the messages."""
    for n in (1, 2):
        turns = _turns(LONG, n)
        for seed in range(5):
            typed = " ".join(m.text for m in locomo.texting_messages(turns, seed=seed)).lower()
            for word in ("greyhound", "pip", "shy", "lisbon", "pottery", "glazes", "bowl",
                         "nervous", "years"):
                if any(word in t["text"].lower() for t in turns):
                    assert word in typed, (seed, word)


@pytest.mark.skipif(not DATA.is_file(), reason=f"LoCoMo data not found at {DATA}")
def test_texting_really_texts_on_a_real_conversation():
    sample = locomo.load_conversations(DATA)[0]
    files = locomo.conversation_files(sample, layout="texting", seed=0)
    clean = locomo.conversation_files(sample, layout="chat")
    texted = [line.split(":** ", 1)[1] for md in files.values() for line in _lines(md)]
    original = [line.split(":** ", 1)[1] for md in clean.values() for line in _lines(md)]
    words = [line.split(" [image:")[0] for line in texted]
    lowercase = sum(w == w.lower() for w in words) / len(words)
    assert 0.75 <= lowercase < 1.0  # mostly lowercase, not all
    straight = sum(len(re.findall(r"\b[A-Za-z]+'(?:m|s|t|re|ve|d)\b", w)) for w in words)
    before = sum(len(re.findall(r"\b[A-Za-z]+'(?:m|s|t|re|ve|d)\b", w)) for w in original)
    assert before > 300 and straight == 0  # every contraction dropped its apostrophe or curled it
    assert any(re.search(r"\b(?:im|dont|thats)\b", w) for w in words)
    assert any("’" in w for w in words)
    assert 1.2 < len(texted) / len(original) < 2.5  # long turns sent as bursts
    assert any(re.search(r"\bu\b", w) for w in words)
    assert any(re.search(r"\b(?:lol|haha)\b", w) for w in words)
    assert any(re.search(r"[\U0001F300-\U0001FAFF❤]", w) for w in words)
    laughs = sum(bool(re.search(r"\b(?:lol|haha|hahaha)\b", w)) for w in words) / len(words)
    assert laughs < 0.15  # now and then, not a caricature
    assert not any(w.endswith(".") and not w.endswith("..") for w in words)
    # captions as the chat layout shows them
    assert sorted(re.findall(r"\[image: [^\]]*\]", "".join(files.values()))) == sorted(
        re.findall(r"\[image: [^\]]*\]", "".join(clean.values())))


def test_texting_is_deterministic_for_a_seed():
    one = locomo.conversation_files(LONG, layout="texting", seed=7)
    assert one == locomo.conversation_files(LONG, layout="texting", seed=7)
    others = [locomo.conversation_files(LONG, layout="texting", seed=s) for s in range(8, 14)]
    assert any(other != one for other in others)
    assert one != locomo.conversation_files(LONG, layout="chat")


def test_the_assistant_form_relabels_exactly_one_speaker():
    for user, assistant in (("a", "Bo"), ("b", "Ada")):
        files = locomo.conversation_files(LONG, layout="assistant", user=user)
        label = locomo.assistant_label("conv-9")
        person = "Ada" if user == "a" else "Bo"
        for n, md in zip((1, 2), files.values(), strict=True):
            turns = _turns(LONG, n)
            lines = _lines(md)
            assert len(lines) == len(turns)
            for line, turn in zip(lines, turns, strict=True):
                who, text = line[2:].split(":** ", 1)
                assert who == (label if turn["speaker"] == assistant else person)
                assert text.split(" [image:")[0] == turn["text"]  # replies kept word for word
        assert assistant not in {line[2:].split(":**")[0] for md in files.values()
                                 for line in _lines(md)}
    labels = {locomo.assistant_label(f"conv-{i}") for i in range(20)}
    assert labels == set(locomo.ASSISTANT_LABELS)  # varied by conversation
    with pytest.raises(ValueError, match="'a' or 'b'"):
        locomo.conversation_files(LONG, layout="assistant", user="c")


def test_questions_about_the_user_are_those_whose_evidence_is_all_theirs():
    assert locomo.user_questions(LONG, "a") == {"conv-9#0", "conv-9#3"}  # D2:02 is Ada's D2:2
    assert locomo.user_questions(LONG, "b") == {"conv-9#1"}
    # the mixed question (D1:1 Ada + D2:1 Bo) and the one naming no turn are neither's


def test_write_vault_in_the_new_layouts(tmp_path):
    written = locomo.write_vault(tmp_path, LONG, layout="assistant", user="b")
    assert set(written.values()) == {1, 2}
    text = (tmp_path / "daily/2023-05-08/conv-9-session-1.md").read_text("utf-8")
    assert f"**{locomo.assistant_label('conv-9')}:** Hey Bo!" in text
    locomo.write_vault(tmp_path, LONG, layout="texting", seed=1)
    text = (tmp_path / "daily/2023-05-08/conv-9-session-1.md").read_text("utf-8")
    assert text == locomo.conversation_files(LONG, layout="texting", seed=1)[
        "daily/2023-05-08/conv-9-session-1.md"]


def _memory_bench():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_dream_memory.py"
    spec = importlib.util.spec_from_file_location("bench_dream_memory", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_memory_benchmark_runs_every_form_and_reports_each(tmp_path, capsys, monkeypatch):
    """bench_dream_memory.py on a two-session conversation through the real CLI (hashing
    embedder): each form dreamt and asked, its figures, the note measures, the dream's
    CPU seconds, the spread between forms, and the flagged notes written for review."""
    bench = _memory_bench()
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([LONG]), "utf-8")
    monkeypatch.setattr(bench, "DATA", data)
    out, flagged = tmp_path / "figures.json", tmp_path / "flagged.md"
    code = bench.main(["--conversations", "0", "--embedder", "hashing", "--work",
                       str(tmp_path / "work"), "--assistant-user", "a", "--json", str(out),
                       "--flagged", str(flagged)])
    assert code in (0, 1)  # 1: a target missed (the figures are not asserted here)
    printed = capsys.readouterr().out
    for label in ("== form clean", "== form texting", "== form assistant-a",
                  "questions whose evidence is all the user's", "names with no topic",
                  "descriptions in first person", "notes mixing two topics",
                  "broken contractions / agreement errors", "spread between forms",
                  "CPU s: per 1,000 messages"):
        assert label in printed, label
    figures = json.loads(out.read_text("utf-8"))
    forms = {f["form"]: f for f in figures["forms"]}
    assert list(forms) == ["clean", "texting", "assistant-a"]
    assert forms["clean"]["messages"] == 5 < forms["texting"]["messages"]  # bursts
    assert forms["assistant-a"]["figures"]["digest (user's questions)"]["n"] == 2
    for form in forms.values():
        assert form["dream_cpu_s"] > 0 and form["dream_s"] > 0 and form["turns"] == 5
        assert set(form["voice"]) == {"notes", "no_topic", "first_person", "mixing", "agreement"}
    heads = [f["headline_recall5"] for f in forms.values()]
    assert figures["spread"] == pytest.approx(max(heads) - min(heads))
    assert flagged.read_text("utf-8").startswith("# Notes the measures flagged")
    text = (tmp_path / "work" / "texting" / "conv-9" / "daily/2023-05-08/conv-9-session-1.md")
    assert text.read_text("utf-8") == locomo.conversation_files(LONG, layout="texting")[
        "daily/2023-05-08/conv-9-session-1.md"]
    # the measures again over the kept vaults, without dreaming
    assert bench.main(["--remeasure", str(tmp_path / "work"), "--flagged", str(flagged)]) in (0, 1)
    assert "form assistant-a:" in capsys.readouterr().out
