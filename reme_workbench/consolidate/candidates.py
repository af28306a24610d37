"""Merge candidates: pairs of digest notes that may be one concept (docs/spec.md §7.7.1).

Two gates, cheap one first, both computed mechanically (no brain):

1. **Description similarity** — the cosine of the embeddings of `"<name>: <description>"`
   (the name alone when a note has no description), measured above the embedder's
   chance level: `(cos − baseline) / (1 − baseline)`, where the baseline is the mean
   cosine of unrelated note sentences of the pair's language (`chance_level`; about 0.09
   for MiniLM but 0.81 for e5 in English, so a raw cosine threshold would let nearly
   every e5 pair through). The name and description are what
   a note says it is about; embedding them once per note, in batches, makes the gate one
   matrix product over the digest (row blocks, so 10k notes need no 10k × 10k
   matrix). Rows are L2-normalised, so the dot product is the cosine. The
   vectors come from the vault's index, which embeds each digest note's description
   when it indexes the note (dream refreshes the index after every write), so mining
   embeds nothing for notes dream wrote; the notes the index lacks (edited by hand since,
   or no index at all) are embedded here and cached per embedder in `.reme/`
   (`embed_descriptions`): a weekly run embeds only what is new or changed.
2. **Body topic overlap** — the overlap coefficient of the notes' *topic words*:
   `|A ∩ B| / max(min(|A|, |B|), MIN_TOPIC_WORDS)`. Topic words of a body: its Latin
   words lower-cased and crudely stemmed (`deploys`, `deployed`, `deploying` meet),
   numbers of three digits or more, jieba words of two characters or more for Chinese,
   and each wikilink reduced to one token for its target (two notes linking the same
   note share that token; the alias wording does not count). Dropped: stop words
   (`textrules.TOPIC_STOPWORDS`, `CHINESE_STOPWORDS`), dates,
   provenance (`derived_from::` links into daily/ or resource/, and the lines holding
   only them — every dream note has them, so they would make unrelated notes alike),
   predicates (`related_to::`), callout markers and Markdown punctuation. The overlap
   coefficient rather than Jaccard because a duplicate is often a short note and a long
   one saying the same and more: the short one's words are all in the long one. The
   floor keeps two tiny bodies from scoring 1.0 on two shared words.
   Computed for the pairs that pass gate 1; every digest note's words are read once per
   run, since what is common is counted over all of them.

**Where pairs come from: the whole digest.** For each note, its `NEIGHBOURS` (20) nearest
notes by description vector (one exact inner-product search over the digest, faiss), whatever
their communities — a duplicate filed in another corner of the vault (linked from other
notes) is still a duplicate — and, as before, every pair of one community (notes of one
kind elsewhere may crowd a note's nearest places: one runbook form for every service).
A pair of two communities must also name the same values (`common_text.value_words`:
identifiers, numbers, names; `value_overlap` ≥ `MIN_VALUE_OVERLAP` of the note naming
fewer, common values left out, a note naming none passes): the same runbook for another
service shares every word but its values, and would pair with its like in every
community. Besides, notes stating the same repository or id field
(`identity.is_strong`) that at most `MAX_NOTES_PER_ID` (4) notes state are paired
whatever their descriptions say (gate 1 waived, `shared_identifier` records which):
one plugin listed twice under two file names. When that identifier is the only one of
its label each note states (common values left out), gate 2 is waived too: a wiki's
stub page holding only `Github Repo: <url>` shares no words with the plugin's full page
once the template is left out, yet is the same plugin (issue #31); the votes, and the
uncertain report when they disagree, decide. Each pair records both communities.

**Boilerplate-blind** (`common_text`): the overlap compares topic words less those a
large share of the digest holds (a wiki's template), and a pair whose notes state the
same label with different values — another repository, plugin id, version or developer
(`identity.identity_conflict`) — comes back with `distinct` set: never a merge
proposal, reported as "repository differs (a vs b)". A pair passing both gates where
either note is under a cooldown that forbids merging (`Cooldowns.active(path, "merge",
now)`) is returned with `skipped` set, so the run can report it; it is not a
candidate. Order is deterministic: best `score` first, then the paths.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import stat
import threading
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..config import MergeSettings
from ..errors import RemeError, UnsafePathError
from ..index.chunking import description_text
from ..index.embeddings import normalize_rows
from ..textrules import (
    CHINESE_STOPWORDS,
    CJK_CHARS,
    TOPIC_STOPWORDS,
    chinese_words,
    language_of,
)
from ..textrules import stem as _text_stem
from ..vault.frontmatter import find_frontmatter
from ..vault.layout import CACHE_DIR, is_digest_note, resolve_inside
from ..vault.links import Link, is_provenance, parse_links
from ..vault.note import decode_note_bytes
from .common_text import DigestText, NoteText, line_keys, value_words
from .identity import identifiers_of, is_strong

if TYPE_CHECKING:
    from ..index.embeddings import Embedder
    from ..index.store import VaultIndex
    from ..vault.vault import Vault
    from .cooldowns import Cooldowns

__all__ = [
    "chance_level",
    "MergeCandidate",
    "mine_candidates",
    "description_text",
    "body_topic_words",
    "topic_overlap",
    "MIN_TOPIC_WORDS",
    "EMBED_BATCH",
    "VECTOR_CACHE",
    "embed_descriptions",
    "description_vectors",
    "digest_text",
    "NEIGHBOURS",
    "MAX_NOTES_PER_ID",
    "MIN_VALUE_OVERLAP",
    "value_overlap",
]

# The overlap's denominator is at least this many words: two 3-word bodies sharing 3
# words are not "the same topic" with certainty 1.0.
MIN_TOPIC_WORDS = 5
EMBED_BATCH = 256  # texts per embedder call: a model embedder's memory stays bounded
# in .reme/, one file per embedder (<name> made file-safe): only a cache, rebuilt at will
VECTOR_CACHE = "merge_description_vectors-{name}.npz"
_BLOCK = 1024  # rows of the digest's similarity matrix computed at a time
NEIGHBOURS = 20  # docs/spec.md §10: nearest notes by description, per note
MAX_NOTES_PER_ID = 4  # docs/spec.md §10: a repository or id stated by more pairs none
MIN_VALUE_OVERLAP = 0.5  # docs/spec.md §10: a pair of two communities shares this of its values


@dataclass(frozen=True)
class MergeCandidate:
    """A pair of digest notes that passed both gates (`a` < `b` by path).

    `community` is a's community, `community_b` b's when it is another. `skipped` says
    why the pair is not a candidate after all (a cooldown), `distinct` why the two are
    different things (their identifiers differ: never proposed), else None.
    `shared_identifier` names the repository or id both state when that, not their
    descriptions, made them a pair; `sole_identifier` says it is the only one of its
    label either note states (two pages of one thing: reported even when no vote
    agrees).
    """

    a: str
    b: str
    community: str
    description_similarity: float  # above chance, 0..1 (see the module doc)
    body_overlap: float
    skipped: str | None = None
    description_cosine: float = 0.0  # the raw cosine, for the record
    community_b: str | None = None
    distinct: str | None = None
    shared_identifier: str | None = None
    # the shared identifier is the only one of its label either note states: two pages
    # of one thing (merge reports the pair even when no vote agrees)
    sole_identifier: bool = False

    @property
    def score(self) -> float:
        """How alike the pair is on both gates: the mean of the two figures."""
        return (self.description_similarity + self.body_overlap) / 2

    @property
    def communities(self) -> tuple[str, str]:
        return self.community, self.community_b or self.community

    @property
    def community_label(self) -> str:
        """`c_01`, or `c_01 / c_05` for a pair of two communities."""
        a, b = self.communities
        return a if a == b else f"{a} / {b}"

    def to_json(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "community": self.community,
            "communities": list(self.communities),
            "description_similarity": round(self.description_similarity, 4),
            "description_cosine": round(self.description_cosine, 4),
            "body_overlap": round(self.body_overlap, 4),
            "score": round(self.score, 4),
            "skipped": self.skipped,
            "distinct": self.distinct,
            "shared_identifier": self.shared_identifier,
            "sole_identifier": self.sole_identifier,
        }

    @classmethod
    def from_json(cls, data, *, of: str = "The proposal") -> MergeCandidate:
        """The pair `to_json` wrote (a merge proposal's story `candidate`); one without its
        pair or figures (a proposal file is a trust boundary) is refused, saying what to do."""
        refused = RemeError(f"{of} does not name its pair; run `reme-workbench consolidate "
                            "--only communities,merge --force` to mine the pairs again.")
        if not isinstance(data, Mapping):
            raise refused
        a, b, community = data.get("a"), data.get("b"), data.get("community")
        if not all(isinstance(v, str) and v for v in (a, b, community)):
            raise refused
        communities = data.get("communities")
        second = communities[1] if isinstance(communities, list) and len(communities) == 2 else None

        def figure(key: str) -> float:
            value = data.get(key, 0.0)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise refused
            return float(value)

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(a, b, community, figure("description_similarity"), figure("body_overlap"),
                   skipped=text("skipped"), description_cosine=figure("description_cosine"),
                   community_b=second if isinstance(second, str) and second != community else None,
                   distinct=text("distinct"), shared_identifier=text("shared_identifier"),
                   sole_identifier=data.get("sole_identifier") is True)


# -- the measures ----------------------------------------------------------------------------


_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_PREDICATE = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9_]*::")
_CALLOUT = re.compile(r"\[![A-Za-z-]+\][+-]?")
_URL = re.compile(r"https?://\S+")
# days, months and years say when, not what (a port such as 8080 stays a topic word)
_DATE_LIKE = re.compile(r"^(?:\d{1,2}|(?:19|20)\d{2}(?:\d{4})?)$")


# the offline judges' stemmer (plural and tense endings only, so "merges" meets "merge"),
# memoised: mining stems every word of every note of a community
_stem = lru_cache(maxsize=1 << 16)(_text_stem)


def _link_token(target: str) -> str:
    target = target.strip().lower()
    return "[[" + (target[:-3] if target.endswith(".md") else target) + "]]"


def body_topic_words(text: str, links: Sequence[Link] | None = None) -> frozenset[str]:
    """The topic words of a note's body, which pairs are gated on (see the module doc for
    what counts; `hub_rules.topic_words` are the words of a note's name, description and
    headings, which a hub is named by). `text` is the whole file or its body: frontmatter
    is skipped. `links` are `parse_links(text)` when
    the caller has them already (the scan's record of an unchanged file)."""
    fm = find_frontmatter(text)
    start = fm.end if fm is not None else 0
    words: set[str] = set()
    parts: list[str] = []
    last = start
    for link in parse_links(text) if links is None else links:
        if link.start < start:
            continue
        parts.append(text[last : link.start])
        last = link.end
        if not link.target or link.embed or is_provenance(link):
            continue  # provenance says where it came from, not what it is about
        words.add(_link_token(link.target))
    parts.append(text[last:])
    text = "".join(parts)
    text = _URL.sub(" ", _CALLOUT.sub(" ", _PREDICATE.sub(" ", text)))
    if _CJK_RUN.search(text):
        for run in _CJK_RUN.findall(text):  # jieba, imported only for Chinese text
            words.update(w for w in chinese_words(run) if len(w) >= 2 and w not in CHINESE_STOPWORDS)
        text = _CJK_RUN.sub(" ", text)
    for word in _LATIN_WORD.findall(text.lower()):
        word = word.replace("’", "'").split("'", 1)[0]
        if len(word) < 2 or word in TOPIC_STOPWORDS:
            continue
        if word.isdigit():
            if not _DATE_LIKE.match(word) and len(word) >= 3:
                words.add(word)
            continue
        if word[0].isdigit():  # 2026-10-05 split into numbers, v2, 10x: not topic words
            continue
        words.add(_stem(word))
    return frozenset(words)


def value_overlap(a: frozenset[str] | None, b: frozenset[str] | None) -> float | None:
    """|a ∩ b| / min(|a|, |b|) of two notes' values; None when either names none (a
    rule in plain words: nothing to compare)."""
    if not a or not b:
        return None
    return len(a & b) / min(len(a), len(b))


def topic_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / max(min(|a|, |b|), MIN_TOPIC_WORDS); 0.0 when either is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / max(min(len(a), len(b)), MIN_TOPIC_WORDS)


# -- mining ----------------------------------------------------------------------------------


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    rows = [
        np.asarray(embedder.embed(texts[i : i + EMBED_BATCH]), dtype=np.float32)
        for i in range(0, len(texts), EMBED_BATCH)
    ]
    if not rows:
        return np.zeros((0, int(getattr(embedder, "dim", 1))), dtype=np.float32)
    # a provider that does not normalise would make the gate a dot product, not a cosine
    return normalize_rows(np.vstack(rows))


def _text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _load_vectors(path: Path, embedder: Embedder) -> dict[bytes, np.ndarray]:
    """The cached vectors of `embedder` ({} when absent, damaged or another embedder's)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["embedder"]) != embedder.name:
                return {}
            keys, vectors = data["keys"], data["vectors"]
            if (vectors.ndim != 2 or keys.dtype != np.uint8 or keys.shape != (len(vectors), 16)):
                return {}
            return {k.tobytes(): v for k, v in zip(keys, vectors, strict=True)}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return {}  # only a cache: embed again


def _save_vectors(path: Path, embedder: Embedder, found: dict[bytes, np.ndarray]) -> None:
    keys = sorted(found)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
    try:
        path.parent.mkdir(exist_ok=True)  # .reme/, as the scan cache makes it
        np.savez(tmp, embedder=np.array(embedder.name),
                 # raw digests as uint8 rows: numpy's bytes dtype drops trailing NULs
                 keys=np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, 16),
                 vectors=np.stack([found[k] for k in keys]).astype(np.float32))
        os.replace(tmp, path)  # readers see the old cache or the new one
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def embed_descriptions(root: Path | None, embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The unit vectors of `texts`; with a vault `root`, the vectors of texts seen before
    come from `.reme/merge_description_vectors-<embedder>.npz` (rebuildable), so a
    weekly run embeds only new or changed descriptions. The cache keeps the current
    texts only; one that cannot be read or written is embedded around, never an error."""
    keys = [_text_key(t) for t in texts]
    path = None
    if root is not None:
        try:
            name = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder.name)[:100]
            path = resolve_inside(Path(root), f"{CACHE_DIR}/{VECTOR_CACHE.format(name=name)}")
        except UnsafePathError:
            path = None
    known = _load_vectors(path, embedder) if path is not None else {}
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in known}
    if todo:
        fresh = _embed(embedder, list(todo.values()))
        known.update(zip(todo, fresh, strict=True))
    if not keys:
        return _embed(embedder, [])
    found = {k: known[k] for k in keys}
    if path is not None and (todo or len(known) != len(found)):
        _save_vectors(path, embedder, found)
    return normalize_rows(np.stack([found[k] for k in keys]))


def description_vectors(paths: Sequence[str], texts: Sequence[str], embedder: Embedder, *,
                        index: VaultIndex | None = None, root: Path | None = None) -> np.ndarray:
    """Unit rows for the notes' description `texts`: the index's where it holds them
    (embedded by the same embedder from the same text), the others by `embed_descriptions`
    (with its `.reme/` cache when `root` is given)."""
    stored = index.description_vectors(dict(zip(paths, texts, strict=True))) if index else {}
    rest = [i for i, p in enumerate(paths) if p not in stored]
    fresh = embed_descriptions(root, embedder, [texts[i] for i in rest])
    if not stored:
        return fresh
    out = np.zeros((len(paths), fresh.shape[1] if rest else len(next(iter(stored.values())))),
                   dtype=np.float32)
    for i, p in enumerate(paths):
        if p in stored:
            out[i] = stored[p]
    if rest:
        out[rest] = fresh
    return out


_CHANCE: dict[tuple[str, str], float] = {}


def chance_level(embedder: Embedder, language: str) -> float:
    """The embedder's mean cosine of unrelated notes of `language` ("en" or "zh"): the
    offline consolidate brain's reference sentences, embedded once per embedder."""
    from .reference import REFERENCE  # the same sentences the offline judges measure against

    key = (getattr(embedder, "name", type(embedder).__name__), language)
    if key not in _CHANCE:
        texts = list(REFERENCE[language])
        vectors = normalize_rows(embedder.embed(texts))
        cos = vectors @ vectors.T
        _CHANCE[key] = float(cos[~np.eye(len(texts), dtype=bool)].mean())
    return min(_CHANCE[key], 0.99)


def _neighbour_pairs(vectors: np.ndarray, k: int, threshold: float) -> dict[tuple[int, int], float]:
    """{(i, j): cosine} for i < j where j is among i's `k` nearest rows, or i among j's,
    with cosine ≥ threshold: one exact inner-product search (faiss) over the digest, a
    row block of queries at a time."""
    import faiss

    n = len(vectors)
    k = min(k, n - 1)
    if k < 1:
        return {}
    rows_all = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexFlatIP(rows_all.shape[1])
    index.add(rows_all)
    found: dict[tuple[int, int], float] = {}
    for start in range(0, n, _BLOCK):
        sims, near = index.search(rows_all[start : start + _BLOCK], k + 1)  # +1: itself
        r, c = np.nonzero(sims >= threshold)
        i, j = start + r, near[r, c]
        keep = (j >= 0) & (j != i)
        lo, hi = np.minimum(i, j)[keep], np.maximum(i, j)[keep]
        found.update(zip(zip(lo.tolist(), hi.tolist(), strict=True),
                         sims[r, c][keep].tolist(), strict=True))
    return found


def _community_pairs(vectors: np.ndarray, groups: Mapping[str, list[int]], threshold: float
                     ) -> dict[tuple[int, int], float]:
    """{(i, j): cosine} for i < j of one community with cosine ≥ threshold."""
    found: dict[tuple[int, int], float] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        rows = vectors[members]
        for start in range(0, len(members), _BLOCK):
            block = rows[start : start + _BLOCK] @ rows.T
            for r, c in zip(*np.nonzero(block >= threshold), strict=True):
                i, j = members[start + int(r)], members[int(c)]
                if i < j:
                    found[(i, j)] = float(block[r, c])
    return found


def _identifier_pairs(notes: Sequence[str], text: DigestText
                      ) -> dict[tuple[int, int], tuple[str, str]]:
    """{(i, j): (label, value)} for notes stating one repository or id that at most
    MAX_NOTES_PER_ID notes state (common values left out)."""
    at = {p: i for i, p in enumerate(notes)}
    stating: dict[tuple[str, str], list[int]] = {}
    for path in notes:
        found = text.notes.get(path)
        if found is None:
            continue
        for ident in found.identifiers:
            if is_strong(ident) and ident not in text.identifiers:
                stating.setdefault(ident, []).append(at[path])
    pairs: dict[tuple[int, int], tuple[str, str]] = {}
    for ident in sorted(stating):
        members = sorted(stating[ident])
        if 2 <= len(members) <= MAX_NOTES_PER_ID:
            for x, i in enumerate(members):
                for j in members[x + 1 :]:
                    pairs.setdefault((i, j), ident)
    return pairs


def _about_one(digest: DigestText, a: str, b: str, shared: tuple[str, str]) -> bool:
    """Whether the identifier `shared` (("repository", "github.com/x/y")) is the only one
    of its label each note states, common values left out: the pages of one plugin (a
    stub holding only its repository link beside its full page), not an index listing
    it among others."""
    for path in (a, b):
        found = digest.notes.get(path)
        if found is None:
            return False
        own = {ident for ident in found.identifiers
               if ident[0] == shared[0] and ident not in digest.identifiers}
        if own != {shared}:
            return False
    return True


_DIGEST_TEXT: dict[str, tuple[bytes, DigestText]] = {}  # root -> (fingerprint, text)
_DIGEST_LOCK = threading.Lock()


def digest_text(vault: Vault) -> DigestText:
    """Every readable digest note's topic words, identifiers and lines, and the text a
    large share of them holds (`common_text.DigestText`). Kept for the vault's last
    scan, so the merge phase's votes after mining read nothing again."""
    records = vault.scan.records
    paths = sorted(p for p, rec in records.items() if is_digest_note(p) and rec.readable)
    digest = hashlib.blake2b(digest_size=16)
    for path in paths:
        digest.update(f"{path}\0{records[path].sha256}\n".encode())
    key, root = digest.digest(), str(vault.root)
    with _DIGEST_LOCK:
        known = _DIGEST_TEXT.get(root)
    if known is not None and known[0] == key:
        return known[1]
    safe_folders: set[str] = set()
    notes: dict[str, NoteText] = {}
    for path in paths:
        found = _read_note_text(vault, path, safe_folders)
        if found is not None:
            notes[path] = found
    text = DigestText.build(notes)
    with _DIGEST_LOCK:
        _DIGEST_TEXT.clear()  # one vault's text at a time: bounded memory
        _DIGEST_TEXT[root] = (key, text)
    return text


def mine_candidates(
    vault: Vault,
    communities: Mapping[str, str],
    embedder: Embedder,
    cfg: MergeSettings,
    *,
    cooldowns: Cooldowns | None = None,
    now: datetime | None = None,
    cache: bool = True,
    index: VaultIndex | None = None,
    neighbours: int = NEIGHBOURS,
) -> list[MergeCandidate]:
    """Every pair of the digest passing both gates of the `[merge]` settings `cfg`, best
    first (see the module doc).

    `communities` is `meta/communities.json`'s `{path: id}`: the notes it names that are
    still readable digest notes are mined, and each pair records both its notes'
    communities. A pair under a merge-forbidding cooldown comes back with `skipped` set;
    one whose identifiers differ with `distinct` set. With the vault's `index` (built
    with `embedder`), the description vectors its refreshes stored are used
    (`description_vectors`) and only the notes it lacks are embedded here.
    `cache=False` (a dry run, a read-only vault) neither reads nor writes the
    description-vector cache (`embed_descriptions`).
    """
    records = vault.scan.records
    notes = sorted(
        p for p, cid in communities.items()
        if isinstance(cid, str) and is_digest_note(p)
        and (rec := records.get(p)) is not None and rec.readable
    )
    if len(notes) < 2:
        return []
    texts = [description_text(p, records[p].name, records[p].description) for p in notes]
    vectors = description_vectors(notes, texts, embedder, index=index,
                                  root=vault.root if cache else None)
    chance = {lang: chance_level(embedder, lang) for lang in ("en", "zh")}
    lowest = min(chance.values())
    # no pair under it passes
    raw_floor = lowest + cfg.min_description_similarity * (1.0 - lowest)
    # a pair is Chinese when both texts are (as the offline judges read a text's language)
    chinese = [language_of(t) == "zh" for t in texts]
    digest = digest_text(vault)
    groups: dict[str, list[int]] = {}
    for i, path in enumerate(notes):
        groups.setdefault(communities[path], []).append(i)
    pairs = _neighbour_pairs(vectors, neighbours, raw_floor)
    pairs.update(_community_pairs(vectors, groups, raw_floor))
    shared = _identifier_pairs(notes, digest)
    for i, j in shared:
        if (i, j) not in pairs:
            pairs[(i, j)] = float(vectors[i] @ vectors[j])

    when = now if now is not None else vault.clock()
    own_words: dict[str, frozenset[str] | None] = {}  # each note's, less the common ones
    own_values: dict[str, frozenset[str] | None] = {}

    def words_of(path: str) -> frozenset[str] | None:
        if path not in own_words:
            own_words[path] = digest.words_of(path)
        return own_words[path]

    def values_of(path: str) -> frozenset[str] | None:
        if path not in own_values:
            own_values[path] = digest.values_of(path)
        return own_values[path]

    found: list[MergeCandidate] = []
    for (i, j), cosine in pairs.items():
        lang = "zh" if chinese[i] and chinese[j] else "en"
        similarity = min(max(0.0, (cosine - chance[lang]) / (1.0 - chance[lang])), 1.0)
        via = shared.get((i, j))
        if similarity < cfg.min_description_similarity and via is None:
            continue
        a, b = notes[i], notes[j]
        wa, wb = words_of(a), words_of(b)
        if wa is None or wb is None:
            continue  # unreadable since the scan: nothing to merge
        overlap = topic_overlap(wa, wb)
        sole = via is not None and _about_one(digest, a, b, via)
        if overlap < cfg.min_body_overlap and not sole:
            continue
        ca, cb = communities[a], communities[b]
        if ca != cb and via is None:  # alike words in two corners: the values must agree
            agree = value_overlap(values_of(a), values_of(b))
            if agree is not None and agree < MIN_VALUE_OVERLAP:
                continue
        found.append(MergeCandidate(
            a, b, ca, similarity, overlap,
            skipped=_cooldown_reason(cooldowns, (a, b), when),
            description_cosine=min(cosine, 1.0), community_b=cb if cb != ca else None,
            distinct=digest.conflict(a, b),
            shared_identifier=f"{via[0]} {via[1]}" if via else None, sole_identifier=sole,
        ))
    found.sort(key=lambda c: (-round(c.score, 9), c.a, c.b))
    return found


_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)


def _read_bytes(root: Path, rel: str, safe_folders: set[str]) -> bytes | None:
    """The bytes of a scanned note, never through a symlink: each folder is checked once
    (`resolve_inside`), the file itself is opened O_NOFOLLOW. A fraction of
    `Store.read`'s cost per file; mining only reads (no stamp is needed)."""
    folder = posixpath.dirname(rel)
    try:
        if folder not in safe_folders:
            resolve_inside(root, rel)
            safe_folders.add(folder)
        fd = os.open(os.path.join(root, rel), _OPEN_FLAGS)
    except (OSError, UnsafePathError):
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read()


def _read_note_text(vault: Vault, path: str, safe_folders: set[str]) -> NoteText | None:
    data = _read_bytes(vault.root, path, safe_folders)
    if data is None:
        return None
    try:
        text = decode_note_bytes(data, path, max_bytes=vault.max_note_bytes)
    except RemeError:
        return None
    rec = vault.scan.records.get(path)
    # the scan parsed this file's links already; reuse them while its bytes are the same
    same = rec is not None and rec.sha256 == hashlib.sha256(data).hexdigest()
    return NoteText(body_topic_words(text, rec.links if same else None), identifiers_of(text),
                    line_keys(text), value_words(text))


def _cooldown_reason(
    cooldowns: Cooldowns | None, pair: tuple[str, str], now: datetime
) -> str | None:
    if cooldowns is None:
        return None
    for path in pair:
        found = cooldowns.active(path, "merge", now)
        if found is not None:
            return (
                f"{path} was {found.entry.action} on {found.entry.started_at:%Y-%m-%d}: no merge "
                f"until {found.until:%Y-%m-%d} ([cooldowns] {found.key}, docs/spec.md §7.4)"
            )
    return None
