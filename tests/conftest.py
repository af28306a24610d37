"""Shared fixtures: a tiny vault builder, a fixed clock, a clean environment."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FIXED_NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch, tmp_path_factory):
    """Tests never see the developer's vault, keys or network settings."""
    for name in list(os.environ):
        if name.startswith("REME_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


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
