"""numpy's BLAS threads, and how many threads an encoder may use.

The numpy MiniLM encoder spends ~80 % of its time in float32 matmuls (numpy's bundled
OpenBLAS) and the rest in element-wise numpy (GELU, softmax, layer norm), which runs on
one thread. OpenBLAS splits each matmul over all cores and its threads spin while they
wait for one another: measured on the 2-core reference machine with other work running
(load average 8-12), a forward pass took 4-15x longer with OpenBLAS's 2 threads than with
1, while burning 3-4x the CPU (benchmarks/bench_embed_throughput.py). So the encoder runs
its batches on threads of its own, each with a single-threaded BLAS: the element-wise
part runs in parallel too, and a descheduled thread costs its own batch only.

`blas_threads(1)` sets numpy's OpenBLAS to one thread for a block (reference-counted, so
overlapping blocks on several threads restore it once, at the end of the last);
`controllable()` says whether numpy's BLAS was found (numpy's bundled OpenBLAS; a numpy
built against another BLAS is left alone, and the encoder then runs its batches one
after another as before). `cpu_count()` is the cores this process may run on.
"""

from __future__ import annotations

import ctypes
import os
import threading
from contextlib import contextmanager
from pathlib import Path

__all__ = ["blas_threads", "controllable", "cpu_count", "get_blas_threads"]

# (set, get) symbol pairs of the OpenBLAS builds numpy wheels bundle, newest first
_SYMBOLS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)
_LOCK = threading.Lock()
_api: tuple | None = None
_searched = False
_holders = 0  # blocks inside blas_threads() now
_saved: int | None = None  # the thread count to restore when the last block ends


def cpu_count() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _candidates() -> list[Path]:
    import numpy

    pkg = Path(numpy.__file__).resolve().parent
    found: list[Path] = []
    for folder in (pkg.parent / "numpy.libs", pkg / ".dylibs", pkg.parent / "numpy" / ".libs"):
        if folder.is_dir():
            found.extend(sorted(p for p in folder.iterdir() if "openblas" in p.name.lower()))
    return found


def _find():
    """(set, get) ctypes functions of numpy's OpenBLAS, or None."""
    global _api, _searched
    if _searched:
        return _api
    _searched = True
    for path in _candidates():
        try:
            lib = ctypes.CDLL(str(path))  # already loaded by numpy: the same handle
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            setter, getter = getattr(lib, set_name, None), getattr(lib, get_name, None)
            if setter is None or getter is None:
                continue
            setter.argtypes, setter.restype = [ctypes.c_int], None
            getter.argtypes, getter.restype = [], ctypes.c_int
            _api = (setter, getter)
            return _api
    return None


def controllable() -> bool:
    """Whether numpy's BLAS threads can be set from here."""
    with _LOCK:
        return _find() is not None


def get_blas_threads() -> int | None:
    """numpy's BLAS threads now, or None when they cannot be read."""
    with _LOCK:
        api = _find()
        return None if api is None else int(api[1]())


@contextmanager
def blas_threads(n: int):
    """numpy's BLAS on `n` threads inside the block (nothing when it cannot be set).
    Blocks may overlap across threads: the count before the first is restored after
    the last."""
    global _holders, _saved
    with _LOCK:
        api = _find()
        if api is not None:
            if _holders == 0:
                _saved = int(api[1]())
            _holders += 1
            api[0](int(n))
    try:
        yield api is not None
    finally:
        if api is not None:
            with _LOCK:
                _holders -= 1
                if _holders == 0 and _saved is not None:
                    api[0](_saved)
                    _saved = None
