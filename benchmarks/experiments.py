"""The threshold sweeps behind docs/experiments.md: one generated vault, one sweep per
consolidate threshold, a CSV and a plot for each.

    python benchmarks/experiments.py [--notes 1000] [--embedder minilm] [--out docs/experiments]
                                     [--only merge_similarity,archive_cut,…] [--replot]

The vault (`reme_lab.generator`, seed 7): `--notes` digest notes in
planted communities of 8-30, 5% of the pairs planted duplicates (paraphrased, renamed,
some with a statement in the other language) and as many near misses (one kind, other
values), 6% stale notes (150+ days old, never recalled), hubs in 8 communities, 6
overloaded notes (four communities' topics in one note, over 2,000 tokens), 5 communities
still forming (20 %, 40 % … 100 % of their notes written this week). It is generated and
indexed once; every sweep copies it. Each point runs consolidate with the offline brain
(`reme_lab.sweep`) and is scored against the planted truth. Only the
phases a threshold acts on run (the archive cut needs no merge votes).

Writes `<out>/<sweep>-<embedder>.csv` and `.png` per sweep, and prints each table.
`--replot` redraws the plots from the CSVs already in `<out>` without running anything.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reme_lab.generator import VaultSpec, generate_vault, truth_path_for  # noqa: E402
from reme_lab.sweep import read_csv, sweep, write_csv  # noqa: E402
from reme_workbench.widgets.plots import figure_png, sweep_figure  # noqa: E402

MERGE = {"candidate_recall": "candidate recall", "merge_precision": "proposal precision",
         "merge_recall": "proposal recall"}
MERGE_COUNTS = {"merge_candidates": "candidates", "uncertain": "uncertain pairs"}

# name: (grid, phases, the seed's default, measures {column: label}, counts {column: label}, title)
SWEEPS = {
    "merge_similarity": (
        {"merge.min_description_similarity": [0.4, 0.5, 0.6, 0.7, 0.8]}, "merge", 0.6,
        MERGE, MERGE_COUNTS, "merge: how alike two descriptions must be (gate 1)"),
    "merge_overlap": (
        {"merge.min_body_overlap": [0.2, 0.35, 0.5, 0.65, 0.8]}, "merge", 0.5,
        MERGE, MERGE_COUNTS, "merge: how much of the shorter body the other covers (gate 2)"),
    "merge_confidence": (
        {"merge.min_confidence": [0.5, 0.6, 0.7, 0.8, 0.9]}, "merge", 0.8,
        MERGE, MERGE_COUNTS, "merge: the judges' confidence a vote needs"),
    "merge_agree": (
        {"merge.min_agree": [1, 2, 3]}, "merge", 2,
        MERGE, MERGE_COUNTS, "merge: agreeing votes of three"),
    "abstract_size": (
        {"abstract.min_nodes": [3, 5, 8, 12, 20]}, "communities,abstract", 5,
        {"nmi": "NMI of the communities"},
        {"hub_proposals": "hub proposals", "hubs_where_one_existed": "hubs beside a planted hub"},
        "abstract: smallest community that gets a hub"),
    "abstract_diversity": (
        {"abstract.min_name_diversity": [0.3, 0.5, 0.7, 0.9]}, "communities,abstract", 0.5,
        {"nmi": "NMI of the communities"},
        {"hub_proposals": "hub proposals", "hubs_where_one_existed": "hubs beside a planted hub"},
        "abstract: name diversity a community needs"),
    "abstract_stability": (
        {"abstract.min_stability": [0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9, 1.0]}, "communities,abstract", 0.7,
        {"nmi": "NMI of the communities"},
        {"hub_proposals": "hub proposals", "hubs_for_forming": "hubs for a forming community"},
        "abstract: stability a community needs"),
    "abstract_coverage": (
        {"abstract.hub_coverage": [0.3, 0.45, 0.6, 0.8, 0.95]}, "communities,abstract", 0.6,
        {"nmi": "NMI of the communities"},
        {"hub_proposals": "hub proposals", "hubs_where_one_existed": "hubs beside a planted hub"},
        "abstract: share of members a note must link to count as the hub"),
    "split_tokens": (
        {"split.token_threshold": [500, 1000, 1500, 2000, 3000]}, "split", 2000,
        {"split_precision": "precision (split that are overloaded)",
         "split_recall": "recall (overloaded that are split)"},
        {"split_queued": "notes over the threshold", "split_proposals": "split proposals"},
        "split: the token threshold"),
    "split_dispersion": (
        # a low token threshold queues long notes that are not overloaded too, so the cut's
        # precision is measured, not just its recall
        {"split.dispersed_under": [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5],
         "split.token_threshold": [500]}, "split", 0.25,
        {"split_precision": "precision (split that are overloaded)",
         "split_recall": "recall (overloaded that are split)"},
        {"split_queued": "notes over the threshold", "split_proposals": "split proposals"},
        "split: how unalike the parts must be (offline brain)"),
    "archive_cut": (
        {"archive.threshold": [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 0.9]}, "archive", 0.15,
        {"archive_precision": "precision (archived that are stale)",
         "archive_recall": "recall (stale that are archived)"},
        {"archived": "archived notes"}, "archive: the recency cut"),
    "archive_tau": (
        {"archive.tau_update_days": [7, 15, 30, 60, 120, 240]}, "archive", 60,
        {"archive_precision": "precision (archived that are stale)",
         "archive_recall": "recall (stale that are archived)"},
        {"archived": "archived notes"}, "archive: the update half-life τ (days)"),
    "resolution": (
        {"communities.resolution": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]}, "communities,abstract", 1.0,
        {"nmi": "NMI against the planted communities"},
        {"communities": "communities found", "hub_proposals": "hub proposals"},
        "communities: the Leiden resolution"),
}


def plot(name: str, rows, path: Path) -> None:
    grid, _phases, default, ys, counts, title = SWEEPS[name]
    path.write_bytes(figure_png(sweep_figure(
        rows, next(iter(grid)), ys, counts=counts, default=default, title=title)))


def spec_for(notes: int) -> VaultSpec:
    return VaultSpec(notes=notes, duplicates=notes // 20, near_misses=notes // 20,
                     stale=max(4, notes * 6 // 100), hubs=8, overloaded=6, forming=5, seed=7)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", type=Path, default=Path("docs/experiments"))
    parser.add_argument("--only", help="comma-separated sweep names; default all: " + ", ".join(SWEEPS))
    parser.add_argument("--replot", action="store_true",
                        help="redraw the plots from the CSVs in --out; run nothing")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(SWEEPS)
    unknown = [n for n in names if n not in SWEEPS]
    if unknown:
        parser.error(f"unknown sweep {', '.join(unknown)}; the sweeps are {', '.join(SWEEPS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.replot:
        for name in names:
            stem = f"{name}-{args.embedder}"
            if (args.out / f"{stem}.csv").exists():
                plot(name, read_csv(args.out / f"{stem}.csv"), args.out / f"{stem}.png")
                print(f"redrew {args.out / stem}.png")
        return 0

    from reme_workbench.index.factory import get_embedder

    embedder = get_embedder(args.embedder)
    spec = spec_for(args.notes)
    print(f"vault: {spec.notes} notes, {spec.duplicates} duplicate pairs, {spec.near_misses} near "
          f"misses, {spec.stale} stale, {spec.hubs} hubs, {spec.overloaded} overloaded, "
          f"{spec.forming} forming; "
          f"embedder {args.embedder}; offline brain", flush=True)
    with tempfile.TemporaryDirectory(prefix="reme-experiments-") as tmp:
        base = Path(tmp) / "base"
        started = time.monotonic()
        made = generate_vault(base, spec)
        # index it once here: each sweep's copy then finds its description vectors fresh
        from reme_workbench.index.store import VaultIndex
        from reme_workbench.vault.vault import Vault

        with VaultIndex(base, embedder, scan=Vault.open(base).scan) as index:
            index.refresh()
        print(f"generated and indexed in {time.monotonic() - started:.0f} s", flush=True)

        def factory(path: Path) -> Path:
            shutil.copytree(base, path)
            return Path(shutil.copy2(made.truth_path, truth_path_for(path)))

        for name in names:
            grid, phases, _default, ys, counts, _title = SWEEPS[name]
            started = time.monotonic()
            rows = sweep(factory, grid, embedder=embedder, only=phases)
            key = next(iter(grid))
            stem = f"{name}-{args.embedder}"
            write_csv(rows, args.out / f"{stem}.csv")
            plot(name, rows, args.out / f"{stem}.png")
            print(f"\n{name} ({phases}; {time.monotonic() - started:.0f} s)")
            columns = [c for c in (*ys, *counts) if c in rows[0].metrics]
            print("  " + key.ljust(34) + "".join(c[:16].rjust(17) for c in columns))
            for r in rows:
                print("  " + str(r.point[key]).ljust(34)
                      + "".join(str(r.metrics.get(c)).rjust(17) for c in columns), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
