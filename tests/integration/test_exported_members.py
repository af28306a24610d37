"""The public API: every name in __all__ resolves, and nothing public is forgotten."""

from __future__ import annotations

import importlib

import reme_workbench


def test_every_exported_name_resolves():
    for name in reme_workbench.__all__:
        assert getattr(reme_workbench, name) is not None, name


def test_exports_cover_each_modules_all():
    """Each core module's own __all__ is either exported at the top or deliberately internal."""
    internal = {
        "reme_workbench.vault.layout": {"LAYERS", "SOURCE_LAYERS", "WRITABLE_LAYERS", "CACHE_DIR",
                                        "normalize_rel", "layer_of", "bucket_of", "is_digest_note",
                                        "is_markdown", "resolve_inside", "check_writable",
                                        "MAX_NAME_BYTES", "MAX_SUB_FOLDERS"},
    }
    exported = set(reme_workbench.__all__)
    for module_name, allowed in internal.items():
        module = importlib.import_module(module_name)
        missing = set(module.__all__) - exported - allowed
        assert not missing, f"{module_name} defines public {missing} but neither exports nor lists it"


def test_unknown_attribute_is_an_attribute_error():
    try:
        reme_workbench.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_a_library_user_runs_the_main_jobs_from_the_top_level(make_vault):
    """Open a workspace, dream, consolidate and recall with what `reme_workbench` exports
    (after the subpackages of the same names were imported: they must not shadow them)."""
    import reme_workbench.consolidate.run  # noqa: F401
    import reme_workbench.dream.run  # noqa: F401
    from reme_workbench import (
        ConsolidateRequest,
        DreamRequest,
        RecallRequest,
        Workspace,
        recall,
        run_consolidate,
        run_dream,
    )

    root = make_vault({
        "daily/2026-10-05/log.md": "## 09:00 pool\n\nThe payments-api database pool size is 40 "
                                   "connections since the Monday incident.\n",
        "reme.toml": '[recall]\nembedder = "hashing"\n',
    })
    ws = Workspace(root)
    made = run_dream(ws, DreamRequest())
    assert made.materials == ["daily/2026-10-05/log.md"] and made.outcomes
    assert run_consolidate(ws, ConsolidateRequest(only=["communities"], force=True)).ran == ["communities"]
    hits = recall(ws, RecallRequest(query="payments-api pool size", k=3)).hits
    assert hits and hits[0].path.startswith("digest/")
