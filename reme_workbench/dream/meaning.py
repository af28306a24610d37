"""How near each recalled candidate is to a unit in meaning (docs/spec.md §4.3.2): the
pipeline measures it with the vault's embedder and hands it to the brain with the
candidate (`CandidateNote.similarity`), so a brain without a model of its own can tell
"reply in Chinese" and "用中文回我" apart from two rules that only share words.

Embedders differ in what cosine unrelated text gets (MiniLM about 0, e5 about 0.8), so
the cosine is put on one scale: 0 for this embedder's unrelated text (the mean cosine of
a few fixed unrelated pairs, in English and Chinese, measured once per embedder), 1 for
the same text. Candidates are embedded by their name, description and opening line,
each text once per run (a small cache).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..llm.base import CandidateNote
from ..llm.schema import MemoryUnit

__all__ = ["with_meaning", "calibrated", "UNRELATED_PAIRS"]

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


def _candidate_text(cand: CandidateNote) -> str:
    name = re.sub(r"[-_]+", " ", cand.name)
    lines = [ln.strip() for ln in cand.body.splitlines()
             if ln.strip() and not re.match(r"^\s*(#|[A-Za-z]\w*::|\*\*[^*]{1,20}[:：]\*\*\s*$)", ln)]
    return f"{name}. {cand.description}. {lines[0] if lines else ''}"[:600]


def with_meaning(embedder, unit: MemoryUnit, candidates: Sequence[CandidateNote]
                 ) -> list[CandidateNote]:
    """The candidates with their `similarity` to the unit filled in; unchanged when there
    is no embedder or it fails (the brain then judges by words alone)."""
    if embedder is None or not candidates:
        return list(candidates)
    first = re.split(r"(?<=[.!?。！？])\s*", unit.summary.strip(), maxsplit=1)[0]
    try:
        base = _baseline(embedder)
        vectors = _embed(embedder, [f"{unit.name}. {first}"[:600],
                                    *(_candidate_text(c) for c in candidates)])
    except Exception:  # noqa: BLE001 - an embedder that fails leaves the words to judge
        return list(candidates)
    unit_vec = vectors[0]
    return [replace(c, similarity=calibrated(float(unit_vec @ v), base))
            for c, v in zip(candidates, vectors[1:], strict=True)]
