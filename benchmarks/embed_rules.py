"""The chunk rules a recall benchmark runs with, and the tokens an index embeds.

Shared by `locomo_recall.py` and `bench_recall_zh.py` (issue #32 item 2: measure each cut
of what the index embeds on both recall sets). `add_rule_flags` gives a script the flags
of `chunking.ChunkRules` (the index's own rules by default); `embedded_tokens` counts what
a cold index of the vault embeds under those rules: its chunk texts (context line
included unless the rules leave it out) and its digest notes' descriptions, in the
embedder's own word pieces when it has a tokenizer (MiniLM), else `approx_tokens`.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from reme_workbench.index.chunking import DEFAULT_RULES, EMBED_CONTEXTS, EMBED_WINDOWS, ChunkRules
from reme_workbench.index.pending import approx_tokens

__all__ = ["add_rule_flags", "rules_from", "EmbeddedTokens", "embedded_tokens"]


def add_rule_flags(ap: argparse.ArgumentParser) -> None:
    d = DEFAULT_RULES
    ap.add_argument("--max-tokens", type=int, default=d.max_tokens,
                    help=f"estimated tokens of a chunk (default {d.max_tokens})")
    ap.add_argument("--window-lines", type=int, default=d.window_lines,
                    help=f"lines per window of a log (0: no windows; default {d.window_lines})")
    ap.add_argument("--window-step", type=int, default=d.window_step,
                    help=f"a window starts every this many lines (default {d.window_step})")
    ap.add_argument("--embed-windows", choices=EMBED_WINDOWS, default=d.embed_windows,
                    help="which line windows get a vector: all, or a cover that holds each "
                         f"line once (default {d.embed_windows})")
    ap.add_argument("--embed-context", choices=EMBED_CONTEXTS, default=d.embed_context,
                    help=f"embed each chunk's context line, or none (default {d.embed_context})")


def rules_from(args: argparse.Namespace) -> ChunkRules:
    return ChunkRules(max_tokens=args.max_tokens, window_lines=args.window_lines,
                      window_step=args.window_step, embed_windows=args.embed_windows,
                      embed_context=args.embed_context)


@dataclass(frozen=True)
class EmbeddedTokens:
    texts: int  # distinct texts embedded (the vector cache embeds a text once)
    tokens: int  # their tokens: word pieces when `unit` says so
    unit: str  # "word pieces" (the embedder's tokenizer, cut at its maximum length) or "approx"

    def __add__(self, other: EmbeddedTokens) -> EmbeddedTokens:
        return EmbeddedTokens(self.texts + other.texts, self.tokens + other.tokens, self.unit)


def embedded_tokens(index, embedder) -> EmbeddedTokens:
    """What a cold index of `index`'s vault embeds, read from the index (its chunks with a
    vector and its descriptions), each distinct text once."""
    from reme_workbench.index.chunking import Chunk, embed_text

    texts = {embed_text(Chunk(*row), index.rules) for row in index.conn.execute(
        "SELECT path, ordinal, text, context, line_start, line_end, tokens FROM chunks "
        "WHERE embedded = 1")}
    texts.update(t for (t,) in index.conn.execute("SELECT text FROM descriptions"))
    ordered = sorted(texts)
    model = getattr(embedder, "_model", None)
    ids = getattr(model() if callable(model) else None, "token_ids", None)
    if callable(ids):
        return EmbeddedTokens(len(ordered), sum(len(t) for t in ids(ordered)), "word pieces")
    return EmbeddedTokens(len(ordered), sum(approx_tokens(t) for t in ordered), "approx")
