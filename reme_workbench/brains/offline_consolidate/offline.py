"""The offline consolidate brain: deterministic rules, no model, no network (docs/spec.md §7.6–§7.8).

What every user without a model key gets. It reads *form* — words, statements, links,
sections — and one embedder (injected: the index's; `HashingEmbedder` in tests).

**Similarity above chance.** A cosine means different things per embedder: unrelated
English notes score ~0.09 with MiniLM, ~0.15 with the hashing embedder and ~0.81 with
e5; Chinese ones ~0.45 with MiniLM (which does not know Chinese) and ~0.89 with e5. So
every cosine is read against the embedder's own *baseline* — the mean pairwise cosine
of ten unrelated note sentences of the text's language (`consolidate/reference.py`
`REFERENCE`, the sentences merge candidates are measured against too), embedded once per
embedder: `sim = clip((cos − baseline) / (1 − baseline), 0, 1)`; 0 is "as alike as
unrelated notes", 1 "the same text". With it one threshold holds for MiniLM and e5.

**Votes** (`vote`): three different judges, by `request.judge`. Each maps its measure
`m` to `{is_same, confidence}` with two anchors, *lean* `W` and *sure* `S` (`Anchors`):
`m ≥ S` → same, confidence 0.8 + 0.2·(m−S)/(1−S) (an agreeing vote, §7.7.2);
`W ≤ m < S` → same, 0.5 + 0.3·(m−W)/(S−W) (unsure: under the 0.8 a vote needs);
`m < W` → not the same, 0.5 + 0.5·(W−m)/W. "Cannot tell" is not the same, 0.5.

*Values* (`text.fact_tokens`): numbers, code spans, names (capitalised inside a sentence,
and anywhere once the pair names them so: `text.proper_names`), identifiers joined by
`- _ / .`, every Latin word of a Chinese statement, weekdays — what tells two notes of
one kind apart, and what a paraphrase keeps.

* judge 0, *description*: `sim` of the two notes' "name. description" (else the first
  sentence). W 0.5, S 0.7. At most unsure when the descriptions name values each of the
  other lacks (Hana's halsa-api alerts / Leila's halsa-sync alerts), or the bodies say
  one thing with other values (a rival statement, as judge 1): alike descriptions of
  two instances.
* judge 1, *statements*: the share of the content statements (sentences, list items,
  table rows, code blocks; `text.py`) of the note with fewer of them that are found in
  the other — found: the same normalised key, or a Dice of match tokens ≥ 0.6 sharing
  at least 2 tokens, with the same values. W 0.3, S 0.6. A note of one statement makes
  it at most unsure; so do rival identifiers (`text.rival_identifiers`: one only in each
  body, as many parts, some shared — `yorren-notifications` / `renmi-notifications`),
  and rival statements: one the other says in the same words (Dice ≥ 0.6) with values
  each lacks (`_rival_statement`: "In bripel-auth PRs …" / "In lofen-analytics PRs …").
* judge 2, *structure*: the Jaccard of the two notes' outbound links (the body's and
  the caller's `a_links`/`b_links`; sources and links between the two left out); the
  shared `derived_from::` sources are reported. Under 2 links in all it cannot tell. It
  is at most unsure when the notes share fewer than 3 links (notes of one neighbourhood
  link the same one or two; dream weaves up to 3) or have the same sources (one
  material's notes are distinct units by construction). W 0.34, S 0.6.

Calibration (tests/brains/test_consolidate_offline.py, e5 and MiniLM): paraphrased duplicates
under other names score 0.76–0.89 on judge 0 and 0.88–1.00 on judge 1; distinct notes
of one topic at most 0.52 and 0.25.

**Merge** (`merge`) is "merge, do not refine" made literal: the winner's body word for
word, then under `## From <loser>` (`## 来自 <loser>`) what of the loser it lacks, then
every `derived_from::` line of both, each once. A loser statement is *had* when the
winner has its normalised key, or one statement holding all its match tokens but at
most one plain word — never a number, a code span's token or a negation, and with the
same negations (so "10 minutes" for "15 minutes" and "do not promote" are lacking) — and
the winner's body holds every value it gives (`textrules.statement_values`, compared as
the check `keeps_values` compares them, so the merge passes it). A
block holding a lacking statement or a link the winner lacks comes along in its own
form: whole when all of it is lacking or it holds code; else its marker with the lacking
sentences. A numbered list is a sequence: when at most half of its steps are lacking,
each of those comes as a bullet `**Step k of n:**` with the step in the loser's words
(so a reviewer sees where it goes, without the steps the winner has said twice); when
more are lacking, the whole list comes, in order. The loser's headings above what comes
are kept, one level under the From heading; a link on a line not carried still comes along with its line. Links of the
loser to the winner or itself would be self-links: they are written as their text (the
merge phase does the same for the winner's links to the loser). Description: the
winner's, else the loser's.

**Split** (`plan_split`): `split.SplitPlanner` — a long procedure's numbered
list cut into phases where neighbouring steps are least alike, else the note's own
top-level sections (read on their topic words); overloaded when the parts are dispersed
(mean `sim` under `[split] dispersed_under`, 0.16, or next to no topic word shared).
Every rule is in that module's doc.

**Hub** (`write_hub`): `hub.hub_note` — named by the phrase of a member's name
or heading that best tells the community from the rest of the vault (a tf-idf against
the vault's counts in the request; never a word most other notes share); pillars
`request.central` each `[[path|name]] — description`, the other members under "Details
stay in", every member's source on grouped `derived_from::` lines; built to stay under
the request's token budget while linking its member share (what is optional goes
first), or an error saying it cannot. Every rule is in that module's doc; bucket = the
members' most common.

**What it cannot do.** It matches form, not meaning. A duplicate rewritten in other
words (or in the other language) shares few statements and only the description
embedding sees it: one vote, an uncertain pair for a person. Two notes that differ in
one word that matters (staging / prod) look alike to judges 0 and 1. Merge repeats, in
the loser's words, what the winner says otherwise (nothing is lost, some is said
twice). Split cannot cut a note without headings, nor move a stray paragraph to the
topic it belongs to. The hub names a topic by shared words and lists members; it does
not abstract. Feedback on a retry does not change its answers: its rules already keep
every link and provenance line. For real use, point consolidate at a model.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...config import Settings
from ...consolidate.candidates import chance_level
from ...index.embeddings import Embedder, normalize_rows
from ...llm.base import BrainError, BrainReply, Usage
from ...llm.consolidate import (
    ConsolidateBrain,
    HubRequest,
    MergeRequest,
    NoteView,
    PairRequest,
    SplitRequest,
)
from ...llm.schema import (
    MAX_BODY,
    HubNote,
    MergedNote,
    PairVote,
    SplitPlan,
)
from ...textrules import language_of, reader_text, statement_values
from ...vault.checks import missing_values, value_key
from ...vault.layout import BUCKETS, FALLBACK_BUCKET
from ...vault.links import parse_links, replace_link
from . import text as tx
from .hub import HubTooLarge, common_topic, hub_note
from .split import JOIN_SIM, MIN_SECTION_TOKENS, SplitPlanner

__all__ = ["OfflineConsolidateBrain", "Anchors", "common_topic"]

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Anchors:
    """A judge's two anchors on its measure: `lean` (is_same from here, unsure) and
    `sure` (is_same with confidence ≥ 0.8 from here)."""

    lean: float
    sure: float

    def __post_init__(self) -> None:
        if not 0.0 < self.lean < self.sure < 1.0:
            raise ValueError(f"anchors need 0 < lean < sure < 1, got {self.lean} and {self.sure}")

    def vote(self, m: float) -> tuple[bool, float]:
        m = min(max(m, 0.0), 1.0)
        if m >= self.sure:
            return True, 0.8 + 0.2 * (m - self.sure) / (1.0 - self.sure)
        if m >= self.lean:
            return True, 0.5 + 0.3 * (m - self.lean) / (self.sure - self.lean)
        return False, 0.5 + 0.5 * (self.lean - m) / self.lean


DESCRIPTION = Anchors(0.5, 0.7)
STATEMENTS = Anchors(0.3, 0.6)
STRUCTURE = Anchors(0.34, 0.6)
FOUND_DICE = 0.6  # a statement is found in the other note from this Dice of match tokens
MIN_SHARED = 2  # ... sharing at least this many tokens
MIN_LINKS = 2  # judge 2 cannot tell with fewer outbound links than this, in all
SURE_SHARED_LINKS = 3  # ... nor be sure sharing fewer
EMBED_CACHE = 8192  # texts whose vectors a brain keeps

_TEXT = {"en": {"from": "From {name}"}, "zh": {"from": "来自 {name}"}}  # the hub's: hub.py

class OfflineConsolidateBrain(ConsolidateBrain):
    """Rule-based consolidate brain (see the module doc for every rule and threshold).

    `settings` (the defaults when None) give what reme.toml sets: `[llm] language`, the
    split cut `[split] dispersed_under`, the hub's `[abstract] max_tokens` and
    `min_pillars`. The anchors and the split's joining rules are the brain's own."""

    model = "offline"
    votes_in_parallel = False  # its rules run in this process: threads only add overhead

    def __init__(
        self,
        embedder: Embedder,
        settings: Settings,
        *,
        description: Anchors = DESCRIPTION,
        statement_overlap: Anchors = STATEMENTS,
        structure: Anchors = STRUCTURE,
        join_sim: float = JOIN_SIM,
        min_section_tokens: int = MIN_SECTION_TOKENS,
    ) -> None:
        language = settings.llm.language
        if language not in (*LANGUAGES, "auto"):
            raise ValueError(f"language must be 'en', 'zh' or 'auto', got {language!r}")
        self.embedder = embedder
        self.language = language
        self.anchors = (description, statement_overlap, structure)
        self.splitter = SplitPlanner(self.similarities, settings.split, join_sim=join_sim,
                                     min_section_tokens=min_section_tokens)
        self.hub_max_tokens = settings.abstract.max_tokens
        self.min_pillars = settings.abstract.min_pillars
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    # -- similarity above chance -------------------------------------------------------------

    def baseline(self, language: str) -> float:
        """The embedder's mean cosine of unrelated notes of `language`: the chance level
        merge candidates are measured against too (computed once per embedder)."""
        return chance_level(self.embedder, language)

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Rows for `texts`, each text embedded once per brain (a note is in many pairs)."""
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            rows = normalize_rows(np.asarray(self.embedder.embed(missing), dtype=np.float32))
            found.update(zip(missing, rows, strict=True))
            with self._lock:
                if len(self._vectors) + len(missing) > EMBED_CACHE:
                    self._vectors.clear()  # bounded: a huge run only embeds again
                self._vectors.update(zip(missing, rows, strict=True))
        return np.stack([found[t] for t in texts])

    def similarities(self, texts: Sequence[str], language: str) -> tuple[np.ndarray, np.ndarray]:
        """(cosines, sims above chance) of every pair of `texts`."""
        vectors = self._embed(list(texts))
        cos = np.clip(vectors @ vectors.T, -1.0, 1.0)
        base = min(self.baseline(language), 0.99)
        return cos, np.clip((cos - base) / (1.0 - base), 0.0, 1.0)

    def _lang(self, hint: str, text: str) -> str:
        if self.language in LANGUAGES:
            return self.language
        if hint in LANGUAGES:
            return hint
        return language_of(text)

    # -- vote ------------------------------------------------------------------------------

    def read_ahead(self, notes: Iterable[NoteView]) -> int:
        """Embed the gists the description judge reads (`_gist`) of `notes` in one batch:
        a note is in many pairs, and one batch costs far less than a call per pair."""
        gists = list(dict.fromkeys(_gist(note) for note in notes))[:EMBED_CACHE]  # kept all
        if gists:
            self._embed(gists)
        return len(gists)

    def vote(self, request: PairRequest) -> BrainReply[PairVote]:
        if request.judge not in (0, 1, 2):
            raise ValueError(f"judge must be 0, 1 or 2 (the offline brain has three rules), got {request.judge}")
        a, b = request.a, request.b
        lang = self._lang(request.language, f"{a.name} {a.description} {b.name} {b.description}")
        judge = (self._judge_description, self._judge_statements, self._judge_structure)[request.judge]
        measure, reason = judge(request, lang)
        if measure is None:
            is_same, confidence = False, 0.5
        else:
            is_same, confidence = self.anchors[request.judge].vote(measure)
        data = {"is_same": is_same, "confidence": round(confidence, 3), "reason": tx.clip(reason, 600)}
        return _reply(PairVote.model_validate(data))

    def _judge_description(self, request: PairRequest, lang: str) -> tuple[float | None, str]:
        a, b = request.a, request.b
        cos, sim = self.similarities([_gist(a), _gist(b)], lang)
        s, c = float(sim[0, 1]), float(cos[0, 1])
        base = self.baseline(lang)
        # the same words about other things: "where Hana gets halsa-api alerts" and "where
        # Leila gets halsa-sync alerts" embed alike; their values say they differ
        names = tx.proper_names(a.body, a.description, b.body, b.description)
        va, vb = _gist_values(a, names), _gist_values(b, names)
        other = bool(va and vb) and not (va <= vb or vb <= va)
        shown = [", ".join(sorted(v)[:3]) for v in (va - vb, vb - va)]
        if not other:  # alike descriptions of two instances the bodies tell apart
            sa = [st for st in tx.statements(a.body) if st.has_content]
            sb = [st for st in tx.statements(b.body) if st.has_content]
            rival = _rival_statement(sa, sb, names) or _rival_statement(sb, sa, names)
            if rival is not None:
                other, shown = True, list(rival)
        measure = min(s, (self.anchors[0].lean + self.anchors[0].sure) / 2) if other else s
        cap = ""
        if other and measure < s:
            cap = (f"；但两者说的是不同的对象（{shown[0]} / {shown[1]}），最多算不确定" if lang == "zh"
                   else f"; but they name other things ({shown[0]} / {shown[1]}), so at most unsure")
        if lang == "zh":
            return measure, f"名称和描述的相似度 {s:.2f}（余弦 {c:.2f}，无关笔记约 {base:.2f}）{cap}"
        return measure, (f"names and descriptions {s:.2f} similar (cosine {c:.2f}; unrelated notes "
                         f"score {base:.2f}){cap}")

    def _judge_statements(self, request: PairRequest, lang: str) -> tuple[float | None, str]:
        sa = [s for s in tx.statements(request.a.body) if s.has_content]
        sb = [s for s in tx.statements(request.b.body) if s.has_content]
        (short, short_note), (long, long_note) = sorted(
            [(sa, request.a), (sb, request.b)], key=lambda p: len(p[0])
        )
        if not short:
            if lang == "zh":
                return None, f"「{_short_name(short_note)}」没有陈述，无法比较正文"
            return None, f"{_quote(short_note)} has no statement: no text to compare"
        names = tx.proper_names(request.a.body, request.a.description,
                                request.b.body, request.b.description)
        found = sum(1 for s in short if _found(s, long, names))
        share = found / len(short)
        measure, cap = share, ""
        unsure = (self.anchors[1].lean + self.anchors[1].sure) / 2
        rivals = tx.rival_identifiers(tx.identifiers(request.a.body), tx.identifiers(request.b.body))
        if not rivals:  # a statement the other says in its words with other values
            rivals = _rival_statement(short, long, names)
        if len(short) < 2 and share > 0:  # one sentence alike is thin: at most unsure
            measure = min(measure, unsure)
            cap = "；只有一条陈述，最多算不确定" if lang == "zh" else "; one statement is thin, so at most unsure"
        elif rivals and share > unsure:  # the same words about another instance
            measure = unsure
            cap = (f"；但两者提到同类的不同对象（{rivals[0]} / {rivals[1]}），最多算不确定" if lang == "zh"
                   else f"; but they name other instances of one thing ({rivals[0]} / {rivals[1]}), "
                        "so at most unsure")
        if lang == "zh":
            return measure, (
                f"「{_short_name(short_note)}」的 {len(short)} 条陈述中有 {found} 条出现在"
                f"「{_short_name(long_note)}」里（{share:.2f}）{cap}"
            )
        return measure, (
            f"{found} of {len(short)} statements of {_quote(short_note)} appear in "
            f"{_quote(long_note)} ({share:.2f}){cap}"
        )

    def _judge_structure(self, request: PairRequest, lang: str) -> tuple[float | None, str]:
        a, b = request.a, request.b
        pair = {a.path, b.path}
        la, pa = _links_and_sources(a.body, request.a_links, pair)
        lb, pb = _links_and_sources(b.body, request.b_links, pair)
        links, shared = la | lb, la & lb
        mutual = _links_between(a, b)
        zh = lang == "zh"
        sources = (
            f"，来源 {len(pa & pb)}/{len(pa | pb)} 个相同" if zh else f"; {len(pa & pb)} of {len(pa | pb)} sources shared"
        )
        if len(links) < MIN_LINKS:
            if zh:
                return None, f"出链太少（共 {len(links)} 个），无法从结构判断{sources}{mutual['zh']}"
            return None, f"too few outbound links to judge by structure ({len(links)} in all){sources}{mutual['en']}"
        share = len(shared) / len(links)
        measure, cap = share, ""
        siblings = bool(pa) and pa == pb
        if siblings or len(shared) < SURE_SHARED_LINKS:
            # one material's notes are distinct units by construction, and notes of one
            # neighbourhood share a link or two (dream links up to 3 related notes):
            # either way structure may lean, never be sure
            measure = min(share, (self.anchors[2].lean + self.anchors[2].sure) / 2)
            if share > measure:
                cap = (
                    ("；同一份材料的笔记是不同的单元，最多算不确定" if siblings
                     else f"；共享的链接少于 {SURE_SHARED_LINKS} 个，最多算不确定")
                    if zh else
                    ("; notes of one material are distinct units, so at most unsure" if siblings
                     else f"; fewer than {SURE_SHARED_LINKS} shared links, so at most unsure")
                )
        if zh:
            return measure, (
                f"{len(links)} 个出链中共有 {len(shared)} 个（Jaccard {share:.2f}）{sources}{mutual['zh']}{cap}"
            )
        return measure, (
            f"{len(shared)} of {len(links)} outbound links shared (Jaccard {share:.2f}){sources}{mutual['en']}{cap}"
        )

    # -- merge -----------------------------------------------------------------------------

    def merge(self, request: MergeRequest) -> BrainReply[MergedNote]:
        winner, loser = request.winner, request.loser
        lang = self._lang(request.language, f"{winner.name} {winner.description}\n{winner.body}")
        body = merge_bodies(winner, loser, heading=_TEXT[lang]["from"].format(name=tx.one_line(loser.name)))
        if len(body) > MAX_BODY:
            raise BrainError(
                f"merging {loser.path} into {winner.path} gives a body of {len(body):,} characters, over "
                f"the {MAX_BODY:,} a note may have; split {winner.path} first or merge them by hand",
                model=self.model,
            )
        description = (winner.description or loser.description or winner.name).strip()
        data = {"description": tx.clip(description, 300), "body": body}
        return _reply(MergedNote.model_validate(data))

    # -- split -----------------------------------------------------------------------------

    def plan_split(self, request: SplitRequest) -> BrainReply[SplitPlan]:
        note = request.note
        lang = self._lang(request.language, f"{note.name}\n{note.body}")
        bucket = request.bucket if request.bucket in BUCKETS else FALLBACK_BUCKET
        plan = self.splitter.plan(note, bucket, lang)
        return _reply(SplitPlan.model_validate(plan))

    # -- hub -------------------------------------------------------------------------------

    def write_hub(self, request: HubRequest) -> BrainReply[HubNote]:
        members = list(request.members)
        if len(members) < self.min_pillars:
            raise BrainError(
                f"community {request.community} has {len(members)} members; a hub needs at least "
                f"{self.min_pillars} to name as pillars",
                model=self.model,
            )
        lang = self._lang(request.language, " ".join(f"{m.name} {m.description}" for m in members))
        try:
            data = hub_note(request, lang, max_tokens=min(request.max_tokens, self.hub_max_tokens),
                            min_pillars=self.min_pillars)
        except HubTooLarge as exc:
            raise BrainError(str(exc), model=self.model) from None
        return _reply(HubNote.model_validate(data, context={"member_paths": request.member_paths}))


# --- merge ------------------------------------------------------------------------------------


def merge_bodies(winner: NoteView, loser: NoteView, *, heading: str) -> str:
    """The winner's body, then what only the loser says under `## <heading>`, then the
    provenance lines of both, each once (see the module doc)."""
    w_body = winner.body.rstrip()
    w_statements = tx.statements(w_body)
    w_keys = tx.link_keys(w_body)
    self_targets = {winner.path, loser.path}

    def lacks_link(key: tuple[str, str | None]) -> bool:
        return key[0] not in self_targets and key not in w_keys

    w_values = value_key(w_body)

    def lacking(st: tx.Statement) -> bool:
        """The statement comes along: the winner does not say it, lacks one of its links,
        or lacks one of its values (`keeps_values` holds the merge to them)."""
        return (not _had(st, w_statements) or any(lacks_link(k) for k in st.links)
                or bool(missing_values(w_values, statement_values(st.text))))

    head, w_prov = _split_trailing_provenance(w_body)  # the winner's closing provenance stays last
    appended: list[str] = []
    pending: dict[int, str] = {}  # loser headings above the next carried block
    extra_prov: list[str] = []
    l_blocks = tx.blocks(loser.body)
    top = min((b.level for b in l_blocks if b.kind == "heading"), default=2)
    for unit in _units(l_blocks):
        first = unit[0]
        if first.kind == "provenance":
            if any(lacks_link(k) for k in tx.link_keys(first.text)) and first.text.strip() not in extra_prov:
                extra_prov.append(first.text.strip())
            continue
        if first.kind == "heading":
            pending = {lv: h for lv, h in pending.items() if lv < first.level}
            pending[first.level] = first.heading
            continue
        piece = _lacking_part(unit, lacking)
        if piece is None:
            continue
        # the loser's headings, for context, one level under the From heading
        appended += ["#" * min(3 + lv - top, 6) + " " + pending[lv] for lv in sorted(pending)]
        pending = {}
        appended.append(piece)
    # a link held only by a line not carried (a heading or a label with nothing new
    # under it) still comes along: the merge keeps every link
    carried = tx.link_keys("\n\n".join(appended))
    for block in l_blocks:
        if block.kind != "provenance" and any(
            lacks_link(k) and k not in carried for k in tx.link_keys(block.text)
        ):
            appended.append(block.text)
            carried |= tx.link_keys(block.text)
    parts = [head] if head.strip() else []
    if appended:
        section = _drop_self_links(_join_pieces(appended), self_targets, winner.name)
        parts.append(f"## {heading}\n\n{section}")
    prov = [*w_prov, *(line for line in extra_prov if line not in w_prov)]
    if prov:
        parts.append("\n".join(prov))
    return "\n\n".join(parts)


_NUMBERED = re.compile(r"^(\s*)\d{1,9}[.)][ \t]")


def _units(blocks: list[tx.Block]) -> list[list[tx.Block]]:
    """Blocks, with each numbered list (and the items nested in it) as one unit: steps are
    a sequence, so when one is lacking the whole list comes along, in order."""
    units: list[list[tx.Block]] = []
    run_indent: int | None = None
    for block in blocks:
        numbered = block.kind == "item" and _NUMBERED.match(block.lines[0])
        if run_indent is not None and block.kind == "item" and (
            block.level > run_indent or (numbered and block.level == run_indent)
        ):
            units[-1].append(block)
            continue
        run_indent = block.level if numbered else None
        units.append([block])
    return units


def _lacking_part(unit: list[tx.Block], lacking_statement) -> str | None:
    """The part of a loser unit the winner lacks, in the unit's own form; None if none."""
    block = unit[0]
    if block.kind in ("label", "rule"):
        return None  # structure: comes along with the content it labels (see below)
    sts = [s for b in unit for s in tx.statements_of(b)]
    lacking = [s for s in sts if lacking_statement(s)]
    if not lacking:
        return None
    if len(unit) > 1 and _NUMBERED.match(block.lines[0]):
        steps = _lacking_steps(unit, lacking_statement)
        if steps is not None:
            return steps
    whole = tx.render_blocks(unit)
    if len(unit) > 1 or len(lacking) == len(sts) or block.kind in ("code", "predicate"):
        return whole
    if block.kind == "table":
        rows = {s.text for s in lacking}
        return "\n".join([*block.lines[:2], *(r for r in block.lines[2:] if r in rows)])
    if any(s.kind != "text" for s in sts):
        return whole  # a command inside: the item comes whole
    texts = " ".join(s.text for s in lacking)
    if block.kind == "item":
        marker = re.match(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?", block.lines[0])
        return (marker.group(0) if marker else "- ") + texts
    if block.kind == "callout":
        mark = re.match(r"^\s{0,3}>\s*\[![A-Za-z-]+\][+-]?", block.lines[0])
        return "\n".join([mark.group(0) if mark else "> [!note]", *(f"> {s.text}" for s in lacking)])
    if block.kind == "quote":
        return "\n".join(f"> {s.text}" for s in lacking)
    return texts


STEP_LABEL = "**Step {k} of {n}:**"


def _lacking_steps(unit: list[tx.Block], lacking_statement) -> str | None:
    """The steps of a numbered list the winner lacks, when they are at most half of them:
    each as a bullet `**Step k of n:**` and the step in the loser's words (its nested
    lines with it), so a reviewer sees where it goes without the whole list again; None
    when more are lacking (then the whole list comes, in order)."""
    steps: list[list[tx.Block]] = []
    for b in unit:
        if b.level == unit[0].level and _NUMBERED.match(b.lines[0]):
            steps.append([b])
        else:
            steps[-1].append(b)
    lacking = [k for k, step in enumerate(steps, 1) if any(
        lacking_statement(s)
        for b in step for s in tx.statements_of(b))]
    if 2 * len(lacking) > len(steps):
        return None
    out = []
    for k in lacking:
        first, *rest = tx.render_blocks(steps[k - 1]).split("\n")
        marker = _NUMBERED.match(first)
        width = len(marker.group(0))  # the item's content column, under "3. "
        out.append(f"- {STEP_LABEL.format(k=k, n=len(steps))} {first[width:]}")
        # nested lines keep their place under the bullet, whose content column is 2
        out += ["  " + ln[width:] if ln.startswith(" " * width) else ln for ln in rest]
    return "\n".join(out)


def _had(statement: tx.Statement, had: list[tx.Statement]) -> bool:
    """Merge's strict test: the winner has the same key, or one statement holding all the
    statement's tokens but at most one plain word (never a number, code, or a negation),
    with the same negations."""
    if not statement.has_content:
        return True  # a line of links only: its links decide
    tokens = statement.tokens
    allowance = 1 if len(tokens) >= 4 else 0
    for other in had:
        if other.key == statement.key:
            return True
        if len(tokens) < 3 or other.negations != statement.negations:
            continue
        extra = tokens - other.tokens
        if len(extra) <= allowance and not extra & statement.facts:
            return True
    return False


def _found(statement: tx.Statement, others: list[tx.Statement],
           names: frozenset[str] = frozenset()) -> bool:
    """The loose test of judge 1: same key, or Dice ≥ FOUND_DICE sharing ≥ MIN_SHARED tokens
    with the same values (numbers, code, names, weekdays): "alerts at 1300 per minute" is
    not found in "alerts at 2050 per minute", which only their values tell apart. `names`
    (`text.proper_names` of the pair) are values wherever they stand in a sentence."""
    values = _values(statement, names)
    for other in others:
        if other.key == statement.key:
            return True
        shared = len(statement.tokens & other.tokens)
        if (shared >= MIN_SHARED and tx.dice(statement.tokens, other.tokens) >= FOUND_DICE
                and values == _values(other, names)):
            return True
    return False


def _rival_statement(short: list[tx.Statement], long: list[tx.Statement],
                     names: frozenset[str]) -> tuple[str, str] | None:
    """The values of a sentence of `short` not found in `long` and of the sentence of
    `long` that says it in the same words (`_found`'s Dice) with values each lacks: "In
    bripel-auth PRs the blocking points got lost" / "In lofen-analytics PRs …". Two
    notes saying one thing of two instances are two notes; a paraphrase keeps its
    values. Words and values are the sentences' own: links and predicates are left out (a
    link's words are its target's, which a paraphrase may write otherwise). None when
    there is no such pair."""
    for statement in short:
        if statement.kind != "text" or _found(statement, long, names):
            continue
        mine, values = _prose(statement.text, names)
        if len(mine) < MIN_SHARED or not values:
            continue
        for other in long:
            if other.kind != "text":
                continue
            words, theirs = _prose(other.text, names)
            if (len(mine & words) >= MIN_SHARED and tx.dice(mine, words) >= FOUND_DICE
                    and values - theirs and theirs - values):
                return (", ".join(sorted(values - theirs)[:2]),
                        ", ".join(sorted(theirs - values)[:2]))
    return None


_PREDICATE_WORD = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9_]*::")
_LINK = re.compile(r"!?\[\[[^\[\]\n]*\]\]")


@functools.lru_cache(maxsize=4096)
def _prose(text: str, names: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(match tokens, values) of a sentence without its links and predicates."""
    prose = _PREDICATE_WORD.sub(" ", _LINK.sub(" ", text))
    tokens = tx.match_tokens(prose)
    return tokens, (tx.fact_tokens(prose, tokens) | (tokens & names)) - tx.negations(prose)


def _values(statement: tx.Statement, names: frozenset[str] = frozenset()) -> frozenset[str]:
    # the facts but the negations: a link's file name ("周报里不写…") may carry a negation
    # the sentence itself does not; merge's stricter `_had` compares negations on their own
    return (statement.facts | (statement.tokens & names)) - statement.negations


def _split_trailing_provenance(body: str) -> tuple[str, list[str]]:
    lines = body.rstrip().split("\n")
    prov: list[str] = []
    while lines and (not lines[-1].strip() or re.match(r"^\s*(?:[-*+][ \t]+)?derived_from::", lines[-1])):
        line = lines.pop()
        if line.strip():
            prov.insert(0, line.strip())
    return "\n".join(lines).rstrip(), prov


def _join_pieces(pieces: list[str]) -> str:
    out: list[str] = []
    for piece in pieces:
        if out:
            tight = _is_item(out[-1].split("\n")[-1]) and _is_item(piece.split("\n")[0])
            out.append("\n" if tight else "\n\n")
        out.append(piece)
    return "".join(out)


def _is_item(line: str) -> bool:
    return bool(re.match(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]", line))


def _drop_self_links(text: str, targets: set[str], name: str) -> str:
    """Links into the merged pair written as their text (they would point at the note itself)."""
    for link in reversed(parse_links(text)):
        if link.target in targets:
            text = replace_link(text, link, link.alias or name)
    return text


# --- small helpers ----------------------------------------------------------------------------


def _reply(value) -> BrainReply:
    raw = json.dumps(value.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
    return BrainReply(value=value, raw=raw, usage=Usage(), model="offline", attempts=1)


def _gist(note: NoteView) -> str:
    return reader_text(f"{note.name}. {note.description or tx.first_sentence(note.body)}")


def _gist_values(note: NoteView, names: frozenset[str]) -> frozenset[str]:
    """The values (`text.fact_tokens`, and the pair's proper names) of what a note says it
    is about: its description, else its first sentence (not its name: a slug's words are
    an identifier's)."""
    text = reader_text(note.description or tx.first_sentence(note.body))
    tokens = tx.match_tokens(text)
    return (tx.fact_tokens(text, tokens) | (tokens & names)) - tx.negations(text)


def _quote(note: NoteView) -> str:
    return f"“{_short_name(note)}”"


def _short_name(note: NoteView) -> str:
    return tx.clip(tx.one_line(note.name) or note.path, 60)


def _links_and_sources(body: str, extra: Sequence[str], pair: set[str]) -> tuple[set[str], set[str]]:
    sources = tx.provenance_targets(body)
    links = {t for t, _ in tx.link_keys(body)} - sources
    for target in extra:
        (sources if target.split("/", 1)[0] in ("daily", "resource") else links).add(target)
    return links - pair, sources - pair


def _links_between(a: NoteView, b: NoteView) -> dict[str, str]:
    ab = any(t == b.path for t, _ in tx.link_keys(a.body))
    ba = any(t == a.path for t, _ in tx.link_keys(b.body))
    if ab and ba:
        return {"en": "; they link each other", "zh": "；两篇互相链接"}
    if ab or ba:
        src, dst = (a, b) if ab else (b, a)
        return {"en": f"; {_quote(src)} links {_quote(dst)}", "zh": f"；「{_short_name(src)}」链接「{_short_name(dst)}」"}
    return {"en": "", "zh": ""}
