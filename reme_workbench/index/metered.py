"""An embedder that keeps count of what it embeds, so a run can report its embedding apart.

Embedding is the one cost of consolidate that grows with the model, not with the rules:
on a first run over an imported vault it can be most of the time. `MeteredEmbedder`
wraps any embedder and adds up the texts it embedded and the CPU seconds of this
process spent in `embed` (`time.process_time`: every thread of the process, so a
model's own threads count). Everything else — `name`, `dim`, `embed_query` — is the
wrapped embedder's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["MeteredEmbedder"]


class MeteredEmbedder:
    """`embedder` counted: `texts` embedded, `seconds` of process CPU spent embedding;
    `on_embed(texts so far)` is called after each batch (a progress line)."""

    def __init__(self, embedder: Any, on_embed: Callable[[int], None] | None = None) -> None:
        self.inner = embedder
        self.on_embed = on_embed
        self.texts = 0
        self.seconds = 0.0
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # only for what this class does not define
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        start = time.process_time()
        try:
            return self.inner.embed(texts)
        finally:
            with self._lock:
                self.seconds += time.process_time() - start
                self.texts += len(texts)
                done = self.texts
            if self.on_embed is not None and texts:
                self.on_embed(done)
