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
                                        "is_markdown", "resolve_inside", "check_writable"},
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
