"""How good are dream's digest notes? Metrics over a labelled set (tests/data/dream_eval/).

The set holds material (`resource/…`, `daily/…`) and, per file, the units a careful
person would extract (`labels.yaml`, format in tests/data/dream_eval/README.md). After a
dream run over that material this module measures the notes it wrote:

* **fragment names** (`is_fragment_name`): a name that is a sentence prefix, a clause or
  carries markup instead of being a short noun phrase or imperative;
* **thin notes** (`is_thin`): a note with too little prose of its own to stand alone;
* **descriptions that repeat the name** (`description_repeats_name`);
* **broken links written**: D1 broken links in digest/ (`vault.health()`);
* **spurious personal**: personal notes derived only from resource/ (documentation);
* with labels, **unit recall** and **bucket accuracy** (`match_units`): each expected
  unit is matched to at most one produced note by its key phrases.

Notes about people have four more measures (issue #30: names with no topic, descriptions
in first person, broken contractions / agreement errors, notes mixing two topics), decided
with the spaCy and jieba pipelines in `reme_lab/people_notes.py` (kept apart: this
module is near the size a file should stay under).

Every rule is mechanical and documented where it is defined, so a figure can be
checked by hand. `dream_material` runs the product (a fresh vault, the material copied
in, `dream_vault`) and `evaluate` turns what it wrote into a `QualityReport`;
benchmarks/bench_dream_quality.py prints them against the targets.
"""

from __future__ import annotations

import math
import re
import shutil
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from reme_workbench.errors import RemeError
from reme_workbench.textrules import CJK_CHARS, HAN_CHARS
from reme_workbench.vault.layout import BUCKETS, bucket_of, is_digest_note
from reme_workbench.vault.links import is_provenance, parse_links
from reme_workbench.vault.note import parse

__all__ = [
    "MAX_NAME_WORDS", "MAX_NAME_CJK", "THIN_WORDS", "TARGETS",
    "deslug", "is_fragment_name", "own_prose", "is_thin", "description_repeats_name",
    "ExpectedUnit", "MaterialLabel", "load_labels", "Query", "load_queries",
    "ProducedNote", "read_digest_notes", "key_hits", "keys_needed", "Match", "match_units",
    "QualityReport", "evaluate", "material_files", "dream_material", "DreamRun",
    "reaction_name",
]

MAX_NAME_WORDS = 6  # Latin words in a name, after de-slugging
MAX_NAME_CJK = 12  # CJK characters in a name
# A note's own prose must weigh at least this many content words; a CJK character
# weighs half a word (24 characters ≈ 12 words, about one plain sentence in either).
THIN_WORDS = 12
TARGETS = {"broken_links": 0, "fragment_rate": 0.10, "bucket_accuracy": 0.85}

# -- words -----------------------------------------------------------------------------------

_ARTICLES = {"a", "an", "the"}
_PREPOSITIONS = {
    "for", "in", "to", "of", "with", "by", "as", "on", "at", "from", "into", "onto", "about",
    "over", "under", "via", "than", "like", "within", "without", "through", "between",
    "among", "during", "after", "before", "upon", "across", "along", "around", "behind",
    "beyond", "despite", "except", "inside", "outside", "since", "toward", "towards",
    "until", "unto",
}
_CONJUNCTIONS = {
    "and", "but", "or", "nor", "so", "yet", "because", "although", "though", "while",
    "whereas", "unless", "if", "when", "whenever", "where", "wherever", "whether", "once",
    "then", "also",
}
_PRONOUNS = {
    "this", "that", "these", "those", "it", "its", "you", "your", "yours", "we", "our", "us",
    "they", "their", "them", "he", "she", "his", "her", "i", "me", "my", "there", "here",
    "which", "who", "whom", "whose", "what", "such",
}
_AUXILIARIES = {
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do",
    "does", "did", "can", "could", "will", "would", "shall", "should", "may", "might", "must",
}
# Callout types that real callouts use as their marker; a slug of `> [!warning] …` starts
# with one of them. (Types that are also ordinary nouns — summary, example, bug, error,
# question — are left out: "error budget" is a fine name.)
_CALLOUT_TYPES = {"note", "warning", "tip", "info", "important", "caution", "danger",
                  "attention", "hint", "faq", "tldr", "todo"}
_OTHER_STARTS = {"just", "only", "even", "not"}
START_WORDS = _ARTICLES | _PREPOSITIONS | _CONJUNCTIONS | _PRONOUNS | _AUXILIARIES | \
    _CALLOUT_TYPES | _OTHER_STARTS
# A name may start with these two-word compounds (a slug loses the hyphen of "in-place").
_LEADING_COMPOUNDS = {"in": {"place", "memory", "app", "browser"},
                      "on": {"disk", "call", "premises", "demand"}}
# An open clause: a name that ends here wants more words. (Particles of phrasal verbs —
# in, on, up, out, off — are left out: "sign in", "back up".)
END_WORDS = _ARTICLES | _AUXILIARIES | {
    "of", "to", "for", "with", "from", "by", "into", "onto", "than", "as", "at", "about",
    "via", "and", "or", "but", "nor", "because", "if", "when", "whether", "that", "which",
    "who", "whose", "while", "unless", "your", "my", "our", "their", "its", "his",
}
# Chinese: a name must not open with a pronoun, conjunction, preposition or auxiliary…
ZH_START = (
    "你", "您", "如果", "因为", "由于", "虽然", "即使", "当", "在", "为了", "对于", "关于",
    "可以", "这", "那", "并", "而", "但", "所以", "要", "将", "把", "被", "我", "他", "她",
    "它", "和", "与", "或", "就", "也", "都", "又", "还", "如", "若", "则", "以及", "然后",
    "此", "该",
)
# …except in these words, which start with one of those characters.
ZH_START_WORDS_OK = ("当前", "当天", "当日", "当地", "在线", "并发", "并行", "并集", "要点",
                     "要素", "要求", "如何", "还原", "此外")
# …nor end on a particle or conjunction that leaves the clause open.
ZH_END = ("的", "了", "着", "和", "与", "或", "及", "把", "被", "是", "将", "可以", "就", "而",
          "但", "吗", "呢", "吧", "时候", "时")
ZH_END_WORDS_OK = ("目的", "以及", "普及", "提及", "涉及", "波及", "总和", "成就", "实时", "定时", "超时", "及时", "同时",
                   "临时", "小时", "按时", "准时", "总是", "但是", "于是", "或是", "就是")

_CJK = re.compile(f"[{CJK_CHARS}]")
_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9'’+.]*", re.I)
_TOKEN = re.compile(f"[a-z0-9][a-z0-9'’+.]*|[{HAN_CHARS}]+", re.I)
_MARKUP_IN_NAME = re.compile(
    r"\[\[|\]\]|\]\(|\*\*|__|`|!\[|%%|\$|</?[a-z][a-z0-9]*[^>]*>|^#|\s#\w|\||\^[a-z0-9-]{4,}",
    re.I,
)
_SENTENCE_PUNCT = re.compile(r"[,;:!?，。；：！？、…\"“”]|\.(\s|$)")


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def deslug(name: str) -> str:
    """`for-the-name` -> `for the name`: hyphens and underscores are word breaks."""
    return " ".join(re.sub(r"[-_]+", " ", unicodedata.normalize("NFKC", name)).split())


def _starts_zh(text: str) -> str | None:
    for word in ZH_START_WORDS_OK:
        if text.startswith(word):
            return None
    return next((w for w in sorted(ZH_START, key=len, reverse=True) if text.startswith(w)), None)


def _ends_zh(text: str) -> str | None:
    for word in ZH_END_WORDS_OK:
        if text.endswith(word):
            return None
    return next((w for w in sorted(ZH_END, key=len, reverse=True) if text.endswith(w)), None)


def is_fragment_name(name: str) -> str | None:
    """Why `name` is not a name a person would give (None when it is one).

    Checked in this order, on the name as given and then de-slugged (`-`/`_` → space):
    1. markup: a callout marker `[!…]`, link or Markdown syntax (`[[`, `]]`, `](`, `**`,
       backticks, `![`, `%%`, `$`, an HTML tag, a leading `#`, `|`, a `^block-id`);
    2. sentence punctuation (, ; : ! ? and their CJK forms, quotes, a full stop that ends
       a word);
    3. length: more than 6 Latin words, or more than 12 CJK characters;
    4. the first word is a function word (`START_WORDS`: articles, prepositions,
       conjunctions, pronouns, auxiliaries; a callout type such as `note`/`warning` when
       two or more words follow it, as in a slug of `> [!warning] Vaults within …`), or a
       Chinese name opens with one of `ZH_START` (你, 如果, 因为, 在, 这, 把, 被, …) —
       except a few whole words (`ZH_START_WORDS_OK`: 当前, 在线, 如何, …) and two-word
       compounds a slug split (`in place`, `on disk`);
    5. the last word leaves the clause open (`END_WORDS`: the, of, to, and, is, your, …;
       Chinese `ZH_END`: 的, 了, 和, 是, 时, … except `ZH_END_WORDS_OK`: 目的, 实时, …).
    """
    raw = unicodedata.normalize("NFKC", name).strip()
    if not raw:
        return "empty"
    if "[!" in raw:
        return "callout marker"
    if _MARKUP_IN_NAME.search(raw):
        return "markdown or link syntax"
    if _SENTENCE_PUNCT.search(raw):
        return "sentence punctuation"
    text = deslug(raw).casefold()
    words = _LATIN_WORD.findall(text)
    cjk = len(_CJK.findall(text))
    if len(words) > MAX_NAME_WORDS:
        return f"more than {MAX_NAME_WORDS} words ({len(words)})"
    if cjk > MAX_NAME_CJK:
        return f"more than {MAX_NAME_CJK} CJK characters ({cjk})"
    tokens = _TOKEN.findall(text)
    if not tokens:
        return "no words"
    first, last = tokens[0], tokens[-1]
    if _CJK.match(first):
        opener = _starts_zh(first)
        if opener:
            return f"starts with '{opener}'"
    elif first in _CALLOUT_TYPES:
        if len(tokens) >= 3:  # "note properties" is a name, "note-markdown-links-need" is not
            return f"starts with the callout type '{first}'"
    elif first in START_WORDS:
        second = tokens[1] if len(tokens) > 1 else ""
        if second not in _LEADING_COMPOUNDS.get(first, ()):
            return f"starts with the function word '{first}'"
    if _CJK.match(last):
        closer = _ends_zh(last)
        if closer and len(tokens) + len(last) > 2:  # "是" alone is no name either way
            return f"ends with '{closer}'"
    elif last in END_WORDS and len(tokens) > 1:
        return f"ends with '{last}'"
    return None


# -- names made of a reaction --------------------------------------------------------------

# What people say back rather than about themselves: a note named by one of these kept a
# reaction, not a memory ("sounds-like-a-fun", "love-them-so-much", "wow", "glad", "say").
_REACTION_NAME = re.compile(
    r"^(?:wow|whoa|oh|ooh|aw+|omg|haha|lol|yay|hey|hi|hello|thanks?|thank you|congrat\w*|glad|"
    r"sorry|bye|sounds?|looks?|seems?|that'?s|that s|this is|what a|how (?:cool|nice|great|fun)|"
    r"so (?:cool|nice|great|sweet|fun|glad|happy|proud|true)|love (?:it|that|this|them|you|your)|"
    r"great|awesome|amazing|cool|nice|sweet|lovely|wonderful|fantastic|incredible|say|said|"
    r"want|wants|use|somewhere|something|anything|right|true|exactly|same|yes|yeah|yep|no|ok|"
    r"okay|sure|good|you re|you are|you ve|you|your|me too|can t wait|hope)(?:\s|$)", re.I)


def reaction_name(name: str) -> bool:
    """True when a note's name is a reaction, not what it is about: after the person it is
    about ("Caroline's …", de-slugged "caroline s …") the name opens with a reaction
    (`_REACTION_NAME`) or has no content word left."""
    text = deslug(name).casefold().replace("’", "'")
    text = re.sub(rf"^[a-z]+(?:'s| s)\s+|^[{HAN_CHARS}]{{2,4}}的", "", text).strip()
    if _REACTION_NAME.match(text):
        return True
    return not _name_tokens(text) - {w for w in _LATIN_WORD.findall(text) if w in START_WORDS}


# -- thin notes ----------------------------------------------------------------------------

_WIKILINK = re.compile(r"!?\[\[[^\[\]\n]*\]\]")
_WIKILINK_PARTS = re.compile(r"!?\[\[([^\[\]\n|]*)(?:\|([^\[\]\n]*))?\]\]")
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)")
_PREDICATE_LINE = re.compile(r"^\s*[-*]?\s*[\w-]+::")  # `derived_from:: [[…]]`, `see_also:: …`
_INLINE_PREDICATE = re.compile(r"\[[\w-]+::[^\]\n]*\]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_RELATED = re.compile(r"^(related|related notes|see also|links|相关|相关笔记|另见|参见)\s*[:：]?$", re.I)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$")
_LABEL_ONLY = re.compile(r"^\s*(?:\*\*|__)?([^\s:：*][^:：]{0,40}?)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*$")
_LEADING_LABEL = re.compile(r"^\s*(?:\*\*|__)?[\w ]{1,24}?[:：](?:\*\*|__)?\s+(?=\S)")
_EN_STOP = START_WORDS | END_WORDS | {"not", "no", "yes", "all", "any", "some", "more", "most",
                                       "very", "each", "other", "one", "see", "also", "etc"}


def _substance(text: str) -> float:
    """Content words + CJK characters / 2 in `text` (stop words don't count)."""
    latin = [w for w in re.findall(r"[a-z][a-z0-9'’-]*", text.casefold()) if w not in _EN_STOP]
    return len(latin) + len(_CJK.findall(text)) / 2


def _strip_links(line: str) -> str:
    return _MDLINK.sub(" ", _WIKILINK.sub(" ", _INLINE_PREDICATE.sub(" ", line)))


def own_prose(body: str) -> tuple[str, list[str]]:
    """The note's own prose and its numbered steps, as `is_thin` measures them.

    Dropped: frontmatter, headings, a Related / See also / 相关 section (heading or label
    line, up to the next heading or blank line after its list), predicate lines
    (`derived_from:: [[…]]`), section labels alone on a line (`Steps:`, `**Why:**`) and
    the label in front of a line (`Why: …` keeps `…`), and every link (wikilinks with
    their alias, embeds, Markdown links). Code stays: it is substance in a runbook.
    Returns (prose, steps) where steps are the numbered list items with links removed.
    """
    text = parse(body, "note.md").body if body.startswith("---") else body
    kept: list[str] = []
    steps: list[str] = []
    in_related = False
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            in_related = bool(_RELATED.match(heading.group(1).strip()))
            continue
        stripped = line.strip()
        if _RELATED.match(stripped.strip("*_ ")):
            in_related = True
            continue
        if in_related:
            if not stripped or _LIST_ITEM.match(line) or _WIKILINK.fullmatch(stripped):
                continue
            in_related = False
        if not stripped or _PREDICATE_LINE.match(line) or _LABEL_ONLY.match(line):
            continue
        item = _LIST_ITEM.match(line)
        content = item.group(2) if item else stripped
        content = _strip_links(_LEADING_LABEL.sub("", content))
        if item and item.group(1):
            steps.append(content.strip())
        kept.append(content)
    return "\n".join(kept), steps


def is_thin(body: str) -> str | None:
    """Why the note at `body` cannot stand alone (None when it can).

    Thin when its own prose (`own_prose`) weighs fewer than `THIN_WORDS` (12) content
    words — a CJK character counts half a word, so ~24 characters — or when it has
    numbered steps and every step is only links (nothing left once links are removed).
    """
    prose, steps = own_prose(body)
    if steps and all(_substance(s) == 0 for s in steps):
        return "steps are only links"
    weight = _substance(prose)
    if weight < THIN_WORDS:
        return f"own prose weighs {weight:g} words (< {THIN_WORDS})"
    return None


def description_repeats_name(name: str, description: str) -> bool:
    """True when the description says little more than the name.

    After de-slugging and normalising both (case, punctuation, spaces), the description
    repeats the name when it is empty, starts with the name, contains the whole name
    and the name has two or more words (three or more CJK characters), or what is left
    once the name's words are taken out weighs fewer than 2 content words
    ("About symbolic links", "Symbolic links in Lodestone").
    """
    n = _words_only(deslug(name))
    d = _words_only(description)
    if not d:
        return True
    if not n:
        return False
    if d == n or d.startswith(n + " ") or (d.startswith(n) and _CJK.match(n[-1])):
        return True
    n_tokens = _TOKEN.findall(n)
    multi = len(_LATIN_WORD.findall(n)) >= 2 or len(_CJK.findall(n)) >= 3
    if multi and (f" {n} " in f" {d} " or (_CJK.search(n) and n.replace(" ", "") in d.replace(" ", ""))):
        return True
    rest = d
    for token in n_tokens:
        rest = re.sub(rf"(?<![a-z0-9]){re.escape(token)}(?![a-z0-9])", " ", rest)
    return _substance(rest) < 2


def _words_only(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]|_", " ", text).split())


# -- labels -------------------------------------------------------------------------------

KINDS = ("doc", "log", "meeting", "chat", "assistant_chat")
LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class ExpectedUnit:
    material: str  # vault-relative path of the material file
    index: int  # position among the file's units
    bucket: str
    name: str
    also: tuple[str, ...]
    key: tuple[tuple[str, ...], ...]  # each entry: alternative phrases, any one counts
    group: str | None  # the same knowledge in another material (a translation)

    @property
    def id(self) -> str:
        return f"{self.material}#{self.index}"


@dataclass(frozen=True)
class MaterialLabel:
    path: str
    kind: str
    language: str
    units: tuple[ExpectedUnit, ...]
    nothing: bool  # the file should yield no unit at all


def load_labels(path: Path | str) -> dict[str, MaterialLabel]:
    """Read a split's labels.yaml; a malformed entry raises RemeError naming it."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RemeError(f"Cannot read labels {path}: {exc}. Fix the YAML.") from exc
    files = (data or {}).get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        raise RemeError(f"{path}: expected a mapping `files:` of material path -> label.")
    out: dict[str, MaterialLabel] = {}
    for rel, entry in files.items():
        where = f"{path}: {rel}"
        if not isinstance(entry, dict):
            raise RemeError(f"{where}: expected a mapping with kind, language and units.")
        kind, language = entry.get("kind"), entry.get("language")
        if kind not in KINDS or language not in LANGUAGES:
            raise RemeError(f"{where}: kind must be one of {KINDS} and language one of {LANGUAGES}.")
        nothing = bool(entry.get("nothing", False))
        raw_units = entry.get("units") or []
        if nothing == bool(raw_units):
            raise RemeError(f"{where}: give either `nothing: true` or a non-empty `units:` list.")
        units = []
        for i, u in enumerate(raw_units):
            if not isinstance(u, dict) or u.get("bucket") not in BUCKETS or not u.get("name"):
                raise RemeError(f"{where}, unit {i + 1}: needs a bucket in {BUCKETS} and a name.")
            keys = u.get("key") or []
            if not isinstance(keys, list) or not keys:
                raise RemeError(f"{where}, unit {i + 1} ({u['name']}): give `key:` phrases.")
            key = tuple(
                tuple(_norm(alt) for alt in str(k).split("|") if alt.strip()) for k in keys
            )
            if not all(key):
                raise RemeError(f"{where}, unit {i + 1} ({u['name']}): an empty key phrase.")
            units.append(ExpectedUnit(
                rel, i, u["bucket"], str(u["name"]), tuple(str(a) for a in u.get("also") or ()),
                key, str(u["group"]) if u.get("group") else None,
            ))
        out[rel] = MaterialLabel(rel, kind, language, tuple(units), nothing)
    return out


@dataclass(frozen=True)
class Query:
    id: str
    lang: str
    query: str
    files: tuple[str, ...]  # material files that answer it, relative to the set's folder


def load_queries(path: Path | str) -> list[Query]:
    data = yaml.safe_load(Path(path).read_text("utf-8")) or {}
    out = []
    for q in data.get("queries") or []:
        if not q.get("id") or not q.get("query") or not q.get("files"):
            raise RemeError(f"{path}: every query needs id, query and files ({q!r}).")
        out.append(Query(str(q["id"]), str(q.get("lang", "")), str(q["query"]),
                         tuple(str(f) for f in q["files"])))
    return out


# -- produced notes and matching ------------------------------------------------------------


@dataclass(frozen=True)
class ProducedNote:
    path: str
    bucket: str
    name: str
    description: str
    body: str
    sources: tuple[str, ...]  # material paths of its derived_from:: links

    @property
    def text(self) -> str:
        """What key phrases are looked up in: name (as given and de-slugged), description
        and body, normalised; a wikilink counts by its alias only (a Related list naming
        other notes, or the provenance path, says nothing about this note)."""
        body = _WIKILINK_PARTS.sub(lambda m: m.group(2) or " ", self.body)
        return _norm(f"{self.name} {deslug(self.name)} {self.description} {body}")


def read_digest_notes(root: Path | str, paths: Iterable[str]) -> list[ProducedNote]:
    """The digest notes among `paths` (vault-relative), read from the vault at `root`."""
    root = Path(root)
    notes = []
    for rel in sorted(p for p in paths if is_digest_note(p)):
        note = parse((root / rel).read_text("utf-8"), rel)
        fm = note.frontmatter
        sources = tuple(dict.fromkeys(
            link.target for link in parse_links(note.body) if is_provenance(link)))
        notes.append(ProducedNote(
            rel, bucket_of(rel) or "", str(fm.get("name") or Path(rel).stem),
            str(fm.get("description") or ""), note.body, sources,
        ))
    return notes


def keys_needed(n: int) -> int:
    """How many of a unit's n key entries a note must contain: two thirds, rounded up
    (1 of 1, 2 of 2, 2 of 3, 3 of 4, 4 of 5)."""
    return max(1, math.ceil(2 * n / 3))


def key_hits(unit: ExpectedUnit, text: str) -> int:
    """How many of the unit's key entries occur in `text` (normalised; an entry counts
    when any of its alternatives is a substring)."""
    return sum(1 for alts in unit.key if any(alt in text for alt in alts))


def _name_tokens(name: str) -> set[str]:
    """Content words and CJK characters of a (normalised, de-slugged) name."""
    words = {w for w in _LATIN_WORD.findall(name) if w not in _EN_STOP}
    return words | set(_CJK.findall(name))


def _name_similarity(a: str, b: str) -> float:
    """Jaccard overlap of two names' tokens (`_name_tokens`), 0..1."""
    ta, tb = _name_tokens(a), _name_tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


@dataclass(frozen=True)
class Match:
    unit: ExpectedUnit
    note: ProducedNote
    hits: int

    @property
    def bucket_ok(self) -> bool:
        return self.note.bucket == self.unit.bucket


def match_units(notes: Sequence[ProducedNote], units: Sequence[ExpectedUnit]) -> list[Match]:
    """Expected units matched to produced notes, greedily by score.

    A note can cover a unit only if it is derived from the unit's material (a
    `derived_from::` link to it) and contains `keys_needed` of its key entries. Pairs
    are taken best first (share of keys found, then `_name_similarity` of the note's name
    to the reference name or an alternative, then keys found); each unit is matched
    once, and each note covers
    at most one unit — or several units of one `group` from different materials (the
    same knowledge in two languages, corroborated into one note).
    """
    pairs = []
    for note in notes:
        text = note.text
        name = _norm(deslug(note.name))
        for unit in units:
            if unit.material not in note.sources:
                continue
            hits = key_hits(unit, text)
            if hits < keys_needed(len(unit.key)):
                continue
            similar = max(_name_similarity(name, _norm(deslug(n))) for n in (unit.name, *unit.also))
            pairs.append((-hits / len(unit.key), -similar, -hits, note.path, unit.id,
                          hits, note, unit))
    pairs.sort(key=lambda p: p[:5])
    taken_units: set[str] = set()
    note_group: dict[str, str] = {}  # note path -> the group (or unit id) it covers
    note_materials: dict[str, set[str]] = {}
    matches = []
    for *_, hits, note, unit in pairs:
        if unit.id in taken_units:
            continue
        claim = unit.group or unit.id
        if note.path in note_group and (
            note_group[note.path] != claim or unit.material in note_materials[note.path]
        ):
            continue
        taken_units.add(unit.id)
        note_group[note.path] = claim
        note_materials.setdefault(note.path, set()).add(unit.material)
        matches.append(Match(unit, note, hits))
    return sorted(matches, key=lambda m: m.unit.id)


# -- the report ----------------------------------------------------------------------------


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class QualityReport:
    """Figures for one set of notes (a split, or one language of it)."""

    materials: int
    notes: int
    notes_by_bucket: dict[str, int]
    fragment_names: list[tuple[str, str]]  # (name, reason)
    thin_notes: list[tuple[str, str]]  # (path, reason)
    repeating_descriptions: list[tuple[str, str]]  # (name, description)
    broken_links: list[str]  # "source:line raw (reason)"
    spurious_personal: list[str]  # personal notes derived only from resource/
    labelled: bool = False
    expected_units: int = 0
    matched: list[Match] = field(default_factory=list)
    unmatched: list[ExpectedUnit] = field(default_factory=list)
    noise_notes: list[str] = field(default_factory=list)  # notes from `nothing: true` files
    notes_per_material: dict[str, tuple[int, int]] = field(default_factory=dict)  # produced, expected

    @property
    def fragment_rate(self) -> float | None:
        return _rate(len(self.fragment_names), self.notes)

    @property
    def thin_rate(self) -> float | None:
        return _rate(len(self.thin_notes), self.notes)

    @property
    def repeat_rate(self) -> float | None:
        return _rate(len(self.repeating_descriptions), self.notes)

    @property
    def unit_recall(self) -> float | None:
        return _rate(len(self.matched), self.expected_units) if self.labelled else None

    @property
    def bucket_accuracy(self) -> float | None:
        return _rate(sum(m.bucket_ok for m in self.matched), len(self.matched)) if self.labelled else None

    @property
    def bucket_confusion(self) -> Counter:
        """(expected bucket, produced bucket) -> matched units."""
        return Counter((m.unit.bucket, m.note.bucket) for m in self.matched)

    def targets(self) -> dict[str, bool | None]:
        """Each target met (True), missed (False) or not measurable here (None)."""
        acc = self.bucket_accuracy
        frag = self.fragment_rate
        return {
            "broken_links": len(self.broken_links) <= TARGETS["broken_links"],
            "fragment_rate": None if frag is None else frag <= TARGETS["fragment_rate"],
            "bucket_accuracy": None if acc is None else acc >= TARGETS["bucket_accuracy"],
        }

    def to_json(self) -> dict:
        produced = sum(p for p, _ in self.notes_per_material.values())
        expected = sum(e for _, e in self.notes_per_material.values())
        return {
            "materials": self.materials,
            "notes": self.notes,
            "notes_by_bucket": dict(self.notes_by_bucket),
            "fragment_rate": self.fragment_rate,
            "fragment_names": [list(x) for x in self.fragment_names],
            "thin_rate": self.thin_rate,
            "thin_notes": [list(x) for x in self.thin_notes],
            "repeat_rate": self.repeat_rate,
            "repeating_descriptions": [list(x) for x in self.repeating_descriptions],
            "broken_links": len(self.broken_links),
            "broken_link_list": list(self.broken_links),
            "spurious_personal": list(self.spurious_personal),
            "labelled": self.labelled,
            "expected_units": self.expected_units,
            "matched_units": len(self.matched),
            "unit_recall": self.unit_recall,
            "bucket_accuracy": self.bucket_accuracy,
            "bucket_confusion": {f"{e}->{p}": n for (e, p), n in sorted(self.bucket_confusion.items())},
            "noise_notes": list(self.noise_notes),
            "notes_per_material": {"produced": produced, "expected": expected,
                                   "ratio": _rate(produced, expected) if self.labelled else None},
            "targets": self.targets(),
        }


def evaluate(
    notes: Sequence[ProducedNote],
    materials: Sequence[str],
    broken_links: Iterable[tuple[str, str]] = (),
    labels: Mapping[str, MaterialLabel] | None = None,
) -> QualityReport:
    """The report for `notes` written from `materials`.

    `broken_links` are (source note path, description) pairs from D1 (only those whose
    source is among `notes` count). With `labels`, units are matched (`match_units`) and
    the label-based figures filled in; materials without a label are left out of them.
    """
    paths = {n.path for n in notes}
    report = QualityReport(
        materials=len(materials),
        notes=len(notes),
        notes_by_bucket={b: sum(n.bucket == b for n in notes) for b in BUCKETS},
        fragment_names=[(n.name, r) for n in notes if (r := is_fragment_name(n.name))],
        thin_notes=[(n.path, r) for n in notes if (r := is_thin(n.body))],
        repeating_descriptions=[(n.name, n.description) for n in notes
                                if description_repeats_name(n.name, n.description)],
        broken_links=[text for source, text in broken_links if source in paths],
        spurious_personal=[n.path for n in notes if n.bucket == "personal" and n.sources
                           and all(s.startswith("resource/") for s in n.sources)],
    )
    if labels is None:
        return report
    wanted = [labels[m] for m in materials if m in labels]
    units = [u for label in wanted for u in label.units]
    report.labelled = True
    report.expected_units = len(units)
    report.matched = match_units(notes, units)
    got = {m.unit.id for m in report.matched}
    report.unmatched = [u for u in units if u.id not in got]
    empty = {label.path for label in wanted if label.nothing}
    report.noise_notes = [n.path for n in notes if n.sources and set(n.sources) <= empty]
    report.notes_per_material = {
        label.path: (sum(label.path in n.sources for n in notes), len(label.units))
        for label in wanted
    }
    return report


# -- running dream over a folder of material ---------------------------------------------------


@dataclass(frozen=True)
class DreamRun:
    vault_root: Path
    materials: tuple[str, ...]  # material files dream read (vault-relative)
    notes: tuple[ProducedNote, ...]
    broken_links: tuple[tuple[str, str], ...]  # (source, "source:line raw (reason)") in digest/
    outcomes: Counter  # "ACTION/state" -> count
    seconds: float


def material_files(folder: Path) -> list[str]:
    """Material under `folder` laid out as a vault (resource/…, daily/…), relative paths."""
    found = []
    for layer in ("resource", "daily"):
        base = folder / layer
        if base.is_dir():
            found += [p.relative_to(folder).as_posix() for p in sorted(base.rglob("*"))
                      if p.is_file() and not p.name.startswith(".")]
    return found


def dream_material(
    folder: Path | str,
    vault_root: Path | str,
    *,
    embedder,
    files: Iterable[str] | None = None,
    settings=None,
    brain_spec: str = "offline",
) -> DreamRun:
    """Build a fresh vault at `vault_root`, copy the material of `folder` (or only `files`
    of it) in, dream it with the brain `brain_spec` names, and collect what it wrote."""
    import time

    from reme_workbench.dream.run import dream_vault
    from reme_workbench.index.store import VaultIndex
    from reme_workbench.ops import Workspace
    from reme_workbench.vault.vault import Vault, init_vault

    folder, vault_root = Path(folder), Path(vault_root)
    chosen = list(files) if files is not None else material_files(folder)
    if not chosen:
        raise RemeError(f"No material under {folder}: put files in resource/<date>/… or "
                        "daily/<date>/<slug>.md.")
    init_vault(vault_root)
    for rel in chosen:
        if rel.split("/", 1)[0] not in ("resource", "daily"):
            raise RemeError(f"{rel}: material lives under resource/ or daily/.")
        target = vault_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folder / rel, target)
    # the workspace builds the brain as `dream` would (reme.toml's defaults for a new vault)
    ws = Workspace(vault_root, settings=settings, brain_spec=brain_spec, embedder=embedder)
    settings, (brain, _) = ws.settings, ws.get_dream_brain()
    vault = Vault.open(vault_root)
    t0 = time.perf_counter()
    with VaultIndex(vault.root, embedder, scan=vault.scan) as index:
        report = dream_vault(vault, brain, index, settings)
    seconds = time.perf_counter() - t0
    vault.refresh()
    digest = [p for p in vault.scan.records if is_digest_note(p)]
    health = vault.health(digest)
    broken = tuple((b.source, f"{b.source}:{b.line} {b.raw} ({b.reason})")
                   for b in health.broken_links)
    outcomes = Counter(f"{o.action}/{o.state}" for o in report.outcomes)
    return DreamRun(vault_root, tuple(report.materials),
                    tuple(read_digest_notes(vault_root, digest)), broken, outcomes, seconds)
