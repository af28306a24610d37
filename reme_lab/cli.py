"""`reme-lab`: the harness's own command line (`pyproject.toml` declares it beside
`reme-workbench`, which knows nothing of it). `reme-lab sweep`: consolidate over a grid of
thresholds on a generated vault."""

from __future__ import annotations

import os
from pathlib import Path

import click


class _Group(click.Group):
    """Turns the library's errors into one clear line and exit status 1, as
    `reme-workbench` does, and a Ctrl-C into a line and status 130."""

    def invoke(self, ctx):
        from reme_workbench.errors import RemeError

        try:
            return super().invoke(ctx)
        except RemeError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            # a sweep writes only its own generated vault and copies (a temporary folder,
            # removed, or --keep's): nothing of a person's is touched
            click.echo("\nStopped (Ctrl-C). The sweep wrote only its own copies; run it again.",
                       err=True)
            ctx.exit(130)


@click.group(cls=_Group)
def cli():
    """The benchmark and sweep harness of reme-workbench: experiments on the consolidation
    thresholds, on generated vaults with a known truth (docs/experiments.md)."""


@cli.command()
@click.option("--grid", "grid_file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A TOML file: [vault] the generated vault (notes, duplicates, stale, hubs, "
                   "overloaded, seed …), [grid] \"section.key\" = [values, …].")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the results (CSV, one row per grid point).")
@click.option("--only", "only", metavar="PHASES",
              help="Run only these consolidate phases, comma-separated (communities, abstract, "
                   "merge, split, archive, cooldowns, health); default all. "
                   "--only archive sweeps the archive cut without merge votes.")
@click.option("--keep", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the generated vault and the copies here (default: a temporary folder, "
                   "removed at the end).")
@click.option("--embedder", metavar="SPEC",
              help="The embedder: auto (default: e5 when installed, else MiniLM), minilm, e5, "
                   "hashing, litellm:<model>.")
@click.option("--brain", "brain_spec", metavar="SPEC",
              help="The consolidate brain: offline (default) or litellm:<model>.")
@click.option("--replay", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Answer the model brain from this cassette, calling no model.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON instead of text.")
def sweep(grid_file: Path, out_file: Path, only, keep, embedder, brain_spec, replay, as_json):
    """Generate a vault with a planted truth, then run consolidate on a copy of it for every
    point of the grid (every combination of the values) and score each against the truth:
    merge candidates and proposals (precision, recall, distinct pairs proposed), hub
    proposals, splits, archived notes, brain calls and tokens. Writes a CSV, one row per
    point. Example grid: [vault] notes = 400, duplicates = 20, stale = 30;
    [grid] "merge.min_description_similarity" = [0.5, 0.6, 0.7].
    """
    import tomllib

    from pydantic import ValidationError

    from reme_workbench.errors import RemeError

    from .grid_sweep import SweepRequest, sweep_generated_vault

    try:
        doc = tomllib.loads(grid_file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RemeError(f"{grid_file} is not valid TOML ({exc}); fix it and run again.") from None
    unknown = set(doc) - {"vault", "grid"}
    if unknown or "grid" not in doc:
        raise RemeError(f"{grid_file} needs a [grid] table (and may have [vault]); "
                        f"unknown: {', '.join(sorted(unknown)) or 'none'}.")
    try:
        request = SweepRequest(vault=doc.get("vault", {}), grid=doc["grid"], out=str(out_file),
                               only=[p.strip() for p in only.split(",")] if only else None,
                               keep=str(keep) if keep else None, embedder=embedder,
                               brain_spec=brain_spec, replay=str(replay) if replay else None)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise RemeError(f"{grid_file} does not describe a sweep ({problems}); [vault] is a table "
                        "of the generator's fields, [grid] gives each \"section.key\" a list of "
                        "values.") from None

    def progress(k: int, n: int, point: dict) -> None:
        said = ", ".join(f"{key}={v}" for key, v in point.items()) or "done"
        click.echo(f"[{k}/{n}] {said}", err=True)

    done = sweep_generated_vault(request, progress=progress)
    if as_json:
        click.echo(done.model_dump_json(indent=2))
        return
    click.echo(f"{len(done.rows)} point(s) written to {out_file}")
    for r in done.rows:
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


def main() -> None:
    # litellm otherwise fetches a price list at import; set it before anything can import it.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    cli(prog_name="reme-lab")
