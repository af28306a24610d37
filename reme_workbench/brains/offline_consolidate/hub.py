"""The offline consolidate brain's hub note (docs/spec.md §7.6.2, §7.9.5): deterministic
rules, no model. The rules of a hub's form and of counting the vault that the abstract
planner reads too — topic words, own and template headings, provenance lines, the least a
hub holds — are in `consolidate/hub_rules.py`.

**Name.** The topic is the phrase of at most 4 words of a member's name or heading (a
slug-named member's description sentences instead; never across an identifier,
`_IDENTIFIER`; words whole in any script, stopwords of five languages left out — not
starting or ending on a stopword, not only numbers or words that name no topic) that
best tells the community from the rest of the vault — a tf-idf over *topic words*
(`hub_rules.topic_words`: the content words of a note's name, description and headings): the
number of members whose topic words hold the phrase, times `1 + ln((R + 1) / (r + 1))`,
R the digest notes outside the community and r those of them holding the phrase's
rarest word. A word more than `COMMON_SHARE` (half) of those R notes hold never starts or
ends the phrase: in a vault where every note says "Obsidian", no hub is named
"Obsidian". A heading so many notes hold that a template gave it (`hub_rules.template_headings`:
"Plugins" on every author page) is no topic. Ties: the most words that are not numbers,
the fewest numbers, the earlier member. Without counts of the vault (`HubRequest.vault_words` empty) the score is the
number of members alone. Each word is spelled as the members spell it most (not from
slug names); " overview" / "总览" is added when a member has that very name. The
description names the topic and the next phrases by the same score that share no word
with those before (`topic_phrases`) — words, never a list of file names.

**Body, built to fit.** An overview line, the pillars (`request.central`, members only,
`[abstract] min_pillars`–5) each `[[path|name]] — description` (else its first
sentence: `quoted_sentence`, maths and code spans as written), the other members
under "Details stay in", and every member's provenance, deduped, `hub_rules.PROVENANCE_PER_LINE`
links to a `derived_from::` line. It must be under `request.max_tokens` and link at least
`request.min_member_coverage` of the members, so when the whole does not fit it gives
up, in this order, what is optional: the details beyond that share (counted in a "… and
n more" line), that line and the overview's second sentence, the pillars' sentences
(clipped to 100 then 40 characters, then none), the details' aliases. What cannot go —
the provenance, the links the share needs — is measured first: when even that is over
the budget, it answers with an error that says so (the planner measures the same before
it asks, `hub_rules.hub_floor_tokens`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ...consolidate.hub_rules import links_needed, own_headings, provenance_lines, topic_words
from ...llm.consolidate import HubRequest, NoteView
from ...llm.schema import MAX_PILLARS
from ...textrules import is_cjk_or_kana, reader_text, split_note_line, word_spans
from ...vault.layout import BUCKETS, FALLBACK_BUCKET
from ...vault.links import format_link, is_provenance, parse_links
from ...vault.tokens import content_tokens
from . import text as tx

__all__ = ["COMMON_SHARE", "NOT_A_TOPIC", "HubTooLarge", "common_topic", "topic_phrases",
           "quoted_sentence", "hub_note"]

COMMON_SHARE = 0.5  # a word more than this share of the other notes hold names no hub
_PILLAR_CLIPS = (None, 100, 40, 0)  # a pillar's sentence, shorter at each step; 0: none

# Words members share that name no topic of their own: verbs of ownership and use, and
# generic qualifiers ("Owns: ...", "the default port"); a phrase of only these is skipped.
NOT_A_TOPIC = frozenset({
    "own", "owns", "owned", "default", "defaults", "use", "uses", "used", "using", "need",
    "needs", "new", "set", "get", "run", "runs", "note", "notes", "basic", "basics", "always",
    "never", "now", "first", "last", "also", "each", "every", "other", "thing", "things",
})

_TEXT = {
    "en": {
        "pillars": "Core notes",
        "details": "Details stay in",
        "more": "… and {n} more notes of this community.",
        "overview": "{n} notes on {topic}.",
        "overview_more": " Start with the core notes; the details stay in the others.",
        "hub_desc": "Overview of {topic} in {n} notes: {names}.",
        "hub_desc_alone": "Overview of {topic} in {n} notes.",
        "hub_suffix": " overview",
    },
    "zh": {
        "pillars": "核心笔记",
        "details": "细节见",
        "more": "……以及本社区的另外 {n} 篇笔记。",
        "overview": "关于{topic}的 {n} 篇笔记。",
        "overview_more": "先读核心笔记，细节留在其余笔记中。",
        "hub_desc": "{topic}总览（{n} 篇笔记）：{names}。",
        "hub_desc_alone": "{topic}总览（{n} 篇笔记）。",
        "hub_suffix": "总览",
    },
}


class HubTooLarge(ValueError):
    """What a hub must hold (the provenance, the links the share needs) is over the budget."""


# -- words -------------------------------------------------------------------------------


def _is_slug(name: str) -> bool:
    return " " not in name and ("-" in name or "_" in name)


# An identifier: code, a word joined to others by `-` `_` `/` `.` with a digit or an
# underscore in it — a ticket ("INC-2026-031"), a version, a file, a variable — or a
# lower-case slug ("payments-api": a service, a host, a file name).
_IDENTIFIER = re.compile(r"`[^`\n]*`|(?<![\w./-])(?:(?=[\w./-]*(?:\d|_))[^\W_]*(?:[-_./]+[^\W_]+)+"
                         r"|[a-z0-9]+(?:[-./][a-z0-9]+)+)(?![\w-])")


def common_topic(members: Sequence[NoteView], lang: str, *,
                 vault_words: Mapping[str, int] | None = None, vault_notes: int = 0,
                 template: Iterable[str] = ()) -> str:
    """The phrase that names the community (see the module doc)."""
    phrases = topic_phrases(members, lang, vault_words=vault_words, vault_notes=vault_notes,
                            template=template, limit=1)
    return phrases[0] if phrases else tx.one_line(members[0].name)


def topic_phrases(members: Sequence[NoteView], lang: str, *,
                  vault_words: Mapping[str, int] | None = None, vault_notes: int = 0,
                  template: Iterable[str] = (), limit: int = 4) -> list[str]:
    """The phrases that tell the community from the rest of the vault, the most telling
    first, none sharing a word with one before it, at most `limit` (module doc): the first
    names the hub, the next describe it."""
    template = frozenset(template or ())
    gists = [topic_words(m.name, m.description, m.body, template) for m in members]
    inside = Counter(w for g in gists for w in g)
    vault_words = vault_words or {}
    rest = max(vault_notes - len(members), 0)

    def outside(word: str) -> int:  # notes outside the community holding `word`
        return max(vault_words.get(word, 0) - inside[word], 0)

    def common(word: str) -> bool:
        return rest > 0 and outside(word) > COMMON_SHARE * rest

    spellings: dict[str, Counter] = {}
    sources: list[tuple[int, str]] = []  # (member rank, a name or heading to take phrases from)
    for rank, m in enumerate(members):
        # how a word is spelled: not from slug names ("pgbouncer-1-22"), and a sentence's
        # first word only when its capitals are its own ("PgBouncer", not "Weekly")
        name = reader_text(m.name)
        headings = [reader_text(h) for h in own_headings(m.body, template)]
        described = split_note_line(reader_text(m.description))
        texts = ([] if _is_slug(name) else [name]) + headings
        for text in texts + described:
            for k, (surface, content) in enumerate(word_spans(text)):
                if content and (k or surface[1:] != surface[1:].lower()):
                    spellings.setdefault(content, Counter())[surface] += 1
        # a slug name is a file name, not words: "inc-2026-031-postmortem" names no topic
        # "inc"; such a note's description says what it is about instead
        sources += [(rank, t) for t in ([] if _is_slug(name) else [name])]
        sources += [(rank + len(members), h) for h in headings]  # names before headings
        if _is_slug(name):
            sources += [(rank + 2 * len(members), d) for d in described]
    scored: dict[frozenset[str], tuple] = {}
    # a phrase never spans an identifier ("INC-2026-031", `backup_ctl`): none names a topic
    pieces = [(rank, piece) for rank, text in sources for piece in _IDENTIFIER.split(text)]
    for rank, text in pieces:
        spans = word_spans(text)
        for i in range(len(spans)):
            for j in range(i + 1, min(i + 4, len(spans)) + 1):
                first, last = spans[i][1], spans[j - 1][1]
                if not first or not last or common(first) or common(last):
                    continue  # neither a function word nor the whole vault's word at an end
                words = frozenset(c for _, c in spans[i:j] if c)
                if all(c in NOT_A_TOPIC or c.isdigit() for c in words):
                    continue  # "Owns", "Default" or a port number: no topic
                df = sum(1 for g in gists if words <= g)
                if not df:
                    continue
                rarest = min(outside(c) for c in words)
                score = round(df * (1 + math.log((rest + 1) / (rarest + 1))), 9)
                numbers = sum(c.isdigit() for c in words)
                # the most telling, then the most specific, a port or a count being no topic
                key = (score, len(words) - numbers, -numbers, -rank)
                if words not in scored or key > scored[words][0]:
                    scored[words] = (key, spans[i:j], df)
    ranked = sorted(scored.items(), key=lambda kv: kv[1][0], reverse=True)
    # the name: what two members or more hold; after it, one member's phrase may describe
    named = next(((w, sp) for w, (_, sp, df) in ranked if df >= 2), None)
    if named is None:
        return []
    chosen, used = [named[1]], set(named[0])
    for words, (_, spans, _) in ranked:
        if len(chosen) >= limit:
            break
        if not words & used:
            chosen.append(spans)
            used |= words
    return [_spelled(spans, spellings, lang) for spans in chosen]


def _spelled(spans: Sequence[tuple[str, str]], spellings: Mapping[str, Counter],
             lang: str) -> str:
    """A phrase's words as the members spell them most, CJK joined, Latin spaced."""
    words = [spellings[c].most_common(1)[0][0] if c in spellings else w for w, c in spans]
    phrase = words[0]
    for w in words[1:]:  # CJK words join as written; Latin words with a space
        phrase += w if (is_cjk_or_kana(phrase[-1]) and is_cjk_or_kana(w[0])) else " " + w
    return phrase[:1].upper() + phrase[1:] if lang == "en" and phrase[:1].islower() else phrase


# -- quoting as written ------------------------------------------------------------------

# Maths (`$…$`, `$$…$$`) and code spans a hub quotes stay as written: the reader's text of
# a sentence drops markup (`_`, `*`), which in `\lim_{h \to 0}` or `Σ^*` is no markup.
_AS_WRITTEN = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$|`[^`\n]+`", re.S)
_HELD = 0xE000  # private-use characters stand for the spans while the text is read


def _holding_spans(text: str) -> tuple[str, list[str]]:
    if any(_HELD <= ord(ch) < _HELD + 6400 for ch in text):
        return text, []  # the text uses them itself: nothing is held, nothing mixed up
    kept: list[str] = []

    def hold(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return chr(_HELD + len(kept) - 1) if len(kept) <= 6400 else m.group(0)

    return _AS_WRITTEN.sub(hold, text), kept


def _restored(text: str, kept: Sequence[str]) -> str:
    if not kept:
        return text
    return re.sub("[\ue000-\uf8ff]", lambda m: kept[ord(m.group(0)) - _HELD]
                  if ord(m.group(0)) - _HELD < len(kept) else m.group(0), text)


def quoted_sentence(p: NoteView) -> str:
    """What a pillar says, on one line: its description, else its first sentence, else its
    name — links as their names, the maths and code spans as written."""
    for text in (p.description, p.body):
        held, kept = _holding_spans(text or "")
        line = tx.one_line(held) if text is p.description else tx.first_sentence(held)
        if line:
            return _restored(tx.clip(line, 300), kept)
    return tx.one_line(p.name)


def _clipped(text: str, limit: int) -> str:
    """`text` clipped to about `limit` characters, never inside maths or code."""
    held, kept = _holding_spans(text)
    return _restored(tx.clip(held, limit), kept)


# -- the body ----------------------------------------------------------------------------


def _member_sources(members: Sequence[NoteView]) -> list[str]:
    """Every member's provenance targets as written, in the members' order."""
    return [lk.target for m in members for lk in parse_links(m.body) if is_provenance(lk)]


def hub_note(request: HubRequest, lang: str, *, max_tokens: int, min_pillars: int) -> dict:
    """The hub's fields (`HubNote`'s): name, bucket, description, body, pillars (at least
    `min_pillars`, at most the schema's `MAX_PILLARS`) — a body under `max_tokens` built
    as the module doc says. HubTooLarge when it cannot be."""
    members = list(request.members)
    words = _TEXT[lang]
    by_path = {m.path: m for m in members}
    pillars = [by_path[p] for p in dict.fromkeys(request.central) if p in by_path][:MAX_PILLARS]
    for m in members:
        if len(pillars) >= min(min_pillars, MAX_PILLARS):  # more would be no HubNote
            break
        if m not in pillars:
            pillars.append(m)
    others = [m for m in members if m not in pillars]
    phrases = topic_phrases(members, lang, vault_words=request.vault_words,
                            vault_notes=request.vault_notes, template=request.template_headings)
    topic = phrases[0] if phrases else tx.one_line(members[0].name)
    name = topic
    if any(tx.normalize(name) == tx.normalize(m.name) for m in members):
        name = topic + words["hub_suffix"]  # the hub is not one of its members
    sep = "、" if lang == "zh" else ", "
    # the topic in words — what else the community is about — never a list of file names
    description = tx.clip((words["hub_desc"] if phrases[1:] else words["hub_desc_alone"]).format(
        topic=topic, n=len(members), names=sep.join(phrases[1:])), 300)
    sources = list(dict.fromkeys(_member_sources(members)))
    provenance = provenance_lines(sources)
    need = max(links_needed(len(members), request.min_member_coverage) - len(pillars), 0)

    def sentence(p: NoteView, clip: int | None) -> str:
        text = quoted_sentence(p)
        if clip == 0 or not text:
            return ""
        return " — " + (text if clip is None else _clipped(text, clip))

    def render(shown: int, *, lead_more: bool, clip: int | None, aliases: bool) -> str:
        lead = words["overview"].format(n=len(members), topic=topic)
        parts = [lead + (words["overview_more"] if lead_more else ""), f"## {words['pillars']}",
                 "\n".join(f"- {tx.alias_link(p.path, p.name)}{sentence(p, clip)}" for p in pillars)]
        if others and shown:
            details = [f"- {tx.alias_link(m.path, m.name) if aliases else format_link(m.path)}"
                       for m in others[:shown]]
            if shown < len(others) and lead_more:
                details.append(words["more"].format(n=len(others) - shown))
            parts += [f"## {words['details']}", "\n".join(details)]
        if provenance:
            parts.append("\n".join(provenance))
        return "\n\n".join(parts)

    def fits(body: str) -> bool:
        return content_tokens(body) < max_tokens

    body = render(len(others), lead_more=True, clip=None, aliases=True)
    if not fits(body):  # give up what is optional, a step at a time (module doc)
        shown = len(others)
        while shown > need and not fits(body):
            shown -= 1
            body = render(shown, lead_more=True, clip=None, aliases=True)
        steps = [dict(lead_more=False, clip=c, aliases=True) for c in _PILLAR_CLIPS]
        steps.append(dict(lead_more=False, clip=0, aliases=False))
        for step in steps:
            if fits(body):
                break
            body = render(shown, **step)
        if not fits(body):
            raise HubTooLarge(
                f"the hub of {len(members)} members cannot fit under {max_tokens} estimated "
                f"tokens: its {len(sources)} sources and links to {len(pillars) + need} "
                f"members alone take {content_tokens(body)}")
    bucket = Counter(_bucket(m.path) for m in members).most_common(1)[0][0]
    return {"name": tx.clip(name, 120), "bucket": bucket, "description": description,
            "body": body, "pillars": [p.path for p in pillars]}


def _bucket(path: str) -> str:
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[1] in BUCKETS else FALLBACK_BUCKET
