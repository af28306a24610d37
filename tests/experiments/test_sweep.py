"""Threshold sweeps (reme_lab.sweep) and `reme-lab sweep`: consolidate on copies of a
generated vault, one per grid point, scored against the planted truth."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from reme_lab.cli import cli
from reme_lab.generator import VaultSpec, generate_vault
from reme_lab.sweep import grid_points, read_csv, settings_at, sweep, write_csv
from reme_workbench.config import Settings
from reme_workbench.errors import RemeError

SPEC = VaultSpec(notes=160, duplicates=6, near_misses=6, stale=12, hubs=2, overloaded=1, seed=5)


def factory(path):
    return generate_vault(path, SPEC).truth_path


def test_grid_points_are_every_combination_and_unknown_keys_are_refused():
    points = grid_points({"merge.min_agree": [1, 2], "archive.threshold": [0.1, 0.2]})
    assert points == [{"merge.min_agree": 1, "archive.threshold": 0.1},
                      {"merge.min_agree": 1, "archive.threshold": 0.2},
                      {"merge.min_agree": 2, "archive.threshold": 0.1},
                      {"merge.min_agree": 2, "archive.threshold": 0.2}]
    with pytest.raises(RemeError, match="not a consolidate setting"):
        grid_points({"merge.min_sim": [0.5]})
    with pytest.raises(RemeError, match="not a consolidate setting"):
        grid_points({"recall.rrf_k": [60]})
    with pytest.raises(RemeError, match="needs a list of values"):
        grid_points({"merge.min_agree": 2})
    assert settings_at(Settings(), {"merge.min_agree": 1}).merge.min_agree == 1
    with pytest.raises(RemeError, match="not a valid setting"):
        settings_at(Settings(), {"merge.min_agree": 7})


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    grid = {"archive.threshold": [0.0, 0.15], "merge.min_agree": [1, 2]}
    return sweep(factory, grid, embedder="hashing", workdir=tmp_path_factory.mktemp("sweep"))


def test_one_row_per_point_with_the_parameters_first(rows):
    assert [r.point for r in rows] == grid_points({"archive.threshold": [0.0, 0.15],
                                                   "merge.min_agree": [1, 2]})
    first = rows[0].to_json()
    assert list(first)[:2] == ["archive.threshold", "merge.min_agree"]
    for key in ("communities", "nmi", "merge_candidates", "candidate_recall", "merge_precision",
                "merge_recall", "distinct_proposed", "uncertain", "hub_proposals",
                "hubs_where_one_existed", "split_proposals", "split_recall", "archived",
                "archive_precision", "archive_recall", "brain_calls", "prompt_tokens"):
        assert key in first


def test_a_written_table_reads_back_as_the_same_rows(rows, tmp_path):
    # benchmarks/experiments.py --replot draws the docs' plots from these files
    back = read_csv(write_csv(rows, tmp_path / "t.csv"))
    assert back == [r.to_json() for r in rows]
    assert isinstance(back[0]["merge_candidates"], int) and isinstance(back[0]["nmi"], float)


def test_the_archive_cut_decides_what_is_archived(rows):
    by = {(r.point["archive.threshold"], r.point["merge.min_agree"]): r.metrics for r in rows}
    assert by[(0.0, 2)]["archived"] == 0  # nothing scores under 0
    default = by[(0.15, 2)]
    assert default["archive_recall"] == 1.0 and default["archive_precision"] == 1.0  # the stale ones


def test_fewer_agreeing_votes_propose_more_merges(rows):
    by = {(r.point["archive.threshold"], r.point["merge.min_agree"]): r.metrics for r in rows}
    one, two = by[(0.15, 1)], by[(0.15, 2)]
    assert one["merge_proposals"] >= two["merge_proposals"] and one["merge_recall"] >= two["merge_recall"]
    # the hashing embedder finds no mixed-language twin and few heavy paraphrases (one of
    # each among the six planted pairs); the sentence models find those too
    assert two["candidate_recall"] >= 0.6 and two["nmi"] > 0.8
    assert two["hubs_where_one_existed"] == 0  # a community with its hub gets no other
    assert two["split_recall"] == 1.0  # the overloaded note
    assert two["brain_calls"] > 0 and two["prompt_tokens"] == 0  # the offline brain


def test_the_sweep_command_writes_a_csv(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('[vault]\nnotes = 120\nduplicates = 4\nnear_misses = 4\nstale = 8\nseed = 3\n\n'
                    '[grid]\n"merge.min_description_similarity" = [0.5, 0.7]\n', encoding="utf-8")
    out = tmp_path / "results.csv"
    result = CliRunner().invoke(cli, ["sweep", "--grid", str(grid), "--out", str(out),
                                      "--embedder", "hashing", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["rows"]) == 2
    with out.open() as fh:
        table = list(csv.DictReader(fh))
    assert [row["merge.min_description_similarity"] for row in table] == ["0.5", "0.7"]
    assert int(table[0]["merge_candidates"]) >= int(table[1]["merge_candidates"])
    text = CliRunner().invoke(cli, ["sweep", "--grid", str(grid), "--out", str(out),
                                    "--embedder", "hashing", "--only", "archive"])
    assert text.exit_code == 0, text.output
    assert "merge.min_description_similarity=0.5: communities" in text.output and "archived" in text.output
    assert "merge P" not in text.output  # merge did not run
    with out.open() as fh:
        assert "merge_candidates" not in next(csv.reader(fh))
    wrong = CliRunner().invoke(cli, ["sweep", "--grid", str(grid), "--out", str(out),
                                     "--only", "merges"])
    assert wrong.exit_code != 0 and "Unknown consolidate phase merges" in wrong.output
    bad = tmp_path / "bad.toml"
    bad.write_text("[vault]\nnotez = 3\n[grid]\n\"merge.min_agree\" = [1]\n", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["sweep", "--grid", str(bad), "--out", str(out)])
    assert refused.exit_code != 0 and "names notez" in refused.output
    bad.write_text('[vault]\nnotes = "many"\n[grid]\n"merge.min_agree" = [1]\n', encoding="utf-8")
    refused = CliRunner().invoke(cli, ["sweep", "--grid", str(bad), "--out", str(out)])
    assert refused.exit_code != 0 and "notes must be int (like 1000), not 'many'" in refused.output
    assert not isinstance(refused.exception, TypeError)


def test_a_sweep_replayed_from_its_cassette_gives_the_same_table_with_no_model(tmp_path, monkeypatch):
    """Record a model brain's sweep once (a local fake server), then replay it with no
    server and no litellm: the same rows, brain calls and tokens, for free."""
    import re

    from reme_workbench.brains import model as litellm_brain
    from reme_workbench.brains.model import LLMBrain
    from reme_workbench.llm.cassette import Cassette
    from tests.llm.test_llm_consolidate import KEY, MODEL, FakeModel, judge_of

    body = re.compile(r"<body>\n(.*?)\n</body>", re.S)

    def answer(request):
        text = request["messages"][-1]["content"]
        if "judge" in text:  # two of three judges say "same"
            return json.dumps({"is_same": judge_of(request) != 2, "confidence": 0.9,
                               "reason": f"judge {judge_of(request)}"})
        winner, loser = body.findall(text)  # the merged body: both, all links kept
        description = re.search(r"description: (.*)", text).group(1)
        return json.dumps({"description": description, "body": f"{winner}\n\n{loser}\n"})

    spec = VaultSpec(notes=80, duplicates=3, near_misses=2, stale=4, seed=11)
    base = Settings().model_copy(update={  # no hubs, no splits: votes and merges only
        "abstract": Settings().abstract.model_copy(update={"min_nodes": 10_000}),
        "split": Settings().split.model_copy(update={"token_threshold": 100_000})})
    grid = {"merge.min_agree": [2, 3]}
    server = FakeModel()
    server.answer = answer
    tape = tmp_path / "sweep.jsonl"
    try:
        recorder = LLMBrain(MODEL, api_base=server.api_base, api_key=KEY, max_retries=0,
                            cassette=Cassette(tape, mode="record"))
        recorded = sweep(lambda p: generate_vault(p, spec).truth_path, grid, brain=recorder,
                         base=base, embedder="hashing")
    finally:
        server.stop()

    def no_litellm():
        raise AssertionError("a replay must not import litellm")

    monkeypatch.setattr(litellm_brain, "import_litellm", no_litellm)
    player = LLMBrain(MODEL, api_base="http://127.0.0.1:9/v1", cassette=Cassette(tape))
    replayed = sweep(lambda p: generate_vault(p, spec).truth_path, grid, brain=player,
                     base=base, embedder="hashing")

    def table(rows):
        return [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in rows]

    assert table(replayed) == table(recorded)
    two, three = (r.metrics for r in recorded)
    assert two["calls_vote"] > 0 and two["prompt_tokens"] > 0  # the model was asked, tokens counted
    assert two["merge_proposals"] > 0 and three["merge_proposals"] == 0  # 2 of 3 agree


def test_the_stability_gate_keeps_hubs_from_communities_still_forming(tmp_path):
    # the week before, the forming communities' new notes did not exist: their stability
    # is low, and the gate decides whether they get a hub
    spec = VaultSpec(notes=300, duplicates=4, near_misses=4, stale=10, hubs=1, overloaded=0,
                     forming=3, min_community=12, max_community=24, seed=5)
    rows = sweep(lambda p: generate_vault(p, spec).truth_path,
                 {"abstract.min_stability": [0.0, 1.0]}, embedder="hashing",
                 only="communities,abstract", workdir=tmp_path)
    loose, strict = (r.metrics for r in rows)
    assert loose["hubs_for_forming"] >= 2 and strict["hubs_for_forming"] == 0
    assert strict["hub_proposals"] == loose["hub_proposals"] - loose["hubs_for_forming"]
    changes = json.loads((tmp_path / "point-000" / "meta" / "community_changes.json").read_text())
    assert sorted(changes["stability_per_community"].values())[0] < 0.5
    # the notes moved aside for the week-before run are all back, with their times
    truth = json.loads((tmp_path / "template.planted.json").read_text())["planted"]
    for paths in truth["forming"].values():
        for p in paths:
            assert (tmp_path / "point-000" / p).stat().st_mtime == (tmp_path / "template" / p).stat().st_mtime


def test_a_grid_file_that_is_no_sweep_is_one_clear_line(tmp_path):
    """A grid value that is not a list, or a [vault] that is not a table: the request is
    refused with what was wrong and how a grid file looks, before anything is generated."""
    out = tmp_path / "results.csv"
    bad = tmp_path / "bad.toml"
    for text, said in (('[grid]\n"merge.min_agree" = 2\n', "grid.merge.min_agree"),
                       ('vault = 3\n[grid]\n"merge.min_agree" = [1]\n', "vault:"),
                       ('[vault]\nnotes = 10\n', "needs a [grid] table"),
                       ('[grid\n', "is not valid TOML")):
        bad.write_text(text, encoding="utf-8")
        refused = CliRunner().invoke(cli, ["sweep", "--grid", str(bad), "--out", str(out),
                                           "--embedder", "hashing"])
        assert refused.exit_code == 1, refused.output
        assert refused.output.startswith("Error: ") and said in refused.output
        assert "Traceback" not in refused.output and not out.exists()


def test_reme_lab_is_the_harness_s_own_command_and_the_product_s_has_no_sweep():
    import importlib.metadata
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from reme_workbench.cli import cli as product_cli

    declared = importlib.metadata.entry_points(group="console_scripts", name="reme-lab")
    assert [ep.value for ep in declared] == ["reme_lab.cli:main"]
    script = shutil.which("reme-lab", path=str(Path(sys.executable).parent))
    assert script, "reme-lab is not installed beside this Python; pip install -e ."
    shown = subprocess.run([script, "sweep", "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "--grid" in shown.stdout and "--replay" in shown.stdout
    gone = CliRunner().invoke(product_cli, ["experiment", "sweep", "--help"])
    assert gone.exit_code != 0 and "No such command 'experiment'" in gone.output


def test_keep_leaves_the_generated_vault_and_every_copy(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('[vault]\nnotes = 80\nduplicates = 2\nnear_misses = 2\nstale = 6\nseed = 3\n\n'
                    '[grid]\n"archive.threshold" = [0.05, 0.15]\n', encoding="utf-8")
    keep = tmp_path / "kept"
    result = CliRunner().invoke(cli, ["sweep", "--grid", str(grid), "--out", str(tmp_path / "r.csv"),
                                      "--embedder", "hashing", "--only", "archive",
                                      "--keep", str(keep)])
    assert result.exit_code == 0, result.output
    assert "[0/2] archive.threshold=0.05" in result.output  # progress, one line a point
    assert (keep / "template" / "digest").is_dir() and (keep / "template.planted.json").is_file()
    assert sorted(p.name for p in keep.glob("point-*")) == ["point-000", "point-001"]


def test_ctrl_c_is_one_line_and_status_130(tmp_path, monkeypatch):
    from reme_lab import grid_sweep

    def interrupted(request, progress=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(grid_sweep, "sweep_generated_vault", interrupted)
    grid = tmp_path / "grid.toml"
    grid.write_text('[grid]\n"merge.min_agree" = [1]\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["sweep", "--grid", str(grid), "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 130 and "Stopped (Ctrl-C)" in result.output
    assert "Traceback" not in result.output
