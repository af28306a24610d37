"""`reme-workbench obsidian install VAULT [--dev]`, as a user runs it: the shipped plugin
copied (or linked) into the vault's plugin folder and enabled, without losing the plugins
enabled there or the plugin's settings; and the shipped build is whole."""

from __future__ import annotations

import json

from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.ops.obsidian_plugin import PLUGIN_FILES, shipped_plugin

PLUGIN = ".obsidian/plugins/reme-workbench"


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_the_package_ships_the_built_plugin():
    folder = shipped_plugin()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["id"] == "reme-workbench" and manifest["isDesktopOnly"] is True
    assert manifest["minAppVersion"]
    source = json.loads((folder.parents[1] / "obsidian-plugin" / "manifest.json").read_text())
    assert manifest == source  # the build's manifest is the source's (the npm test checks main.js)
    main = (folder / "main.js").read_text()
    assert '"reme-related"' in main and '"/note/opened"' in main


def test_install_copies_the_plugin_and_enables_it_keeping_the_others(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "community-plugins.json").write_text('["dataview", "calendar"]')
    result = run("obsidian", "install", str(vault), "--text")
    assert result.exit_code == 0, result.output
    assert "Enabled in .obsidian/community-plugins.json." in result.output
    for name in PLUGIN_FILES:
        assert (vault / PLUGIN / name).read_bytes() == (shipped_plugin() / name).read_bytes()
    enabled = json.loads((vault / ".obsidian" / "community-plugins.json").read_text())
    assert enabled == ["dataview", "calendar", "reme-workbench"]
    again = run("obsidian", "install", str(vault), "--json")  # twice: nothing added twice
    assert json.loads(again.output)["enabled"] is False
    assert json.loads((vault / ".obsidian" / "community-plugins.json").read_text()) == enabled


def test_install_keeps_the_plugins_settings(tmp_path):
    vault = tmp_path / "vault"
    (vault / PLUGIN).mkdir(parents=True)
    (vault / PLUGIN / "data.json").write_text('{"command": "/opt/reme/bin/reme-workbench"}')
    (vault / PLUGIN / "main.js").write_text("// an older version")
    result = run("--vault", str(vault), "obsidian", "install", "--text")  # VAULT from --vault
    assert result.exit_code == 0, result.output
    assert "Its settings (data.json) are kept." in result.output
    assert (vault / PLUGIN / "data.json").read_text() == '{"command": "/opt/reme/bin/reme-workbench"}'
    assert (vault / PLUGIN / "main.js").read_bytes() == (shipped_plugin() / "main.js").read_bytes()
    assert json.loads((vault / ".obsidian" / "community-plugins.json").read_text()) == ["reme-workbench"]


def test_dev_links_the_build_folder_and_a_copy_replaces_the_link(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    result = run("obsidian", "install", str(vault), "--dev", "--json")
    assert result.exit_code == 0, result.output
    link = vault / PLUGIN
    assert link.is_symlink() and link.resolve() == shipped_plugin().resolve()
    assert json.loads(result.output)["linked_to"] == str(shipped_plugin().resolve())
    copied = run("obsidian", "install", str(vault), "--json")
    assert copied.exit_code == 0 and not link.is_symlink() and (link / "main.js").is_file()
    assert shipped_plugin().joinpath("main.js").is_file()  # the build folder itself untouched


def test_a_broken_community_plugins_json_is_left_alone(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "community-plugins.json").write_text('{"not": "a list"')
    result = run("obsidian", "install", str(vault))
    assert result.exit_code == 1
    assert "cannot be read as JSON" in result.output and "nothing was installed" in result.output
    assert (vault / ".obsidian" / "community-plugins.json").read_text() == '{"not": "a list"'
    assert not (vault / PLUGIN).exists()
    (vault / ".obsidian" / "community-plugins.json").write_text('{"dataview": true}')
    result = run("obsidian", "install", str(vault))
    assert result.exit_code == 1 and "not a JSON list of plugin ids" in result.output


def test_a_folder_that_is_not_there_is_refused(tmp_path):
    result = run("obsidian", "install", str(tmp_path / "nowhere"))
    assert result.exit_code != 0 and "Traceback" not in result.output
