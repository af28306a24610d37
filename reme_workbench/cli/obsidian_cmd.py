"""`obsidian install`: the Obsidian plugin put into a vault and enabled (docs/obsidian.md,
"The plugin"). Self-contained: one call into `ops`."""

from __future__ import annotations

from pathlib import Path

import click

from .app import Ctx, cli, emit_json, output_options, wants_json


@cli.group()
def obsidian():
    """The Obsidian plugin: related notes, search and the review of proposals inside
    Obsidian, over the local API (`reme-workbench serve`)."""


@obsidian.command("install")
@click.argument("vault_folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--dev", is_flag=True,
              help="Link the plugin's build folder instead of copying it, so a rebuild "
                   "(`npm run dev` in obsidian-plugin/) is what Obsidian loads.")
@output_options
@click.pass_obj
def install(obj: Ctx, vault_folder: Path | None, dev: bool, as_json):
    """Copy the plugin into VAULT_FOLDER/.obsidian/plugins/reme-workbench/ and enable it in
    .obsidian/community-plugins.json (the plugins enabled there and the plugin's own
    settings stay). VAULT_FOLDER defaults to --vault. Nothing is built: the package ships
    the built plugin."""
    from ..ops.obsidian_plugin import PluginInstallRequest, install_obsidian_plugin

    folder = vault_folder if vault_folder is not None else obj.vault_path
    answer = install_obsidian_plugin(PluginInstallRequest(vault=str(folder), dev=dev))
    if wants_json(as_json):
        emit_json(answer.model_dump(mode="json"))
        return
    how = f"linked to {answer.linked_to}" if answer.linked_to else "copied"
    click.echo(f"reme-workbench plugin {answer.version} {how}: {answer.folder}")
    click.echo("Enabled in .obsidian/community-plugins.json." if answer.enabled
               else "Already enabled in .obsidian/community-plugins.json.")
    if answer.kept_settings:
        click.echo("Its settings (data.json) are kept.")
    click.echo("Next: reload Obsidian (with Restricted mode off under Settings → Community "
               "plugins), then run `reme-workbench serve` in the vault — or let the plugin "
               "start it when it asks.")
