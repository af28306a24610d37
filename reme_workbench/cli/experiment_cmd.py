"""`experiment sweep`: consolidate over a grid of thresholds on a generated vault."""

from __future__ import annotations

from pathlib import Path

import click

from .app import EMBEDDER_OPTION, Ctx, cli, emit_json, output_options, wants_json


@cli.group()
def experiment():
    """Experiments on the consolidation thresholds, on generated vaults with a known truth."""


@experiment.command()
@click.option("--grid", "grid_file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A TOML file: [vault] the generated vault (notes, duplicates, stale, hubs, "
                   "overloaded, seed …), [grid] \"section.key\" = [values, …].")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the results (CSV, one row per grid point).")
@click.option("--keep", "keep_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the generated vault and every point's copy in this folder.")
@click.option("--only", "only", metavar="PHASES",
              help="Run only these consolidate phases, comma-separated (communities, abstract, "
                   "merge, split, archive, cooldowns, health); default all. "
                   "--only archive sweeps the archive cut without merge votes.")
@EMBEDDER_OPTION
@click.option("--brain", "brain_spec", help="offline (default) or litellm:<model>.")
@click.option("--replay", "replay_file", type=click.Path(dir_okay=False),
              help="Answer the model brain from this cassette: a reproducible sweep, free.")
@output_options
@click.pass_obj
def sweep(obj: Ctx, grid_file, out_file, keep_dir, only, embedder, brain_spec, replay_file, as_json):
    """Generate a vault with a planted truth, then run consolidate on a copy of it for every
    point of the grid (every combination of the values) and score each against the truth:
    merge candidates and proposals (precision, recall, distinct pairs proposed), hub
    proposals, splits, archived notes, brain calls and tokens. Writes a CSV, one row per
    point. Example grid: [vault] notes = 400, duplicates = 20, stale = 30;
    [grid] "merge.min_description_similarity" = [0.5, 0.6, 0.7].
    """
    import tomllib

    from ..errors import RemeError
    from ..ops import SweepRequest, build_request
    from ..ops import sweep as run_sweep

    try:
        doc = tomllib.loads(grid_file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RemeError(f"{grid_file} is not valid TOML ({exc}); fix it and run again.") from None
    unknown = set(doc) - {"vault", "grid"}
    if unknown or "grid" not in doc:
        raise RemeError(f"{grid_file} needs a [grid] table (and may have [vault]); "
                        f"unknown: {', '.join(sorted(unknown)) or 'none'}.")
    request = build_request(SweepRequest, vault=doc.get("vault", {}), grid=doc["grid"],
                            out=str(out_file), keep=str(keep_dir) if keep_dir else None,
                            only=[p.strip() for p in only.split(",")] if only else None,
                            embedder=embedder, brain_spec=brain_spec, replay=replay_file)
    with obj.progress() as bar:
        done = run_sweep(request, progress=lambda k, n, point: bar.steps(
            ", ".join(f"{key}={v}" for key, v in point.items()) or "done", k, n))
    rows = done.rows
    if wants_json(as_json):
        emit_json({"out": done.out, "rows": [{**r.point, **r.metrics} for r in rows]})
        return
    click.echo(f"{len(rows)} point(s) written to {out_file}")
    for r in rows:
        m = r.metrics
        said = [f"communities {m['communities']} (NMI {m['nmi']})"]
        if "merge_candidates" in m:
            said.append(f"merge P {m['merge_precision']} R {m['merge_recall']} "
                        f"(candidates {m['merge_candidates']})")
        if "hub_proposals" in m:
            said.append(f"hubs {m['hub_proposals']}")
        if "split_proposals" in m:
            said.append(f"splits {m['split_proposals']}")
        if "archived" in m:
            said.append(f"archived {m['archived']} (P {m['archive_precision']} R {m['archive_recall']})")
        click.echo("  " + ", ".join(f"{k}={v}" for k, v in r.point.items()) + ": " + "; ".join(said))
