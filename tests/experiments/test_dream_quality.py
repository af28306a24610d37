"""The dream-quality metrics (reme_lab/dream_quality.py), the labelled set
in tests/data/dream_eval/, and the benchmark's pipeline on a few files of it."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from reme_lab.dream_quality import (
    ExpectedUnit,
    ProducedNote,
    description_repeats_name,
    evaluate,
    is_fragment_name,
    is_thin,
    key_hits,
    keys_needed,
    load_labels,
    load_queries,
    match_units,
    material_files,
)
from reme_workbench.errors import RemeError

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "tests" / "data" / "dream_eval"
SPLITS = ("tune", "holdout")
# dev/: user ↔ assistant chats read while developing; dev2/ … dev5/: blind sets until
# their one figure (as holdout2/ … holdout5/), read since
LABELLED_SPLITS = (*SPLITS, "dev", "dev2", "dev3", "dev4", "dev5")
PROV = "\n\nderived_from:: [[{}]]\n"

# --- fragment names ---------------------------------------------------------------------------

FRAGMENTS = [
    "for-the-name",
    "in-the-tags-view",
    "because-notes-are-plain-text-files",
    "warning-vaults-within-vaults-because-internal-links-are",
    "[[Settings]]",
    "[[Settings#Files and links|Files and links]]",
    "[[属性列表]]",
    "[!warning] Vaults within vaults",
    "note-markdown-links-need-the-path-to-be",  # a callout's slug
    "tip-keep-it-short",
    "For the name, you can choose anything you like.",
    "you-can-choose-anything",
    "the-first-snapshot",
    "links-to-the",  # an open clause
    "install-kestrel-and-then-create-a-repository-and",
    "如果你想链接到笔记中的某个标题请输入井号",  # a whole clause
    "因为笔记都是纯文本文件",
    "在笔记名称后加井号",
    "把搜索嵌入笔记",
    "链接的笔记还不存在时",
    "这是标签的",
    "符号链接，以及风险",
    "**bold** names",
    "`kestrel init`",
]
GOOD = [
    "internal-links",
    "link-to-a-heading",
    "symbolic-links",
    "符号链接",
    "rotate-db-credentials",
    "prefers-uv-over-pip",
    "in-place-restore-overwrites-files",  # "in place" is a compound, not a preposition
    "per-vault-settings",
    "note-properties",  # a callout type with one word after it is a noun
    "sign-in",  # a phrasal particle may end a name
    "当前笔记",  # 当前 is a word, not 当 + clause
    "未链接的提及",  # 提及 is a word, not 及
    "keep-within-从最新快照算",
    "日期用-yyyy-mm-dd-格式",
    "kestrel 仓库加密",
]


@pytest.mark.parametrize("name", FRAGMENTS)
def test_fragment_names_are_caught(name):
    assert is_fragment_name(name), name


@pytest.mark.parametrize("name", GOOD)
def test_good_names_pass(name):
    assert is_fragment_name(name) is None


def test_fragment_reasons_name_the_rule():
    assert is_fragment_name("for-the-name") == "starts with the function word 'for'"
    assert is_fragment_name("[!note] x") == "callout marker"
    assert is_fragment_name("a, b") == "sentence punctuation"
    assert is_fragment_name("one-two-three-four-five-six-seven") == "more than 6 words (7)"
    assert is_fragment_name("一二三四五六七八九十一二三") == "more than 12 CJK characters (13)"
    assert is_fragment_name("links-to-the") == "ends with 'the'"
    assert is_fragment_name("因为笔记") == "starts with '因为'"
    assert is_fragment_name("链接的笔记的") == "ends with '的'"
    assert is_fragment_name("six-words-is-still-quite-fine") is None  # the limit itself passes


def test_every_reference_name_in_the_labels_is_a_good_name():
    for split in LABELLED_SPLITS:
        for label in load_labels(EVAL / split / "labels.yaml").values():
            for unit in label.units:
                for name in (unit.name, *unit.also):
                    assert is_fragment_name(name) is None, (split, label.path, name)


# --- thin notes and descriptions ---------------------------------------------------------------


def test_a_one_sentence_note_is_thin():
    body = "For the name, you can choose anything you like." + PROV.format("resource/x.md")
    assert is_thin(body) == "own prose weighs 3 words (< 12)"


def test_steps_that_are_only_links_are_thin():
    body = ("## Steps\n\n1. [[Settings]]\n2. [[Settings#Files and links|Files and links]]\n"
            "3. [[Sync/Settings]]\n" + PROV.format("resource/x.md"))
    assert is_thin(body) == "steps are only links"


def test_links_labels_headings_and_related_lists_do_not_count_as_prose():
    body = ("# Symbolic links\n\n**Why:**\n\nSee [[Symbolic links]] and [[Settings]].\n\n"
            "## Related\n\n- [[digest/wiki/a-long-name-about-many-things-and-more-words.md]]\n"
            "- [[digest/wiki/another-long-name-about-even-more-things.md]]\n"
            + PROV.format("resource/x.md"))
    assert is_thin(body)


def test_a_note_with_a_real_sentence_or_two_is_not_thin():
    en = ("Lodestone follows symbolic links to files and folders on macOS, Linux and Windows, "
          "but a link that points back into the vault makes it index the same files twice."
          + PROV.format("resource/x.md"))
    zh = ("符号链接是文件系统中指向另一个文件或文件夹的条目，Lodestone 可以跟随它，但支持有限，"
          "指回库内的链接会让同一批文件出现两次。" + PROV.format("resource/x.md"))
    assert is_thin(en) is None
    assert is_thin(zh) is None


def test_chinese_threshold_is_about_24_characters():
    short = "符号链接指向别处的文件。" + PROV.format("resource/x.md")  # 11 characters
    assert is_thin(short)


def test_description_repeats_name():
    assert description_repeats_name("for-the-name", "For the name, you can choose anything you like.")
    assert description_repeats_name("symbolic-links", "Symbolic links.")
    assert description_repeats_name("符号链接", "符号链接")
    assert description_repeats_name("link-to-a-heading", "How to link to a heading in another note.")
    assert description_repeats_name("symbolic-links", "About symbolic links")
    assert description_repeats_name("symbolic-links", "Symbolic links in Lodestone")
    assert description_repeats_name("x", "")
    assert not description_repeats_name(
        "symbolic-links", "Which kinds of symlink Lodestone follows and the rules for using them.")
    assert not description_repeats_name(
        "vault", "A folder on disk where the app keeps notes; links reach only the same vault.")
    assert not description_repeats_name("符号链接", "Lodestone 跟随哪些软链接，以及使用它们时的规则和风险。")


# --- labels and matching -----------------------------------------------------------------------


def test_labels_cover_every_material_file_and_nothing_else():
    for split in LABELLED_SPLITS:
        folder = EVAL / split
        labels = load_labels(folder / "labels.yaml")
        assert set(labels) == set(material_files(folder)), split


def test_the_set_is_mixed_and_split_as_documented():
    labels = {s: load_labels(EVAL / s / "labels.yaml") for s in SPLITS}
    chats = {s: [lb for lb in split.values() if lb.kind == "assistant_chat"]
             for s, split in labels.items()}
    # user ↔ assistant chats (issue #30): facts about the user, in both languages; tune holds
    # the 42 read while the rules were written, holdout a blind set of at least 40 more
    assert len(chats["tune"]) >= 21 and len(chats["holdout"]) >= 40
    for split in chats.values():
        assert 0.4 * len(split) <= sum(lb.language == "zh" for lb in split) <= 0.6 * len(split)
        assert all(1 <= len(lb.units) <= 5 for lb in split)
        assert all(u.bucket == "personal" for lb in split for u in lb.units)
        assert any(u.group for lb in split for u in lb.units)  # a later day repeats a fact
    labels = {s: {p: lb for p, lb in split.items() if lb.kind != "assistant_chat"}
              for s, split in labels.items()}  # the set before them, as it was documented
    every = [label for split in labels.values() for label in split.values()]
    assert 50 <= len(every) <= 60
    for split in labels.values():  # long conversations between people, in both languages
        talks = [lb for lb in split.values() if lb.kind == "chat" and lb.units
                 and all(u.bucket == "wiki" for u in lb.units)]
        assert {lb.language for lb in talks} == {"en", "zh"}
    assert sum(label.language == "zh" for label in every) >= 0.4 * len(every)
    assert {label.kind for label in every} == {"doc", "log", "meeting", "chat"}
    assert any(label.nothing for label in every)
    assert len(labels["holdout"]) * 2 <= len(labels["tune"]) + 2  # about a third held out
    for label in every:
        for unit in label.units:
            assert 1 <= len(unit.key) <= 5, unit.name


def test_the_dev_split_is_user_assistant_chats_over_several_days():
    """dev/ (issue #30, README "The dev split"): 30 chats, 20 Chinese and 10 English, dated
    May 2027, every unit a fact about the user, and the facts a later day repeats, moves or
    corrects grouped across days — for every user who has more than one day."""
    labels = load_labels(EVAL / "dev" / "labels.yaml")
    assert len(labels) == 30
    assert sum(lb.language == "zh" for lb in labels.values()) == 20
    assert {lb.kind for lb in labels.values()} == {"assistant_chat"}
    assert all(rel.startswith("daily/2027-05-") for rel in labels)
    assert all(1 <= len(lb.units) <= 5 and not lb.nothing for lb in labels.values())
    units = [u for lb in labels.values() for u in lb.units]
    assert {u.bucket for u in units} == {"personal"}
    assert all(1 <= len(u.key) <= 5 for u in units)
    days: dict[str, set[str]] = {}
    for u in units:
        if u.group:
            days.setdefault(u.group, set()).add(u.material.split("/")[1])
    assert len(days) >= 8 and all(len(d) >= 2 for d in days.values()), days
    basenames = [rel.rsplit("/", 1)[1] for rel in labels]
    assert len(set(basenames)) == len(basenames)  # the speaker test keys files by basename


@pytest.mark.parametrize("split, month",
                         [("dev2", "2027-07"), ("dev3", "2027-09"), ("dev4", "2027-11"),
                          ("dev5", "2027-12")])
def test_the_later_chat_splits_are_user_assistant_chats_in_both_languages(split, month):
    """dev2/, dev3/, dev4/ and dev5/ (issue #30, README "The dev2 split", "The dev3
    split", "The dev4 split", "The dev5 split"): 30
    chats each, 15 Chinese and 15 English, from one month, 60–80 facts about the user in
    both languages, and every fact a later day moves or corrects grouped across days; no
    file shares a name with another split's (the speaker test in tests/brains keys files by
    basename), and every name a note may match passes `is_fragment_name`."""
    labels = load_labels(EVAL / split / "labels.yaml")
    assert len(labels) == 30
    assert sum(lb.language == "zh" for lb in labels.values()) == 15
    assert {lb.kind for lb in labels.values()} == {"assistant_chat"}
    assert all(rel.startswith(f"daily/{month}-") for rel in labels)
    assert all(1 <= len(lb.units) <= 5 and not lb.nothing for lb in labels.values())
    units = [u for lb in labels.values() for u in lb.units]
    assert 60 <= len(units) <= 80
    for language in ("en", "zh"):
        assert sum(labels[u.material].language == language for u in units) >= 30, language
    assert {u.bucket for u in units} == {"personal"}
    assert all(1 <= len(u.key) <= 5 for u in units)
    assert not [n for u in units for n in (u.name, *u.also) if is_fragment_name(n)]
    days: dict[str, set[str]] = {}
    for u in units:
        if u.group:
            days.setdefault(u.group, set()).add(u.material.split("/")[1])
    assert len(days) >= 10 and all(len(d) >= 2 for d in days.values()), days
    others = {p.name for other in LABELLED_SPLITS if other != split
              for p in (EVAL / other / "daily").glob("*/*.md")}
    basenames = [rel.rsplit("/", 1)[1] for rel in labels]
    assert len(set(basenames)) == len(basenames) and not others & set(basenames)


def test_every_key_phrase_occurs_in_its_material():
    """A note that carried the unit's material word for word would match it."""
    for split in LABELLED_SPLITS:
        for label in load_labels(EVAL / split / "labels.yaml").values():
            text = " ".join((EVAL / split / label.path).read_text("utf-8").casefold().split())
            for unit in label.units:
                assert key_hits(unit, text) == len(unit.key), (label.path, unit.name)


def test_queries_name_existing_material_and_are_mostly_chinese():
    queries = load_queries(EVAL / "queries.yaml")
    assert 35 <= len(queries) <= 50
    assert sum(q.lang == "zh" for q in queries) >= len(queries) * 0.6
    assert {q.lang for q in queries} >= {"zh", "en"}
    for q in queries:
        for f in q.files:
            assert (EVAL / f).is_file(), (q.id, f)


def test_bad_labels_fail_with_a_message_naming_the_entry(tmp_path):
    bad = tmp_path / "labels.yaml"
    bad.write_text("files:\n  daily/x.md:\n    kind: doc\n    language: en\n"
                   "    units:\n      - {bucket: recipes, name: x, key: [a]}\n", "utf-8")
    with pytest.raises(RemeError, match=r"daily/x.md, unit 1: needs a bucket"):
        load_labels(bad)
    bad.write_text("files:\n  daily/x.md: {kind: doc, language: en}\n", "utf-8")
    with pytest.raises(RemeError, match="nothing: true"):
        load_labels(bad)


def unit(material="resource/a.md", index=0, bucket="wiki", name="x", key=("alpha", "beta"),
         group=None, also=()):
    return ExpectedUnit(material, index, bucket, name, tuple(also),
                        tuple(tuple(k.split("|")) for k in key), group)


def note(path, body, sources=("resource/a.md",), name=None, description=""):
    name = name or Path(path).stem
    bucket = path.split("/")[1]
    return ProducedNote(path, bucket, name, description, body, tuple(sources))


def test_keys_needed_is_two_thirds_rounded_up():
    assert [keys_needed(n) for n in (1, 2, 3, 4, 5)] == [1, 2, 2, 3, 4]


def test_a_note_matches_only_units_of_its_own_material_and_with_enough_keys():
    u = unit(key=("alpha", "beta|β", "gamma"))
    ok = note("digest/wiki/n.md", "alpha and β here")
    other = note("digest/wiki/m.md", "alpha beta gamma", sources=("resource/b.md",))
    weak = note("digest/wiki/w.md", "alpha only")
    matches = match_units([ok, other, weak], [u])
    assert [(m.note.path, m.hits) for m in matches] == [("digest/wiki/n.md", 2)]


def test_links_in_a_note_do_not_count_for_its_keys():
    u = unit(key=("alpha", "beta"))
    linked = note("digest/wiki/n.md", "alpha\n\n- [[digest/wiki/beta-notes.md]]\n")
    aliased = note("digest/wiki/m.md", "alpha, see [[digest/wiki/x.md|beta]]")
    assert match_units([linked], [u]) == []
    assert [m.note.path for m in match_units([aliased], [u])] == ["digest/wiki/m.md"]


def test_greedy_matching_gives_each_unit_one_note_and_each_note_one_unit():
    u1 = unit(index=0, name="verify a restore", key=("restore", "verify"))
    u2 = unit(index=1, name="restore a snapshot", key=("restore", "target"))
    both = note("digest/procedure/check-a-restore.md", "restore with --target and --verify")
    only_target = note("digest/procedure/restore-a-snapshot.md", "restore into a --target folder")
    matches = {m.unit.name: m.note.path for m in match_units([both, only_target], [u1, u2])}
    # the name decides the tie: each note goes to the unit it is named after
    assert matches == {"restore a snapshot": "digest/procedure/restore-a-snapshot.md",
                       "verify a restore": "digest/procedure/check-a-restore.md"}


def test_one_note_may_cover_a_unit_and_its_translation():
    en = unit("resource/en.md", name="symbolic links", key=("symlink", "junction"), group="s")
    zh = unit("resource/zh.md", name="符号链接", key=("符号链接", "目录联接"), group="s")
    other = unit("resource/en.md", index=1, name="junctions", key=("symlink", "junction"))
    merged = note("digest/wiki/symbolic-links.md", "symlink junction 符号链接 目录联接",
                  sources=("resource/en.md", "resource/zh.md"))
    matched = {m.unit.name for m in match_units([merged], [en, zh, other])}
    assert matched == {"symbolic links", "符号链接"}  # not "junctions": another group


def test_evaluate_counts_buckets_fragments_thin_broken_and_spurious_personal(tmp_path):
    labels_file = tmp_path / "labels.yaml"
    labels_file.write_text(yaml.safe_dump({"files": {
        "resource/a.md": {"kind": "doc", "language": "en", "units": [
            {"bucket": "procedure", "name": "link to a heading", "key": ["heading", "hash"]},
            {"bucket": "wiki", "name": "symbolic links", "key": ["symlink", "junction"]},
        ]},
        "daily/2026-01-01/chat.md": {"kind": "chat", "language": "en", "nothing": True},
    }}), "utf-8")
    labels = load_labels(labels_file)
    long = (" Lodestone follows it on every desktop platform it supports, with a few limits"
            " that the help pages document.")
    notes = [
        note("digest/wiki/link-to-a-heading.md", "Add a hash and the heading text." + long,
             description="Pointing at one section of another note."),
        note("digest/personal/for-the-name.md", "For the name, you can choose anything you like.",
             description="For the name, you can choose anything."),
        note("digest/wiki/symbolic-links.md", "A symlink or a junction points elsewhere." + long,
             description="Which links the app follows."),
        note("digest/wiki/weather.md", "It rained all day so we stayed in." + long,
             sources=("daily/2026-01-01/chat.md",), description="Small talk about the weekend."),
    ]
    broken = [("digest/wiki/symbolic-links.md", "digest/wiki/symbolic-links.md:3 [[Settings]]"),
              ("daily/2026-01-01/chat.md", "daily: not written by dream")]
    report = evaluate(notes, ["resource/a.md", "daily/2026-01-01/chat.md"], broken, labels)
    assert report.notes == 4 and report.notes_by_bucket == {"procedure": 0, "personal": 1, "wiki": 3}
    assert report.fragment_names == [("for-the-name", "starts with the function word 'for'")]
    assert report.fragment_rate == 0.25
    assert [p for p, _ in report.thin_notes] == ["digest/personal/for-the-name.md"]
    assert [n for n, _ in report.repeating_descriptions] == ["for-the-name"]
    assert report.broken_links == ["digest/wiki/symbolic-links.md:3 [[Settings]]"]
    assert report.spurious_personal == ["digest/personal/for-the-name.md"]
    assert report.noise_notes == ["digest/wiki/weather.md"]
    assert report.expected_units == 2 and len(report.matched) == 2
    assert report.unit_recall == 1.0
    assert report.bucket_accuracy == 0.5  # the heading note is wiki, expected procedure
    assert report.bucket_confusion[("procedure", "wiki")] == 1
    assert report.targets() == {"broken_links": False, "fragment_rate": False,
                                "bucket_accuracy": False}
    assert report.notes_per_material["resource/a.md"] == (3, 2)
    as_json = report.to_json()
    assert as_json["notes_per_material"] == {"produced": 4, "expected": 2, "ratio": 2.0}


def test_evaluate_without_labels_reports_only_label_free_figures():
    n = note("digest/wiki/x.md", "Some text long enough to stand on its own as a proper note here.")
    report = evaluate([n], ["resource/a.md"])
    assert not report.labelled
    assert report.bucket_accuracy is None and report.unit_recall is None
    assert report.targets()["bucket_accuracy"] is None
    assert report.to_json()["notes"] == 1


# --- the benchmark's pipeline -------------------------------------------------------------------


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_dream_quality", ROOT / "benchmarks" / "bench_dream_quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SMALL = [  # a doc page, its translation, and a chat with the agent
    "resource/2026-11-20/lodestone-help/Symbolic links.md",
    "resource/2026-11-21/lodestone-help-zh/符号链接.md",
    "daily/2026-11-22/chat-weekend.md",
]


def test_the_benchmark_dreams_a_few_files_of_the_set_and_reports_every_figure(tmp_path, capsys):
    material = tmp_path / "material"
    labels = yaml.safe_load((EVAL / "tune" / "labels.yaml").read_text("utf-8"))["files"]
    for rel in SMALL:
        (material / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(EVAL / "tune" / rel, material / rel)
    (material / "labels.yaml").write_text(
        yaml.safe_dump({"files": {rel: labels[rel] for rel in SMALL}}, allow_unicode=True), "utf-8")
    out = tmp_path / "figures.json"
    code = _bench().main(["--material", str(material), "--embedder", "hashing", "--json", str(out),
                          "--show"])
    assert code in (0, 1)  # 1: a target missed (the figures are not asserted here)
    printed = capsys.readouterr().out
    for label in ("bucket accuracy", "fragment names", "broken links written", "thin notes",
                  "description repeats name", "unit recall", "spurious personal"):
        assert label in printed
    [result] = json.loads(out.read_text("utf-8"))
    assert result["materials"] == 3
    assert result["labelled"] is True and result["expected_units"] == 10  # 8 + the chat's 2
    for key in ("notes", "notes_by_bucket", "fragment_rate", "fragment_names", "thin_rate",
                "repeat_rate", "broken_links", "spurious_personal", "unit_recall",
                "bucket_accuracy", "noise_notes", "notes_per_material", "targets", "outcomes"):
        assert key in result, key
    assert set(result["by_language"]) == {"en", "zh"}
    assert result["notes"] == sum(result["notes_by_bucket"].values()) > 0


CHATS = ["daily/2027-01-12/chat-interview-prep.md", "daily/2027-01-04/红烧排骨.md"]


def test_the_benchmark_scores_the_facts_of_user_assistant_chats(tmp_path, capsys):
    """Issue #30: the share of labelled facts about the user that reach a note, printed
    and in the JSON, over both languages and per language."""
    material = tmp_path / "material"
    labels = yaml.safe_load((EVAL / "tune" / "labels.yaml").read_text("utf-8"))["files"]
    chosen = [*CHATS, SMALL[0]]
    for rel in chosen:
        (material / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(EVAL / "tune" / rel, material / rel)
    (material / "labels.yaml").write_text(
        yaml.safe_dump({"files": {rel: labels[rel] for rel in chosen}}, allow_unicode=True), "utf-8")
    out = tmp_path / "figures.json"
    _bench().main(["--material", str(material), "--embedder", "hashing", "--json", str(out),
                   "--show"])
    printed = capsys.readouterr().out
    assert "facts from user ↔ assistant chats in a note: all " in printed
    [result] = json.loads(out.read_text("utf-8"))
    facts = result["assistant_chat_facts"]
    assert set(facts) == {"all", "en", "zh"}
    assert (facts["all"]["expected"], facts["en"]["expected"], facts["zh"]["expected"]) == (5, 3, 2)
    assert facts["all"]["matched"] == facts["en"]["matched"] + facts["zh"]["matched"]
    assert facts["all"]["recall"] == facts["all"]["matched"] / 5
    assert len(facts["all"]["unmatched"]) == 5 - facts["all"]["matched"]
    assert result["expected_units"] > 5  # the doc page's units are not chat facts


def test_the_benchmark_without_labels_prints_the_label_free_figures(tmp_path, capsys):
    material = tmp_path / "material"
    rel = "daily/2026-11-19/set-up-nightly-backup.md"
    (material / rel).parent.mkdir(parents=True)
    shutil.copyfile(EVAL / "tune" / rel, material / rel)
    out = tmp_path / "figures.json"
    _bench().main(["--material", str(material), "--embedder", "hashing", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "fragment names" in printed and "bucket accuracy" not in printed
    [result] = json.loads(out.read_text("utf-8"))
    assert result["labelled"] is False and result["bucket_accuracy"] is None


def test_the_benchmark_refuses_a_missing_material_folder(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        _bench().main(["--material", str(tmp_path / "nope")])
    assert exc.value.code == 2
    assert "is not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(("split", "dreamt"), [
    ("dev", ["dev"]), ("all", ["tune", "holdout"]), ("holdout", ["holdout"]),
    ("dev2", ["dev2"]), ("dev3", ["dev3"]), ("dev4", ["dev4"]), ("dev5", ["dev5"]),
])
def test_the_benchmark_dreams_dev_alone_and_all_stays_tune_and_holdout(
        split, dreamt, monkeypatch, capsys):
    """`--split dev` dreams tests/data/dream_eval/dev/ with its own labels; `all` pools
    tune/ and holdout/ only, as every figure before dev/ existed did. (run_split is
    replaced by one that records what it was given and dreams nothing: this is about
    which splits run, not their figures.)"""
    bench = _bench()
    planned = []

    def record(name, folder, labels, work, **kwargs):
        planned.append((name, folder, labels))
        run = SimpleNamespace(notes=[], materials=[], broken_links=[], seconds=0.0, outcomes={})
        return {"name": name, "run": run, "report": evaluate([], [], [], labels),
                "by_language": {}, "folder": folder, "labels": labels, "chat_facts": {}}

    monkeypatch.setattr(bench, "run_split", record)
    bench.main(["--split", split, "--embedder", "hashing"])
    assert [name for name, _, _ in planned] == dreamt
    for name, folder, labels in planned:
        assert folder == EVAL / name
        assert labels == load_labels(EVAL / name / "labels.yaml")
    assert f"[{dreamt[0]}]" in capsys.readouterr().out


@pytest.mark.parametrize("split", ["tune", "holdout"])
def test_the_offline_brain_meets_the_targets_on_the_labelled_set(split, tmp_path):
    """The issue's targets, on every file of a split (holdout was never used for tuning):
    no broken link written, at most 10 % fragment names, bucket accuracy at least 0.85.
    On tune, also nothing from chit-chat and nothing personal from documentation (on
    holdout one chit-chat note remains: measured, not tuned away — see docs/benchmarks.md).
    The user ↔ assistant chats (`kind: assistant_chat`, issue #30) are left out: their
    target (>= 0.8 of their facts in a note) is the offline brain's rewrite's to meet and
    `bench_dream_quality.py` measures it (with them, the brain of a779eec filed 7 personal
    facts of the chats then in holdout, now in tune, under wiki: bucket accuracy 0.81)."""
    bench = _bench()
    labels = load_labels(EVAL / split / "labels.yaml")
    files = [rel for rel in material_files(EVAL / split) if labels[rel].kind != "assistant_chat"]
    result = bench.run_split(split, EVAL / split, labels, tmp_path, embedder="hashing",
                             files=files)
    report = result["report"]
    assert report.broken_links == []
    assert report.fragment_rate <= 0.10, report.fragment_names
    assert report.bucket_accuracy >= 0.85
    assert report.spurious_personal == []
    if split == "tune":
        assert report.noise_notes == []
