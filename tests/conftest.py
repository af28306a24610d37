"""Shared fixtures: a clean environment, a fixed clock, the vaults.

Two ways to get a vault, for every test folder:
* `make_vault({path: content})` builds a vault from the files a test is about (each
  module names its own: the content is what it tests);
* `demo_vault` is a fresh copy of the main job's vault (`reme-workbench demo`, hashing
  embedder), built once per session into `demo_cache` — the notebooks opened outside a
  vault copy the same one, and `copy_demo` gives a module-scoped fixture its copy.

Tests are grouped by the package they test (`tests/vault/`, `tests/index/`, …);
`tests/integration/` holds the whole-program ones (real vaults, LoCoMo, the README and
docs, the layer rules, Ctrl-C, concurrency).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FIXED_NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def _isolate(monkeypatch, tmp_path_factory) -> None:
    for name in list(os.environ):
        if name.startswith("REME_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch, tmp_path_factory):
    """Tests never see the developer's vault, keys or network settings."""
    _isolate(monkeypatch, tmp_path_factory)


@pytest.fixture(scope="session")
def embedder_cache(tmp_path_factory) -> Path:
    """The session's folder of built MiniLM graphs (index/minilm_onnx.py: the int8 graph
    costs about 2 CPU-s to build), shared by every test's user cache; never the user's."""
    return tmp_path_factory.mktemp("embedder-cache")


@pytest.fixture(autouse=True)
def shared_embedder_cache(clean_environ, embedder_cache) -> None:
    """The `models` folder of this test's user cache (in its own HOME) is a link to the
    session's, so a command it runs — in process or as a subprocess with its HOME —
    builds the graph only when no test before it did. The rest of the user cache stays
    the test's own, and a test that moves the cache (XDG_CACHE_HOME, HOME: one about the
    cache itself) has its own, empty one."""
    from reme_workbench.index.minilm_onnx import model_cache_dir

    models = model_cache_dir()
    if not models.is_relative_to(Path.home()):  # an XDG_CACHE_HOME outside: not ours to link
        return
    models.parent.mkdir(parents=True, exist_ok=True)
    models.symlink_to(embedder_cache, target_is_directory=True)


@pytest.fixture
def clock():
    return lambda: FIXED_NOW


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    return root


@pytest.fixture
def make_vault(tmp_path):
    """Build a vault from {relative path: content}; layers are created as needed."""

    def build(files: dict[str, str | bytes], name: str = "vault") -> Path:
        root = tmp_path / name
        for layer in ("resource", "daily", "digest/procedure", "digest/personal", "digest/wiki", "meta", "audit"):
            (root / layer).mkdir(parents=True, exist_ok=True)
        return write_files(root, files)

    return build


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file outside .reme/ with its bytes and mtime: to prove nothing changed."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".reme") or path.is_symlink() or not path.is_file():
            continue
        out[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


DEMO_EMBEDDER = "hashing"  # quick, and the same vectors on every machine


@pytest.fixture(scope="session")
def demo_cache(tmp_path_factory) -> Path:
    """The session's cache folder (`XDG_CACHE_HOME`) holding the demo vault, built once."""
    cache = tmp_path_factory.mktemp("cache")
    copy_demo(cache, tmp_path_factory.mktemp("first-demo") / "reme-demo")
    return cache


def copy_demo(cache: Path, dest: Path) -> Path:
    """A fresh copy of the demo vault at `dest`, built into `cache` the first time."""
    from reme_workbench.ops import fresh_demo_copy

    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, _Home(dest.parent))
        patch.setenv("XDG_CACHE_HOME", str(cache))
        return fresh_demo_copy(dest, embedder=DEMO_EMBEDDER)


class _Home:
    """What `_isolate` asks of tmp_path_factory, for a fixture that has none at hand."""

    def __init__(self, where: Path) -> None:
        self.where = where

    def mktemp(self, name: str) -> Path:
        path = self.where / f".{name}"
        path.mkdir(parents=True, exist_ok=True)
        return path


@pytest.fixture
def demo_vault(demo_cache, tmp_path) -> Path:
    """A fresh copy of the main job's vault at `tmp_path/reme-demo` (see the module doc)."""
    return copy_demo(demo_cache, tmp_path / "reme-demo")
