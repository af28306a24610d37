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
  person writes one, without the dataset's turn ids; the dream benchmark's), or the
  same chat lines in two other forms people log (issue #30): ``texting`` (the turns as
  people text: `texting_messages`) and ``assistant`` (one speaker relabelled as the
  assistant: `assistant_messages`);
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
import random
import re
import statistics
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

__all__ = [
    "CATEGORIES", "Question", "load_conversations", "session_numbers", "session_datetime",
    "session_path", "session_markdown", "conversation_files", "session_of_path", "write_vault",
    "ConversationRun", "run_conversation", "evidence_sessions", "questions", "recall_at", "LAYOUTS",
    "trace_sessions", "ranked_sessions", "Message", "texting_messages", "assistant_messages",
    "assistant_label", "ASSISTANT_LABELS", "session_messages", "speaker_of_turns",
    "user_questions",
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


LAYOUTS = ("ids", "chat", "texting", "assistant")
ASSISTANT_LABELS = ("AI", "Assistant")


@dataclass(frozen=True)
class Message:
    """One line of a session file: who said it, the dataset turn it comes from (a turn
    texted as a burst of messages gives each of them its id), the words and the caption
    of the image the turn shared ("" when none; on the turn's last message)."""

    speaker: str
    dia_id: str
    text: str
    caption: str = ""


def _turn_messages(turns: Sequence[Mapping]) -> list[Message]:
    return [Message(_one_line(t.get("speaker")), _one_line(t.get("dia_id")),
                    _one_line(t.get("text")), _one_line(t.get("blip_caption"))) for t in turns]


# -- texting: the turns as people type them on a phone --------------------------------------
#
# Each speaker gets habits of their own, drawn once per conversation (a person who drops
# apostrophes drops them all evening; another writes curly ones; some write "u"), then
# every message is typed with those habits: mostly lowercase (names and "I" too), no full
# stop at the end, now and then a laugh or an emoji, a few spoken shortenings, and a long
# turn sent as a burst of short messages. Nothing is added that says something new: what a
# turn states survives in its words, so the sessions its evidence names still hold it.

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_CONTRACTION = re.compile(r"(?i)\b([a-z]+)['’](m|s|t|re|ve|d|ll)\b")
_SHORTENINGS = ((re.compile(r"\bgoing to\b"), "gonna"), (re.compile(r"\bwant to\b"), "wanna"),
                (re.compile(r"\bkind of\b"), "kinda"), (re.compile(r"\bthough\b"), "tho"),
                (re.compile(r"\bbecause\b"), "bc"), (re.compile(r"\bto be honest\b"), "tbh"))
_EMOJI = ("😂", "😊", "❤️", "🙌", "😭", "👍", "🥰", "✨", "😅", "🙏", "😍", "🤞")
_BURST_CHARS = 80  # a turn longer than this is sent as several messages
_SHORT_SENTENCE = 25  # a sentence this short goes out with the next one ("Wow! That's …")


@dataclass(frozen=True)
class _Habits:
    lowercase: float  # share of messages typed all lowercase
    apostrophe: str  # "drop" (im, dont) or "curly" (I’m)
    you_to_u: float  # share of "you"/"your" typed "u"/"ur"
    shorten: float  # share of "going to", "because", … typed "gonna", "bc", …
    laugh: str  # "lol" or "haha"
    laugh_rate: float
    emoji: tuple[str, ...]
    emoji_rate: float


def _habits(rng: random.Random) -> _Habits:
    return _Habits(
        lowercase=rng.uniform(0.8, 0.97), apostrophe=rng.choice(("drop", "curly")),
        you_to_u=rng.choice((0.0, 0.0, 0.35, 0.6)), shorten=rng.uniform(0.3, 0.8),
        laugh=rng.choice(("lol", "haha", "hahaha")), laugh_rate=rng.uniform(0.05, 0.15),
        emoji=tuple(rng.sample(_EMOJI, 3)), emoji_rate=rng.uniform(0.05, 0.15),
    )


def _bursts(text: str, rng: random.Random) -> list[str]:
    """A turn as the messages a person sends: one when it is short, else a sentence or two
    each (a very short sentence rides with the next); a long sentence may break at a comma."""
    if len(text) <= _BURST_CHARS:
        return [text]
    out: list[str] = []
    pending = ""
    for sentence in _SENTENCE_END.split(text):
        piece = f"{pending} {sentence}".strip()
        if len(piece) < _SHORT_SENTENCE:
            pending = piece
            continue
        pending = ""
        if len(piece) > 2 * _BURST_CHARS and ", " in piece and rng.random() < 0.5:
            head, _, tail = piece.partition(", ")
            out += [head, tail]
        else:
            out.append(piece)
    if pending:
        if out and len(pending) < _SHORT_SENTENCE:
            out[-1] = f"{out[-1]} {pending}"
        else:
            out.append(pending)
    return out


def _type_message(text: str, habits: _Habits, rng: random.Random) -> str:
    """One message typed with `habits`; `rng` decides the habits that come and go."""
    def apostrophe(m: re.Match) -> str:
        word, tail = m.group(1), m.group(2)
        if habits.apostrophe == "curly":
            return f"{word}’{tail}"
        if tail.lower() == "ll":  # "ill", "well": people who drop the others keep this one
            return m.group(0)
        return f"{word}{tail}"

    out = _CONTRACTION.sub(apostrophe, text)
    lower = rng.random() < habits.lowercase
    if lower:
        out = out.lower()
    for pattern, short in _SHORTENINGS:
        out = pattern.sub(lambda m, s=short: s if rng.random() < habits.shorten else m.group(0), out)
    if habits.you_to_u:
        out = re.sub(r"(?i)\byou(r?)\b", lambda m: ("u" + ("r" if m.group(1) else ""))
                     if rng.random() < habits.you_to_u else m.group(0), out)
    out = re.sub(r"(?<![.])\.$", "", out)  # no full stop at the end ("..." stays)
    if rng.random() < habits.laugh_rate:
        out = f"{out} {habits.laugh}"
    if rng.random() < habits.emoji_rate:
        out = f"{out} {rng.choice(habits.emoji)}"
    return out


def texting_messages(turns: Sequence[Mapping], *, seed: object = 0) -> list[Message]:
    """The turns as people text them (deterministic for a `seed`): each speaker's habits
    drawn from the seed and their name, each turn sent as one message or a burst of short
    ones (`_bursts`), every message typed with those habits (`_type_message`); every burst
    keeps its turn's `dia_id`, and the image caption rides on the turn's last message,
    as the chat layout shows it."""
    habits: dict[str, _Habits] = {}
    out: list[Message] = []
    for turn in _turn_messages(turns):
        if turn.speaker not in habits:
            habits[turn.speaker] = _habits(random.Random(f"{seed}|habits|{turn.speaker}"))
        rng = random.Random(f"{seed}|{turn.dia_id}|{turn.text}")
        pieces = [p for p in _bursts(turn.text, rng) if p.strip()] or [""]
        typed = [_type_message(p, habits[turn.speaker], rng) for p in pieces]
        out += [Message(turn.speaker, turn.dia_id, t, turn.caption if i == len(typed) - 1 else "")
                for i, t in enumerate(typed)]
    return out


# -- a user and an assistant: one speaker relabelled -----------------------------------------

def assistant_label(sample_id: str) -> str:
    """The assistant's label in a conversation: "AI" or "Assistant", by the conversation
    (a stable hash of its id), so a run meets both."""
    return ASSISTANT_LABELS[zlib.crc32(str(sample_id).encode("utf-8")) % len(ASSISTANT_LABELS)]


def assistant_messages(turns: Sequence[Mapping], *, assistant: str, label: str) -> list[Message]:
    """The turns as a user ↔ assistant chat: the speaker `assistant` relabelled `label`
    (their turns kept word for word as the assistant's replies), the other speaker the
    user under their own name."""
    return [Message(label if m.speaker == assistant else m.speaker, m.dia_id, m.text, m.caption)
            for m in _turn_messages(turns)]


def session_messages(sample_id: str, number: int, turns: Sequence[Mapping], *,
                     layout: str = "chat", seed: object = 0,
                     assistant: str | None = None) -> list[Message]:
    """The lines of one session in `layout` (see the module's docstring); `seed` varies
    the texting, `assistant` names the speaker the assistant layout relabels."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if layout == "texting":
        return texting_messages(turns, seed=f"{seed}|{sample_id}|{number}")
    if layout == "assistant":
        if not assistant:
            raise ValueError("the assistant layout needs the speaker to relabel (assistant=…)")
        return assistant_messages(turns, assistant=assistant, label=assistant_label(sample_id))
    return _turn_messages(turns)


def session_markdown(sample_id: str, number: int, date_time: str, turns: Sequence[Mapping],
                     *, layout: str = "ids", seed: object = 0, assistant: str | None = None) -> str:
    """The markdown of one session: a heading with its date and time, one line per
    message (`layout`: "ids" keeps the dataset's turn id after the speaker; "chat",
    "texting" and "assistant" write `**Name:** text` lines without it)."""
    lines = [f"# {sample_id} session {number}: {_one_line(date_time)}", ""]
    for m in session_messages(sample_id, number, turns, layout=layout, seed=seed,
                              assistant=assistant):
        head = f"**{m.speaker}** ({m.dia_id}):" if layout == "ids" else f"**{m.speaker}:**"
        line = f"{head} {m.text}".rstrip()
        if m.caption:
            line += f" [image: {m.caption}]"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _assistant_speaker(sample: Mapping, user: str) -> str:
    """The speaker the assistant layout relabels: the one that is not the `user`
    ("a" = speaker_a is the user, "b" = speaker_b is)."""
    if user not in ("a", "b"):
        raise ValueError(f"user must be 'a' or 'b' (speaker_a or speaker_b), got {user!r}")
    conversation = sample["conversation"]
    return _one_line(conversation["speaker_b" if user == "a" else "speaker_a"])


def conversation_files(sample: Mapping, *, layout: str = "ids", seed: object = 0,
                       user: str = "a") -> dict[str, str]:
    """{vault-relative path: markdown} for every session of one LoCoMo sample (`seed`:
    the texting layout's; `user`: which speaker is the user in the assistant layout)."""
    conversation = sample["conversation"]
    sample_id = str(sample.get("sample_id") or "conv")
    assistant = _assistant_speaker(sample, user) if layout == "assistant" else None
    files = {}
    for n in session_numbers(conversation):
        stamp = conversation.get(f"session_{n}_date_time")
        if stamp is None:
            raise ValueError(f"{sample_id}: session {n} has no session_{n}_date_time")
        path = session_path(sample_id, n, session_datetime(stamp))
        files[path] = session_markdown(sample_id, n, stamp, conversation[f"session_{n}"],
                                       layout=layout, seed=seed, assistant=assistant)
    return files


def session_of_path(path: str) -> int | None:
    """The session number of a file `conversation_files` wrote (None for other files)."""
    m = re.search(r"-session-(\d+)\.md$", path)
    return int(m.group(1)) if m else None


def write_vault(root: str | Path, sample: Mapping, *, layout: str = "ids", seed: object = 0,
                user: str = "a") -> dict[str, int]:
    """Write the sample's sessions under `root` (`conversation_files`'s arguments);
    {path: session number}.

    Unchanged files are left alone (so an index over the folder re-reads nothing) and
    daily files that are not sessions of this sample are removed.
    """
    root = Path(root)
    for layer in ("daily", "resource", "digest/wiki", "digest/procedure", "digest/personal"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    files = conversation_files(sample, layout=layout, seed=seed, user=user)
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
    k: int = 10, rebuild: bool = False, fusion: str = "rrf", rules=None, on_index=None,
) -> ConversationRun:
    """Write the sample's vault under `root`, index it, and rank every question.

    Each question goes through `recall_batch` (scope "sources", no access log); the
    ranking is the session numbers of the returned files, best first. `rules`: the index's
    chunk rules (`chunking.ChunkRules`; default the index's own); `on_index(index)` is
    called once the index is refreshed (a benchmark reads what it embedded).
    """
    from reme_workbench.index.recall import (
        recall_batch,  # lazy: the pure helpers above need no index
    )
    from reme_workbench.index.store import VaultIndex

    write_vault(root, sample)
    qs = questions(sample)
    rankings: dict[str, dict[str, list[int]]] = {}
    latency: dict[str, list[float]] = {}
    with VaultIndex(Path(root), embedder, **({"rules": rules} if rules is not None else {})) as index:
        t0 = time.perf_counter()
        index.refresh(rebuild=rebuild)
        index_s = time.perf_counter() - t0
        stats = index.stats()
        if on_index is not None:
            on_index(index)
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


def speaker_of_turns(sample: Mapping) -> dict[str, str]:
    """{dia_id: speaker} over every turn of the sample's sessions."""
    conversation = sample["conversation"]
    return {_one_line(t.get("dia_id")): _one_line(t.get("speaker"))
            for n in session_numbers(conversation) for t in conversation[f"session_{n}"]}


def user_questions(sample: Mapping, user: str) -> set[str]:
    """The ids of the questions (as `questions` numbers them) whose evidence turns are all
    the `user`'s ("a": speaker_a, "b": speaker_b): facts about the user, what a memory of
    a user ↔ assistant chat keeps (issue #30 item 3). An evidence id that names no turn
    of the conversation (malformed, or a session it does not have) is left out; a question
    with no turn left is not among them."""
    if user not in ("a", "b"):
        raise ValueError(f"user must be 'a' or 'b', got {user!r}")
    name = _one_line(sample["conversation"]["speaker_a" if user == "a" else "speaker_b"])
    speakers = speaker_of_turns(sample)
    sample_id = str(sample.get("sample_id") or "conv")
    kept = set()
    for i, qa in enumerate(sample.get("qa", ())):
        turns = [f"D{int(m.group(1))}:{int(m.group(2))}" for item in qa.get("evidence") or ()
                 for m in _EVIDENCE.finditer(str(item)) if m.group(2) is not None]
        said = [speakers[t] for t in turns if t in speakers]
        if said and all(who == name for who in said):
            kept.add(f"{sample_id}#{i}")
    return kept & {q.qid for q in questions(sample)}


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
