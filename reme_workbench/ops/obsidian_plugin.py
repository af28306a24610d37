"""Installing the Obsidian plugin into a vault: the built files the package ships
(`reme_workbench/obsidian_plugin/`: main.js, manifest.json, styles.css, built from
`obsidian-plugin/` by `npm run build`) copied to `<vault>/.obsidian/plugins/reme-workbench/`,
and the plugin enabled in `.obsidian/community-plugins.json` — or, with `dev`, that folder
made a link to the package's build folder, so a rebuild (`npm run dev`) is what Obsidian
loads. A person without Node never builds anything.

What is there stays: the plugin's own settings (`data.json`) are kept, every other
plugin listed in `community-plugins.json` stays where it is, and a `community-plugins.json`
that is not a JSON list of ids is left alone with a message, nothing installed. Each file
is written whole (a temporary file renamed over it).
"""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import RemeError

__all__ = ["PluginInstallRequest", "PluginInstallResponse", "install_obsidian_plugin",
           "PLUGIN_ID", "PLUGIN_FILES", "shipped_plugin"]

PLUGIN_ID = "reme-workbench"
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")
SETTINGS_FILE = "data.json"  # where Obsidian keeps a plugin's settings


class PluginInstallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    vault: str = Field(description="The vault's folder (the one Obsidian opens).")
    dev: bool = Field(False, description="Link the build folder instead of copying it.")


class PluginInstallResponse(BaseModel):
    model_config = ConfigDict(frozen=True)

    folder: str = Field(description="<vault>/.obsidian/plugins/reme-workbench")
    version: str
    linked_to: str | None = Field(None, description="With dev: the build folder linked.")
    enabled: bool = Field(description="Whether this run added the plugin to "
                                      "community-plugins.json (false: it was there).")
    kept_settings: bool = Field(False, description="Whether the plugin's data.json was kept.")


def shipped_plugin() -> Path:
    """The package's build folder, checked to hold every file of the plugin."""
    folder = Path(str(resources.files("reme_workbench") / "obsidian_plugin"))
    missing = [name for name in PLUGIN_FILES if not (folder / name).is_file()]
    if missing:
        raise RemeError(f"This installation of reme-workbench has no built Obsidian plugin "
                        f"({', '.join(missing)} missing in {folder}); in a source checkout run "
                        "`npm ci && npm run build` in obsidian-plugin/, or reinstall the package.")
    return folder


def install_obsidian_plugin(request: PluginInstallRequest) -> PluginInstallResponse:
    source = shipped_plugin()
    version = _manifest_version(source / "manifest.json")
    root = Path(request.vault).expanduser()
    if not root.is_dir():
        raise RemeError(f"{root} is not a folder; give the vault's folder (the one Obsidian "
                        "opens), e.g. `reme-workbench obsidian install ~/notes`.")
    config = root / ".obsidian"
    if config.is_symlink() or (config.exists() and not config.is_dir()):
        raise RemeError(f"{config} is not a folder; Obsidian keeps its settings there. Move it "
                        "away and open the vault in Obsidian once, then install again.")
    enabled_file = config / "community-plugins.json"
    enabled = _enabled_plugins(enabled_file)  # refuses before anything is written
    target = config / "plugins" / PLUGIN_ID
    target.parent.mkdir(parents=True, exist_ok=True)
    kept = _place(source, target, dev=request.dev)
    added = PLUGIN_ID not in enabled
    if added:
        _write_whole(enabled_file, json.dumps([*enabled, PLUGIN_ID], indent=2) + "\n")
    return PluginInstallResponse(folder=str(target), version=version, enabled=added,
                                 linked_to=str(source.resolve()) if request.dev else None,
                                 kept_settings=kept)


def _manifest_version(path: Path) -> str:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RemeError(f"{path} cannot be read ({exc}); reinstall reme-workbench.") from None
    if manifest.get("id") != PLUGIN_ID:
        raise RemeError(f"{path} is not the reme-workbench plugin's manifest; reinstall reme-workbench.")
    return str(manifest.get("version", ""))


def _enabled_plugins(path: Path) -> list[str]:
    """The ids `community-plugins.json` enables, in their order; [] when there is none."""
    if not path.exists():
        return []
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RemeError(f"{path} cannot be read as JSON ({exc}); it was left as it is and "
                        f"nothing was installed. Fix it (a list of plugin ids, e.g. "
                        f'["{PLUGIN_ID}"]) and install again.') from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RemeError(f"{path} is not a JSON list of plugin ids; it was left as it is and "
                        f'nothing was installed. Fix it (e.g. ["{PLUGIN_ID}"]) and install again.')
    return value


def _place(source: Path, target: Path, *, dev: bool) -> bool:
    """Put the plugin at `target`: a copy of `source`'s files, or (dev) a link to `source`.
    The plugin's settings (data.json) go with it. True when there were settings to keep."""
    settings = _settings_of(target)
    if target.is_symlink():
        target.unlink()
    elif target.is_dir() and dev:
        shutil.rmtree(target)  # its settings were read above; the plugin's files are ours
    elif target.exists() and not target.is_dir():
        raise RemeError(f"{target} is a file, not the plugin's folder; move it away and install again.")
    if dev:
        target.symlink_to(source.resolve(), target_is_directory=True)
        if settings is not None and not (source / SETTINGS_FILE).exists():
            _write_whole(source / SETTINGS_FILE, settings)
        return settings is not None
    target.mkdir(exist_ok=True)
    for name in PLUGIN_FILES:
        _write_whole(target / name, (source / name).read_bytes())
    if settings is not None and not (target / SETTINGS_FILE).exists():
        _write_whole(target / SETTINGS_FILE, settings)
    return settings is not None


def _settings_of(target: Path) -> bytes | None:
    path = target / SETTINGS_FILE
    return path.read_bytes() if path.is_file() else None


def _write_whole(path: Path, content: str | bytes) -> None:
    """`path` holds `content` or what it held before, never part of it."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
