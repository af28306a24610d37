"""LoCoMo as a recall benchmark: conversations → vaults, evidence → sessions, metrics.

LoCoMo (snap-research/LoCoMo) holds long multi-session dialogues; each question names
the dialog turns that answer it (`evidence`, ids like ``D3:12`` = session 3, turn 12).
We turn every conversation into its own vault and ask whether recall finds the
*sessions* that hold the evidence:

* session N of conversation C becomes ``daily/<YYYY-MM-DD>/<C>-session-<N>.md`` (the
  date from ``session_N_date_time``; C is the conversation's ``sample_id``), a heading
  with the session's date and time, then one line per turn:
  ``**<speaker>** (<dia_id>): <text>`` plus `` [image: <blip_caption>]`` when the turn
  shared an image (layout ``ids``, the recall benchmark's), or
  ``**<speaker>:** <text> [image: <blip_caption>]`` (layout ``chat``: a transcript as a
  person writes one, without the dataset's turn ids; the dream benchmark's);
* the ground truth of a question is the set of sessions its evidence ids name
  (malformed ids are parsed as well as possible, see `evidence_sessions`); questions
  with no usable evidence are skipped;
* metrics, per question, over the ranked list of session files recall returned:
  - ``recall@k`` (the standard one): the fraction of the question's evidence sessions
    found in the top k, averaged over questions;
  - ``hit@k`` ("any"): 1 when at least one evidence session is in the top k;
  - ``MRR``: 1 / rank of the first evidence session (0 when none was returned).
  For the ~80 % of questions with one evidence session the two recalls coincide.

`run_conversation` indexes one conversation's vault and asks every question through
`recall_batch`; `benchmarks/locomo_recall.py` runs it over the conversations and prints
the tables.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

__all__ = [
    "CATEGORIES", "Question", "load_conversations", "session_numbers", "session_datetime",
    "session_path", "session_markdown", "conversation_files", "session_of_path", "write_vault",
    "ConversationRun", "run_conversation", "evidence_sessions", "questions", "recall_at", "LAYOUTS",
    "trace_sessions", "ranked_sessions",
    "hit_at", "reciprocal_rank", "Scores", "score_rankings", "HEADLINE",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE = "1-4"  # the group without adversarial questions (basic-memory's headline)

_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y")
# one evidence reference: "D" (optional ":"/space) session (":" turn)?; tolerates
# "D:11:26", "D30:05", "D8:6; D9:17" (two in one string) and "d 3 : 4"
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)(?:\s*:\s*(\d+))?", re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    qid: str  # "<sample_id>#<index in its qa list>"
    text: str
    category: int
    sessions: frozenset[int]  # the ground truth: sessions holding the evidence


def load_conversations(path: str | Path) -> list[dict]:
    """The list of LoCoMo samples in a JSON file (locomo10.json or a slice of it)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of LoCoMo conversations")
    return data


def session_numbers(conversation: Mapping) -> list[int]:
    """The numbers of the sessions a `conversation` dict holds, ascending."""
    return sorted(
        int(m.group(1)) for key, turns in conversation.items()
        if (m := _SESSION_KEY.fullmatch(key)) and isinstance(turns, list)
    )


def session_datetime(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` → datetime(2023, 5, 8, 13, 56)."""
    cleaned = " ".join(str(text).split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo session date {text!r}")


def session_path(sample_id: str, number: int, when: datetime) -> str:
    return f"daily/{when.date().isoformat()}/{sample_id}-session-{number}.md"


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())


LAYOUTS = ("ids", "chat")


def session_markdown(sample_id: str, number: int, date_time: str, turns: Sequence[Mapping],
                     *, layout: str = "ids") -> str:
    """The markdown of one session: a heading with its date and time, one line per turn
    (`layout`: "ids" keeps the dataset's turn id after the speaker, "chat" does not)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    lines = [f"# {sample_id} session {number}: {_one_line(date_time)}", ""]
    for turn in turns:
        who = _one_line(turn.get("speaker"))
        head = f"**{who}:**" if layout == "chat" else f"**{who}** ({_one_line(turn.get('dia_id'))}):"
        line = f"{head} {_one_line(turn.get('text'))}"
        caption = _one_line(turn.get("blip_caption"))
        if caption:
            line += f" [image: {caption}]"
        lines.append(line)
    return "\n".join(lines) + "\n"


def conversation_files(sample: Mapping, *, layout: str = "ids") -> dict[str, str]:
    """{vault-relative path: markdown} for every session of one LoCoMo sample."""
    conversation = sample["conversation"]
    sample_id = str(sample.get("sample_id") or "conv")
    files = {}
    for n in session_numbers(conversation):
        stamp = conversation.get(f"session_{n}_date_time")
        if stamp is None:
            raise ValueError(f"{sample_id}: session {n} has no session_{n}_date_time")
        path = session_path(sample_id, n, session_datetime(stamp))
        files[path] = session_markdown(sample_id, n, stamp, conversation[f"session_{n}"],
                                       layout=layout)
    return files


def session_of_path(path: str) -> int | None:
    """The session number of a file `conversation_files` wrote (None for other files)."""
    m = re.search(r"-session-(\d+)\.md$", path)
    return int(m.group(1)) if m else None


def write_vault(root: str | Path, sample: Mapping, *, layout: str = "ids") -> dict[str, int]:
    """Write the sample's sessions under `root`; {path: session number}.

    Unchanged files are left alone (so an index over the folder re-reads nothing) and
    daily files that are not sessions of this sample are removed.
    """
    root = Path(root)
    for layer in ("daily", "resource", "digest/wiki", "digest/procedure", "digest/personal"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    files = conversation_files(sample, layout=layout)
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    for old in (root / "daily").rglob("*.md"):
        if old.relative_to(root).as_posix() not in files:
            old.unlink()
    return {rel: session_of_path(rel) for rel in files}


@dataclass
class ConversationRun:
    """One conversation indexed and asked: rankings and latencies per mode."""

    sample_id: str
    questions: list[Question]
    rankings: dict[str, dict[str, list[int]]]  # mode -> qid -> ranked session numbers
    latency_ms: dict[str, list[float]]  # mode -> one recall call per question
    index_s: float  # seconds the refresh took
    files: int
    chunks: int


def run_conversation(
    sample: Mapping, root: str | Path, embedder, modes: Sequence[str] = ("fused",), *,
    k: int = 10, rebuild: bool = False, fusion: str = "rrf",
) -> ConversationRun:
    """Write the sample's vault under `root`, index it, and rank every question.

    Each question goes through `recall_batch` (scope "sources", no access log); the
    ranking is the session numbers of the returned files, best first.
    """
    from ..index.recall import recall_batch  # lazy: the pure helpers above need no index
    from ..index.store import VaultIndex

    write_vault(root, sample)
    qs = questions(sample)
    rankings: dict[str, dict[str, list[int]]] = {}
    latency: dict[str, list[float]] = {}
    with VaultIndex(Path(root), embedder) as index:
        t0 = time.perf_counter()
        index.refresh(rebuild=rebuild)
        index_s = time.perf_counter() - t0
        stats = index.stats()
        for mode in modes:
            ranked: dict[str, list[int]] = {}
            times: list[float] = []
            batch = recall_batch(index, ((q.qid, q.text) for q in qs), k=k, scope="sources",
                                 mode=mode, log_access=False, fusion=fusion)
            while True:
                start = time.perf_counter()
                try:
                    qid, hits = next(batch)
                except StopIteration:
                    break
                times.append((time.perf_counter() - start) * 1000)
                ranked[qid] = [n for h in hits if (n := session_of_path(h.path)) is not None]
            rankings[mode], latency[mode] = ranked, times
    return ConversationRun(str(sample.get("sample_id") or "conv"), qs, rankings, latency,
                           index_s, stats["files"], stats["chunks"])


def evidence_sessions(evidence: Iterable[object]) -> frozenset[int]:
    """The session numbers named by a question's evidence ids, malformed ones included.

    ``D3:12`` → 3; ``D8:6; D9:17`` → 8 and 9; ``D:11:26`` → 11; ``D30:05`` → 30;
    a bare ``D`` (or anything without a number) names nothing.
    """
    found: set[int] = set()
    for item in evidence or ():
        for m in _EVIDENCE.finditer(str(item)):
            found.add(int(m.group(1)))
    return frozenset(found)


def questions(sample: Mapping) -> list[Question]:
    """The sample's questions with their evidence sessions; those with none are skipped
    (as are sessions the conversation does not have)."""
    sample_id = str(sample.get("sample_id") or "conv")
    have = set(session_numbers(sample["conversation"]))
    out = []
    for i, qa in enumerate(sample.get("qa", ())):
        sessions = evidence_sessions(qa.get("evidence", ())) & have
        if sessions and str(qa.get("question", "")).strip():
            out.append(Question(f"{sample_id}#{i}", str(qa["question"]), int(qa.get("category", 0)),
                                frozenset(sessions)))
    return out


# -- tracing a hit to its sessions ----------------------------------------------------------

_PROVENANCE = re.compile(r"derived_from::\s*\[\[([^\]|#]+)")


def trace_sessions(path: str, note_text: str | None = None,
                   lines: Iterable[tuple[int, int]] = (), *, rest: bool = True) -> list[int]:
    """The sessions a recall hit stands for, best first: a session file is its own; a
    digest note stands for the sessions its `derived_from::` links name — those on the
    lines of the hit's matched chunks (`lines`: 1-based, inclusive) first, then (unless
    `rest=False`: the matched lines' sessions alone) the rest in the note's order. A note
    that cites no session stands for none."""
    own = session_of_path(path)
    if own is not None:
        return [own]
    if not note_text:
        return []
    text_lines = note_text.splitlines()
    first: list[int] = []
    for start, end in lines:
        for line in text_lines[max(0, start - 1):max(0, end)]:
            first += [n for m in _PROVENANCE.finditer(line)
                      if (n := session_of_path(m.group(1).strip())) is not None]
    others = [n for m in _PROVENANCE.finditer(note_text)
              if (n := session_of_path(m.group(1).strip())) is not None] if rest else []
    return list(dict.fromkeys(first + others))


def ranked_sessions(hits: Iterable[Mapping], read: Callable[[str], str | None], *,
                    rest: bool = True) -> list[int]:
    """Recall's hits (as `recall --json` prints them) as a ranked list of sessions: each
    hit traced (`trace_sessions`, `rest` passed on), a session counted at its first place."""
    out: list[int] = []
    for hit in hits:
        path = str(hit.get("path", ""))
        spans = [(int(c.get("line_start", 0)), int(c.get("line_end", 0)))
                 for c in hit.get("chunks") or ()]
        text = None if session_of_path(path) is not None else read(path)
        out += [n for n in trace_sessions(path, text, spans, rest=rest) if n not in out]
    return out


# -- fusing two session rankings (how far can the digest lift the raw logs?) ---------------

def fuse_rrf(first: Sequence[int], second: Sequence[int], *, rrf_k: float,
             weight: float) -> list[int]:
    """Weighted reciprocal rank fusion of two session rankings: a session scores
    1 / (rrf_k + rank in `first`) + weight / (rrf_k + rank in `second`), ranks 1-based;
    ties keep `first`'s order, then `second`'s."""
    score: dict[int, float] = {}
    for rank, n in enumerate(first, 1):
        score.setdefault(n, 1.0 / (rrf_k + rank))
    seen: set[int] = set()
    for rank, n in enumerate(second, 1):
        if n not in seen:
            seen.add(n)
            score[n] = score.get(n, 0.0) + weight / (rrf_k + rank)
    order = list(dict.fromkeys([*first, *second]))
    return sorted(order, key=lambda n: -score[n])


def one_slot_for(first: Sequence[int], second: Sequence[int], *, slot: int = 5) -> list[int]:
    """`first`'s ranking with place `slot` (1-based) given to `second`'s best session not
    already above it; the rest of `first` follows."""
    head = list(dict.fromkeys(first))[: slot - 1]
    extra = [n for n in second if n not in head][:1]
    return list(dict.fromkeys([*head, *extra, *first]))


# -- metrics -----------------------------------------------------------------------------

def recall_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """Fraction of the relevant sessions found among the first k ranked."""
    if not relevant:
        raise ValueError("a question without evidence has no recall")
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def hit_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """1.0 when any relevant session is among the first k, else 0.0."""
    return 1.0 if relevant.intersection(ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[int], relevant: frozenset[int]) -> float:
    """1 / (1-based rank of the first relevant session), 0.0 when none is ranked."""
    for rank, session in enumerate(ranked, 1):
        if session in relevant:
            return 1.0 / rank
    return 0.0


@dataclass
class Scores:
    """Mean metrics over a group of questions."""

    n: int = 0
    recall5: float = 0.0
    recall10: float = 0.0
    hit5: float = 0.0
    hit10: float = 0.0
    mrr: float = 0.0
    per_question: list[tuple[float, ...]] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        return {"n": self.n, "recall@5": self.recall5, "recall@10": self.recall10,
                "hit@5": self.hit5, "hit@10": self.hit10, "mrr": self.mrr}


def score_rankings(
    rankings: Mapping[str, Sequence[int]], qs: Iterable[Question]
) -> dict[str, Scores]:
    """{"all": Scores, "<category name>": Scores, ...} for questions with a ranking."""
    groups: dict[str, list[tuple[float, ...]]] = {"all": []}
    for q in qs:
        if q.qid not in rankings:
            continue
        ranked = list(rankings[q.qid])
        row = (recall_at(ranked, q.sessions, 5), recall_at(ranked, q.sessions, 10),
               hit_at(ranked, q.sessions, 5), hit_at(ranked, q.sessions, 10),
               reciprocal_rank(ranked, q.sessions))
        groups["all"].append(row)
        if q.category in (1, 2, 3, 4):
            groups.setdefault(HEADLINE, []).append(row)
        groups.setdefault(CATEGORIES.get(q.category, f"category-{q.category}"), []).append(row)
    out = {}
    for name, rows in groups.items():
        if not rows:
            out[name] = Scores()
            continue
        means = [statistics.fmean(col) for col in zip(*rows, strict=True)]
        out[name] = Scores(len(rows), *means, per_question=rows)
    return out
