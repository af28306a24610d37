"""How near each recalled candidate is to a unit in meaning (docs/spec.md §4.3.2): the
pipeline hands the brain a measure of it with the vault's embedder
(`IntegrateRequest.meaning`, computed when the brain first asks), so a brain without a model of its own can tell
"reply in Chinese" and "用中文回我" apart from two rules that only share words.

Embedders differ in what cosine unrelated text gets (MiniLM about 0, e5 about 0.8), so
the cosine is put on one scale: 0 for this embedder's unrelated text (the mean cosine of
a few fixed unrelated pairs, in English and Chinese, measured once per embedder), 1 for
the same text. A candidate is compared by its description text ("name: description"),
whose vector the index already keeps; the unit by its name and first sentence.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..index.chunking import description_text
from ..llm.base import CandidateNote
from ..llm.schema import MemoryUnit

__all__ = ["Meaning", "calibrated", "UNRELATED_PAIRS"]

# Unrelated statements of the kinds a vault holds, in both languages: what "no relation"
# scores for an embedder.
UNRELATED_PAIRS = (
    ("Deploy the payments service with a canary first.", "She adopted a puppy from the shelter."),
    ("The staging database listens on port 5433.", "We went camping by the lake last summer."),
    ("Reply in short bullet points.", "The router was replaced on Tuesday."),
    ("周报每周一上午发。", "备份每天凌晨两点运行。"),
    ("用中文回复。", "The incident was caused by a full disk."),
    ("Always take a snapshot before a migration.", "我昨天去上了陶艺课。"),
)
_CACHE_SIZE = 4096
_lock = threading.Lock()
_baselines: dict[int, float] = {}
_vectors: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()


def _embed(embedder, texts: Sequence[str]) -> list[np.ndarray]:
    key = id(embedder)
    with _lock:
        missing = [t for t in dict.fromkeys(texts) if (key, t) not in _vectors]
    if missing:
        rows = np.asarray(embedder.embed(list(missing)), dtype=np.float32)
        with _lock:
            for text, row in zip(missing, rows, strict=True):
                norm = float(np.linalg.norm(row))
                _vectors[(key, text)] = row / norm if norm else row
                while len(_vectors) > _CACHE_SIZE:
                    _vectors.popitem(last=False)
    with _lock:
        return [_vectors[(key, t)] for t in texts]


def _baseline(embedder) -> float:
    key = id(embedder)
    with _lock:
        if key in _baselines:
            return _baselines[key]
    left = _embed(embedder, [a for a, _ in UNRELATED_PAIRS])
    right = _embed(embedder, [b for _, b in UNRELATED_PAIRS])
    base = float(np.mean([float(a @ b) for a, b in zip(left, right, strict=True)]))
    with _lock:
        _baselines[key] = base
    return base


def calibrated(cosine: float, baseline: float) -> float:
    """A cosine on the embedder-free scale: 0 = unrelated text, 1 = the same."""
    if baseline >= 1.0:
        return 0.0
    return round(max(0.0, min(1.0, (cosine - baseline) / (1.0 - baseline))), 4)


class Meaning:
    """How near each candidate is to the unit in meaning (`IntegrateRequest.meaning`),
    measured on the first question and kept: the unit's name and first sentence against
    each note's description text, the vector the index keeps for it
    (`VaultIndex.description_vectors`, embedded when the index lacks it). A brain that
    never asks costs nothing; an embedder that fails answers None (the words judge)."""

    def __init__(self, index, unit: MemoryUnit, candidates: Sequence[CandidateNote]) -> None:
        self.index, self.unit, self.candidates = index, unit, tuple(candidates)
        self._scores: dict[str, float] | None = None

    def __call__(self, cand: CandidateNote) -> float | None:
        if self._scores is None:
            self._scores = self._measure()
        return self._scores.get(cand.path)

    def _measure(self) -> dict[str, float]:
        embedder = getattr(self.index, "embedder", None)
        if embedder is None or not self.candidates:
            return {}
        first = re.split(r"(?<=[.!?。！？])\s*", self.unit.summary.strip(), maxsplit=1)[0]
        texts = {c.path: description_text(c.path, c.name, c.description) for c in self.candidates}
        try:
            base = _baseline(embedder)
            index = self.index
            kept = index.description_vectors(texts) if hasattr(index, "description_vectors") else {}
            missing = [texts[c.path] for c in self.candidates if c.path not in kept]
            unit_vec, *fresh = _embed(embedder, [f"{self.unit.name}. {first}"[:600], *missing])
        except Exception:  # noqa: BLE001 - an embedder that fails leaves the words to judge
            return {}
        made = iter(fresh)
        out = {}
        for c in self.candidates:
            vec = kept[c.path] if c.path in kept else next(made)
            out[c.path] = calibrated(float(unit_vec @ vec), base)
        return out
