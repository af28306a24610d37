"""`experiment sweep`: consolidate over a grid of thresholds on a generated vault."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Ctx, cli
from .generate import Call, OperationCommand


@cli.group()
def experiment():
    """Experiments on the consolidation thresholds, on generated vaults with a known truth."""


@experiment.command(cls=OperationCommand, operations=("sweep",))
@click.option("--grid", "grid_file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A TOML file: [vault] the generated vault (notes, duplicates, stale, hubs, "
                   "overloaded, seed …), [grid] \"section.key\" = [values, …].")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the results (CSV, one row per grid point).")
@click.option("--only", "only", metavar="PHASES",
              help="Run only these consolidate phases, comma-separated (communities, abstract, "
                   "merge, split, archive, cooldowns, health); default all. "
                   "--only archive sweeps the archive cut without merge votes.")
def sweep(obj: Ctx, call: Call, grid_file, out_file, only):
    """Generate a vault with a planted truth, then run consolidate on a copy of it for every
    point of the grid (every combination of the values) and score each against the truth:
    merge candidates and proposals (precision, recall, distinct pairs proposed), hub
    proposals, splits, archived notes, brain calls and tokens. Writes a CSV, one row per
    point. Example grid: [vault] notes = 400, duplicates = 20, stale = 30;
    [grid] "merge.min_description_similarity" = [0.5, 0.6, 0.7].
    """
    import tomllib

    from ..errors import RemeError

    try:
        doc = tomllib.loads(grid_file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RemeError(f"{grid_file} is not valid TOML ({exc}); fix it and run again.") from None
    unknown = set(doc) - {"vault", "grid"}
    if unknown or "grid" not in doc:
        raise RemeError(f"{grid_file} needs a [grid] table (and may have [vault]); "
                        f"unknown: {', '.join(sorted(unknown)) or 'none'}.")
    request = call.request(vault=doc.get("vault", {}), grid=doc["grid"], out=str(out_file),
                           only=[p.strip() for p in only.split(",")] if only else None)
    with obj.progress() as bar:
        done = call.run(None, request, progress=lambda k, n, point: bar.steps(
            ", ".join(f"{key}={v}" for key, v in point.items()) or "done", k, n))
    rows = done.rows
    if call.emit(done):
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
