"""The operations' models, the schema of every client: `models.__all__` lists every model
class the module defines, so `from reme_workbench.ops.models import *` and the docs of
the package see them all."""

from __future__ import annotations

import inspect

from pydantic import BaseModel

from reme_workbench.ops import models


def model_classes(module) -> set[str]:
    return {name for name, value in vars(module).items()
            if inspect.isclass(value) and issubclass(value, BaseModel)
            and value.__module__ == module.__name__ and not name.startswith("_")}


def test_all_lists_every_model_class():
    missing = model_classes(models) - set(models.__all__)
    assert not missing, f"models.__all__ misses {sorted(missing)}"
    unknown = [name for name in models.__all__ if not hasattr(models, name)]
    assert not unknown, f"models.__all__ names what the module does not have: {unknown}"
