"""`OfflineBrain`: the embedded default brain — deterministic rules, no model, no network.
It finds statements by their *form* (numbered steps, "always / never / prefers / 不要",
"decided … because", "root cause"), never by meaning.

Extract: `statements.segment` + `score_all`, chit-chat and the template's statements
(boilerplate, docs/spec.md §5.8) dropped, then grouped — numbered steps under a heading,
instructions under a procedure heading, a chain "a → b → c": one procedure unit; each
distinct rule: a personal unit; each decision / root cause / fact cluster: a wiki unit —
ranked by cue score and capped at `max_units` (Phase 1 prefers few, dense units).
Integrate: CREATE, unless a candidate of the unit's bucket covers it (`coverage.py`): then
CORROBORATE, the old body kept and one `derived_from::` line added, so every old link
survives (E-1); CORRECT only when the unit gives another value of what the note states
(`values.py`, §5.5.6). Another change or a step the note lacks: a CREATE pointing at the
similar note (docs/spec.md §4.3.3: unsure -> create). Bodies are extractive and end with their provenance; a CREATE links up
to three related notes (`weave.py`, §5.6). Feedback (the one retry after a failed check)
fixes provenance, dropped links, anchors, a name clash and other link problems (the
Related links left out); anything else gets the same answer, and the rationale says so.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import replace
from datetime import date

from ...dream.boilerplate import Boilerplate
from ...dream.markdown import MaterialInfo, fenced, title_from_file_name
from ...errors import RemeError
from ...llm.base import (
    Brain,
    BrainError,
    BrainReply,
    IntegrateRequest,
    Material,
    SetAside,
    Usage,
)
from ...llm.prompts import detect_language
from ...llm.schema import ExtractedUnits, IntegrateDecision, MemoryUnit
from ...textrules import HAN_CHARS, STOPWORDS, is_cjk, overlap, plain, split_sentences, tokens
from ...vault.links import PROVENANCE_PREDICATE, format_predicate_link, parse_links
from ...vault.slug import slugify
from .chat import chat_kind
from .conversation import CONVERSATION_UNITS, conversation_decision, plan_conversation
from .coverage import (
    MIN_SHARED_TOKENS,
    STEP_MARK,
    changed_fact,
    first_sentence,
    meaning_cover,
    most_similar,
    own_note,
    reports_change,
)
from .coverage import unbracket as _unbracket
from .entries import how_to_entries, set_aside
from .naming import (
    assigned_name,
    describe,
    heading_name,
    same_text,
    statement_name,
    title_name,
    trim,
    weak_name,
)
from .sections import is_document, plan_document
from .statements import (
    GENERIC_HEADINGS,
    PROC_HEADING,
    TOO_SHORT,
    Block,
    Scores,
    Statement,
    has_reason,
    score_all,
    segment,
)
from .units import (
    LABELS,
    UnitPlan,
    body_description,
    dated_name,
    referred_steps,
    spelled_out,
    unique_names,
)
from .user_rules import rules_beside
from .weave import RELATED_HEADINGS, content_tokens, related_notes, related_section

__all__ = ["OfflineBrain", "PROVENANCE"]

PROVENANCE = PROVENANCE_PREDICATE  # one definition, in vault/links.py
DUPLICATE_OVERLAP = 0.5  # two rules say the same thing: one personal unit
RELATED_OVERLAP = 0.34  # two facts under one heading: one wiki unit
PROCEDURE_TWIN = 0.6  # two procedures of one material this alike: keep the stronger
PERSONAL_MIN, WIKI_MIN, CHAIN_MIN, PROCEDURE_MIN = 2.0, 1.8, 2.5, 2.0  # to seed a unit
# An entry appended by a client (`## HH:MM [title]`, docs/spec.md §3.6.4) was written to be
# kept: one cue (a fact, an observation, a wish) is enough, where a long log needs more.
ENTRY_MIN, ENTRY_STATEMENTS = 0.9, 6
MAX_STEPS, MAX_CODE_LINES, MAX_WATCH = 12, 8, 3


# The words of the labels the brain writes are not what a note is about.
_NOISE = tokens(" ".join([*(v.replace("{0}", "") for d in LABELS.values() for v in d.values()),
                          *RELATED_HEADINGS.values()]))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


_CORRECTED = _rx(r"correct|current|updated|use this|supersed|修正|更新|正确")
_CAUTION = _rx(r"\b(if|fail\w*|rollback|roll back|wrong|careful|warning|otherwise|must|never|"
               r"don'?t|do not|only then|unless|without)\b|注意|失败|回滚|错误|否则|不要|别|以防")
_NEGATED = _rx(r"\bno (rollback|errors?|failures?)\b|没有|无异常")  # "no rollback needed"
_ABANDONED = _rx(r"stopped me|started over|caught it|was wrong|by mistake|不对|停下")
_INSTRUCTION = _rx(r"^(always|never|don'?t|do not|no |use|avoid|prefer|keep|reply|write|send|"
                   r"check|only|make|put|ask|give|run|wait)\b")
_RULE_WORD = _rx(r"\b(always|never|don'?t|do not|no|prefers?|wants?|likes?)\b|"
                 r"不要|别|总是|一定|以后|规矩|偏好|喜欢")
_LABEL = re.compile(r"^\**([\w' ]{1,24})[:：]\**\s*(?=\S)")  # "Preference: ", "Root cause: "
_FILLER_LABEL = _rx(r"^(preference|rule|notes?|so|fix|tip|important|reminders?|also|then|"
                    r"she|he|she said|偏好|提醒|注意|.{1,6}(说|强调|提醒|表示))$")
_QUOTED = re.compile(r"[\"“「]([^\"”」]{4,})[\"”」]")
_OWNED_RULE = re.compile(r"(?:'s|\b[Hh]er|\b[Hh]is) (?:rule|preference)\b[^,;]*? is (.+)$")
_CLUSTER_HEADING = _rx(r"decision|root cause|reasons?|决定|原因")
_TASK = _rx(r"^(task|任务)$")
_ANCHOR = re.compile(r"(\[\[[^\]|#]*)#[^\]|]*")
_LINK_PROBLEM = _rx(r"\blinks?\b|anchor|wikilink|dangling|broken|\[\[digest/")


class OfflineBrain(Brain):
    """Deterministic, rule-based `Brain`: the default when no model is configured."""

    name = "offline"
    model = "offline"

    def __init__(
        self, *, max_units: int = 8, similarity_threshold: float = 0.5, language: str = "auto"
    ) -> None:
        if max_units < 1:
            raise ValueError(f"max_units must be at least 1, got {max_units}.")
        if not 0.0 < similarity_threshold <= 1.0:
            raise ValueError(f"similarity_threshold must be in (0, 1], got {similarity_threshold}.")
        if language not in ("auto", *LABELS):
            raise ValueError(f"language must be 'auto', 'en' or 'zh', got {language!r}.")
        self.max_units, self.similarity_threshold = max_units, similarity_threshold
        self.language = language  # of the labels it writes; "auto": the material's
        self._cache: OrderedDict[tuple, tuple[list[UnitPlan], list[SetAside]]] = OrderedDict()
        self._lock = threading.Lock()

    def extract(self, material: Material) -> BrainReply[ExtractedUnits]:
        plans, set_aside = self._planned(material)
        units = [MemoryUnit(name=p.name, bucket=p.bucket, summary=_summary(p)) for p in plans]
        return replace(_reply(ExtractedUnits(units=units)), set_aside=tuple(set_aside))

    def integrate(self, request: IntegrateRequest) -> BrainReply[IntegrateDecision]:
        material, unit, feedback = request.material, request.unit, request.feedback or ""
        try:
            provenance = format_predicate_link(PROVENANCE, material.path)
        except ValueError as exc:
            raise BrainError(f"Cannot cite {material.path!r} as provenance ({exc}); rename "
                             "the file.", model=self.model) from None
        fixes: list[str] = []
        boilerplate = Boilerplate(material.shared)  # a template's words (§5.8)
        plan = self._find_plan(material, unit)
        if plan.person:  # a conversation's unit: one note per person and topic, dated bullets
            return _reply(conversation_decision(request, plan, _day(material)))
        language = self._language(material)
        labels = LABELS[language]
        rendered = plan.body or _render(plan, labels)
        own = own_note(request, _ANCHOR.sub(r"\1", rendered))
        if own is not None:  # a re-dream: the note this unit wrote already says it all
            return _reply(self._corroborate(request, own, 1.0, provenance, fixes, own=True))
        best, sim, covering = most_similar(
            request, self.similarity_threshold, section_body=plan.body, page=plan.page,
            boilerplate=boilerplate, noise=_NOISE)
        said = f"{unit.name}\n{plain(plan.head.text) if plan.head else first_sentence(unit.summary)}"
        if best is None and not plan.page:  # the same rule in other words or language (§5.5.5)
            best, sim = meaning_cover(request, said)
            covering = covering | ({best.path} if best is not None else set())
        changed_note, changed = (None, [])
        if unit.bucket != "procedure" and not plan.page:  # a changed value (§5.5.6)
            changed_note, changed = changed_fact(request, said, only=best)
            if changed_note is None and best is None:
                changed_note, changed = changed_fact(request, said)
        if changed_note is not None:
            decision = self._correct(request, changed_note, said, changed, provenance)
        elif best is not None and not reports_change(unit, best, self.similarity_threshold):
            decision = self._corroborate(request, best, sim, provenance, fixes)
        else:
            body = rendered
            unit_toks = (tokens(boilerplate.strip(f"{unit.name}\n{unit.summary}"))
                         | content_tokens(boilerplate.strip(body)))
            if best is not None:  # similar, but the unit reports a change: keep both
                body += "\n> " + labels["maybe"].format(f"[[{best.path}]]") + "\n"
            name = unit.name
            if re.search(r"already exists|collid|is taken", feedback, re.I):
                name = f"{unit.name} ({title_from_file_name(material.path)})"[:120]
                fixes.append("made the name specific to the material")
            related = []
            if _LINK_PROBLEM.search(feedback):
                fixes.append("left out the related links")
            else:  # docs/spec.md §5.6: dream weaves the links when it writes
                # a candidate's template words (its "Plugin ID:" line) relate it to nothing
                candidates = [replace(c, description=boilerplate.strip(c.description),
                                      body=boilerplate.strip(c.body)) for c in request.candidates]
                related = related_notes(unit_toks - _NOISE, candidates,
                                        material=material.path, noise=_NOISE,
                                        exclude=covering | _own_path(unit.bucket, name))
            section = related_section([r.path for r in related], language)
            body = _ANCHOR.sub(r"\1", body) + (f"\n{section}" if section else "")
            body += "\n" + provenance + "\n"
            why = "no candidate in its bucket is similar enough" if best is None else (
                f"{best.path} is similar ({sim:.2f}) but the unit reports a change or a new "
                "step, which only a model can merge (REFINE / CORRECT)")
            woven = f"; linked {len(related)} related note(s) by shared words" if related else ""
            topic = _topic(material)
            description = plan.description or body_description(body, name, topic)
            if not description or same_text(description, name):
                description = describe([s.text for s in plan.statements], name, topic=topic,
                                       blocks=[s.block.index for s in plan.statements]) or unit.name
            description = spelled_out(description, plan)
            decision = IntegrateDecision(
                action="CREATE", name=name, description=description, body=body,
                rationale=f"offline rules: {why}; extractive {unit.bucket} body{woven}.")
        if feedback:
            done = "; ".join(fixes) or "nothing the offline rules can change, same answer"
            rationale = f"{decision.rationale} Feedback: {done}."[:1000]
            decision = decision.model_copy(update={"rationale": rationale})
        return _reply(decision)

    def _corroborate(self, request, cand, sim, provenance, fixes, own=False) -> IntegrateDecision:
        have = {(lk.target, lk.predicate) for lk in parse_links(cand.body)}
        add = []
        dropped = r"drops the link (?:([A-Za-z]\w*):: )?\[\[([^\]|#]+)"  # what E-1 reports
        for m in re.finditer(dropped, request.feedback or ""):
            key = (m.group(2).strip(), m.group(1))
            if key not in have:
                add.append(f"{key[1]}:: [[{key[0]}]]" if key[1] else f"[[{key[0]}]]")
                have.add(key)
        if add:
            fixes.append(f"re-added {len(add)} dropped link(s)")
        if (request.material.path, PROVENANCE) not in have:
            add.append(provenance)
        body = cand.body
        if add:  # after the old body, which stays byte for byte
            body += ("" if not body or body.endswith("\n") else "\n") + "\n".join(add) + "\n"
        return IntegrateDecision(
            action="UPDATE", flavor="CORROBORATE", target_path=cand.path,
            name=cand.name.strip() or None, description=_kept_description(cand), body=body,
            rationale=(f"offline rules: {cand.path} cites this material and holds every line "
                       "of the unit: a re-dream, nothing to add." if own else
                       f"offline rules: {cand.path} covers the unit ({sim:.2f} >= "
                       f"{self.similarity_threshold}); CORROBORATE: old body kept, "
                       "provenance added."))

    def _correct(self, request, cand, said, changed, provenance) -> IntegrateDecision:
        """docs/spec.md §5.5.6: the unit gives another value for what the note states. The
        old statement stays; a line under it marks it superseded on the material's date,
        with the new statement and its material. A CORRECT waits for a person (§4.7.1)."""
        day = _day(request.material)
        when = day.isoformat() if day else "a later date"
        language = self._language(request.material)
        new = _md(said.split("\n", 1)[-1].strip())
        mark = (f"> 已于 {when} 更新：{new}（{'；'.join(changed)}）" if language == "zh" else
                f"> superseded on {when}: {new} ({'; '.join(changed)})")
        mark += f" ({PROVENANCE}:: [[{request.material.path}]])"
        lines = cand.body.splitlines()
        at = next((i + 1 for i, ln in enumerate(lines)
                   if ln.strip() and not ln.lstrip().startswith(("#", ">", "---"))), len(lines))
        while at < len(lines) and lines[at].lstrip().startswith(">"):
            at += 1  # after the marks earlier changes left
        body = "\n".join([*lines[:at], mark, *lines[at:]]) + "\n"
        return IntegrateDecision(
            action="UPDATE", flavor="CORRECT", target_path=cand.path,
            name=cand.name.strip() or None, description=_kept_description(cand), body=body,
            rationale=(f"offline rules: {cand.path} states another value for what the unit "
                       f"states ({'; '.join(changed)}); CORRECT: the old statement kept and "
                       "marked superseded, for a person to accept."[:1000]))

    def _find_plan(self, material: Material, unit: MemoryUnit) -> UnitPlan:
        for plan in self._planned(material)[0]:
            if plan.name == unit.name and plan.bucket == unit.bucket:
                return plan
        # A unit this brain did not extract (another brain, a person): render its summary.
        block = Block(0, "para", unit.summary, "", 0, -1, 0, -1, 1)
        sentences = split_sentences(STEP_MARK.sub("\n", unit.summary)) or [unit.summary]
        sts = [Statement(i, s, block, i == 0) for i, s in enumerate(sentences)]
        chain = [s.text for s in sts[1:]] if unit.bucket == "procedure" else []
        return UnitPlan(unit.bucket, unit.name, 0.0, sts, head=sts[0], when=unit.name, chain=chain)

    def _planned(self, material: Material) -> tuple[list[UnitPlan], list[SetAside]]:
        key = (material.path, material.text, material.shared, material.date)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        planned = _plan(material, self.max_units)
        with self._lock:  # Phase 2 asks about one material K times in a row
            self._cache[key] = planned
            while len(self._cache) > 32:
                self._cache.popitem(last=False)
        return planned

    def _language(self, material: Material) -> str:
        if self.language != "auto":
            return self.language
        if material.language in LABELS:
            return material.language
        return detect_language(material.text)


def _kept_description(cand) -> str:
    """An updated note's description: its own, else its first sentence, else its name."""
    return (cand.description.strip() or first_sentence(plain(cand.body)) or cand.name)[:300]


def _reply(value) -> BrainReply:
    raw = json.dumps(value.model_dump(mode="json"), ensure_ascii=False, sort_keys=True)
    return BrainReply(value=value, raw=raw, usage=Usage(), model="offline", attempts=1)


def _own_path(bucket: str, name: str) -> frozenset[str]:
    """The path a CREATE of `name` takes (a candidate there is the note or its namesake)."""
    try:
        return frozenset({f"digest/{bucket}/{slugify(name)}.md"})
    except RemeError:
        return frozenset()  # the pipeline refuses the name anyway


# --- planning ------------------------------------------------------------------------------


def _day(material: Material) -> date | None:
    """The material's day (its folder's date, `daily/2023-05-08/…`), when it has one."""
    try:
        return date.fromisoformat((material.date or "")[:10])
    except ValueError:
        return None


def _plan(material: Material, max_units: int) -> tuple[list[UnitPlan], list[SetAside]]:
    resource = material.path.startswith("resource/")
    plain_text = material.path.lower().endswith(".txt")
    blocks, statements = segment(material.text, plain_text=plain_text, bold_headings=resource)
    kind = None if resource else chat_kind(blocks)
    if kind == "people":  # people talking: what each states about themselves (§5.2.8)
        plans, skipped = plan_conversation(blocks, statements, day=_day(material),
                                           max_units=max(max_units, CONVERSATION_UNITS))
        return plans, [SetAside(s.part, s.reason) for s in skipped]
    scored = score_all(statements, resource=resource)
    scores = {s.index: sc for s, sc in zip(statements, scored, strict=True)}
    boilerplate = Boilerplate(material.shared)  # a template's words: not this file's (§5.8)
    if not plain_text and is_document(material.path, blocks):  # a page: follow its sections
        title = material.title or _title(material)
        if boilerplate and boilerplate.share(title) == 1.0:  # the template's title
            title = title_from_file_name(material.path, material.text)
        info = MaterialInfo(title, material.description, material.aliases, material.tags)
        plans = plan_document(info, blocks, statements, scores, max_units, boilerplate)
        return plans, ([] if plans else [SetAside("the whole page", "no section with substance")])
    # a log's template lines ("Status: done" in every log) are not what it says
    statements = [s for s in statements if not boilerplate.is_template(s.text)]
    kept = [s for s in statements if not scores[s.index].noise]
    plans = _dedupe(_procedures(statements, kept, scores, material, boilerplate))
    used = {s.index for p in plans for s in p.statements}
    plans += _personal(kept, scores, used)
    used |= {s.index for p in plans for s in p.statements}
    plans += _wiki(kept, scores, used)
    plans += _entries(kept, scores, plans)
    plans += how_to_entries(kept, plans)
    if kind == "assistant":  # the user, talking to an assistant: their facts (§5.2.9),
        # and of what the log rules read only the rules they tell it, and steps
        facts, _ = plan_conversation(blocks, statements, day=_day(material))
        plans = rules_beside(plans, facts) + facts
    chosen = sorted(plans, key=lambda p: (-p.score, p.position))[:max_units]
    chosen.sort(key=lambda p: p.position)  # in the material's order
    topic = _topic(material)
    for p in chosen:
        p.name = dated_name(_person_name(p), topic)
        if p.bucket != "procedure":
            p.referred = referred_steps(p, blocks, MAX_STEPS)
    unique_names(chosen)  # the name identifies the unit between extract and integrate
    for p in chosen:
        if p.bucket == "procedure":
            p.watch = _watch_out(p, statements, scores)
    return chosen, set_aside(statements, scores, chosen)


def _procedures(statements, kept, scores: dict[int, Scores], material: Material,
                boilerplate: Boilerplate) -> list[UnitPlan]:
    sections: dict[int, list[Statement]] = {}
    for s in statements:  # "Snapshot first:" is too short to be an idea, not to be a step
        terse = scores[s.index].noise in (None, TOO_SHORT)
        if s.block.kind == "step" and s.block.depth == 0 and terse:
            sections.setdefault(s.block.section, []).append(s)
    runs: dict[int, list[Statement]] = {}  # bullets of instructions under "Restores"
    for s in kept:
        if s.block.kind == "item" and s.block.depth == 0 and PROC_HEADING.search(s.block.heading):
            runs.setdefault(s.block.run, []).append(s)
    for sts in runs.values():
        items = {s.block.index for s in sts}
        doing = {s.block.index for s in sts if scores[s.index].procedure >= 1.0}
        if len(items) >= 2 and 2 * len(doing) >= len(items):
            sections.setdefault(sts[0].block.section, sts)
    task = next((s.text for s in kept if _TASK.match(s.block.heading)), "")
    plans = []
    for sts in sections.values():
        steps = list(dict.fromkeys(s.block for s in sts))[:MAX_STEPS]
        heading = steps[0].heading
        generic = (not heading or bool(GENERIC_HEADINGS.match(_unbracket(heading)))
                   or boilerplate.share(heading) == 1.0)  # every log's heading names none
        score = 2.5 + 0.25 * min(len(steps), 8) + (0.0 if generic else 0.5)
        score += 1.5 * bool(_CORRECTED.search(heading)) - 2.5 * bool(_TASK.match(heading))
        if len(steps) < 2 or score < PROCEDURE_MIN:
            continue
        if generic:
            name = title_from_file_name(material.path, material.text)
        else:
            name = _unbracket(heading)
            if len(name.split()) < 2 and not is_cjk(name[0]):
                name = f"{name} ({_title(material)})"  # "Deploy" alone says too little
        nested = [s for s in kept if s.block.parent in {b.index for b in steps}]
        when = task if generic and task else heading or name
        plans.append(UnitPlan("procedure", _short(name), score, sts + nested, steps=steps, when=when))
    for s in kept:  # "Restore procedure: list → restore → verify → drop"
        parts = [p.strip(" .。") for p in re.split(r"\s*(?:→|->)\s*", s.text)]
        if len(parts) >= 3 and scores[s.index].procedure >= CHAIN_MIN:
            m = _LABEL.match(parts[0])
            parts[0] = parts[0][m.end():] if m else parts[0]
            label = m.group(1).strip() if m and len(m.group(1).strip()) > 3 else ""
            label = label or title_from_file_name(material.path, material.text)
            plans.append(UnitPlan("procedure", _short(label), 3.5, [s], chain=parts, when=label))
    return plans


def _topic(material: Material) -> str:
    """What the material is about, as its title names it ("PgBouncer rollout sync")."""
    title = _title(material)
    return title_name(title) or _short(title, 60)


def _person_name(plan: UnitPlan) -> str:
    """The planned name when it reads as one (naming.weak_name, longer only to keep a
    negation of the statement); else the key phrase of the statement the unit rests on,
    else its heading, else the name cut short."""
    head = plan.head or (plan.statements[0] if plan.statements else None)
    source = plain(head.text) if head is not None else ""
    if not weak_name(plan.name, source):
        return plan.name
    tries = [statement_name(plan.name)]  # the planner chose the clause that carries the idea
    if source.lower().startswith(plan.name.lower()) and len(source) > len(plan.name):
        # a clause cut short at 60 characters ("… unless a"): named from all of the clause
        rest = source[len(plan.name):]
        end = re.search(r"[;；，,。]|[.:]\s|\s[—–]\s", rest)
        tries.insert(0, statement_name(source[:len(plan.name) + (end.start() if end else len(rest))]))
    if head is not None:
        tries.append(statement_name(head.text))
    if head is not None and head.block.heading:
        tries.append(heading_name(head.block.heading))
    return next((t for t in tries if t), plan.name)  # each try is vetted where it is made


def _dedupe(plans: list[UnitPlan]) -> list[UnitPlan]:
    """Two procedures with one name (What I did / Corrected procedure) or mostly the same
    words: keep the stronger — a corrected or current procedure scores higher."""
    out: list[UnitPlan] = []
    for p in sorted(plans, key=lambda p: (-p.score, p.position)):
        if not any(q.name.lower() == p.name.lower() or overlap(q.toks(), p.toks()) >= PROCEDURE_TWIN
                   for q in out):
            out.append(p)
    return out


def _personal(kept, scores: dict[int, Scores], used: set[int]) -> list[UnitPlan]:
    def seed(s: Statement) -> bool:
        sc = scores[s.index]
        return ((s.index not in used or s.block.kind == "step") and sc.personal >= PERSONAL_MIN
                and sc.personal >= sc.wiki
                and (s.block.kind == "step" or sc.personal >= sc.procedure))

    plans = []
    for members in _cluster([s for s in kept if seed(s)], DUPLICATE_OVERLAP, same_section=False):
        best = max(members, key=lambda s: (scores[s.index].personal, -s.index))
        score = scores[best.index].personal + 0.3 * (len(members) - 1)
        item = best.block if best.block.kind == "item" else None
        extra = [s for s in kept if s.block is item and s not in members]
        first = next((s for s in members + extra if s.block is item and s.first), None)
        if first is not None and scores[first.index].personal >= PERSONAL_MIN - 0.5:
            best = first  # an item's first sentence states the rule; the rest explains it
        head = min(members, key=lambda s: s.index)  # the earliest statement names the unit
        head = head if scores[head.index].personal >= PERSONAL_MIN - 0.5 else best
        members = sorted(set(members + extra), key=lambda s: s.index)
        name = _key_words(head.text, personal=True)
        plans.append(UnitPlan("personal", name, score, members, head=best))
    return plans


def _wiki(kept, scores: dict[int, Scores], used: set[int]) -> list[UnitPlan]:
    free = [s for s in kept if s.index not in used and s.block.kind != "step"]
    seeds = [s for s in free
             if scores[s.index].bucket == "wiki" and scores[s.index].wiki >= WIKI_MIN]
    sections = sorted({s.block.section for s in seeds if _CLUSTER_HEADING.search(s.block.heading)})
    grouped = [[s for s in free if s.block.section == sec] for sec in sections]  # + reasons
    rest = [s for s in seeds if s.block.section not in sections]
    plans = []
    for members in grouped + _cluster(rest, RELATED_OVERLAP, same_section=True):
        blocks = {s.block.index for s in members}  # the rest of its item gives a fact context
        members += [s for s in free if s.block.index in blocks and s not in members][:3]
        members.sort(key=lambda s: s.index)
        best = max(members, key=lambda s: (scores[s.index].wiki, -s.index))
        name = _key_words(members[0].text, members[0].block)
        heading = _unbracket(members[0].block.heading)
        if (_CLUSTER_HEADING.search(heading) and len(heading.split()) <= 3
                and not name.lower().startswith(heading.lower())):
            lower = name.split(" ", 1)[0][1:].islower()  # not "PgBouncer"
            name = _short(f"{heading}: {name[:1].lower() + name[1:] if lower else name}")
        score = scores[best.index].wiki + 0.2 * (len(members) - 1)
        plans.append(UnitPlan("wiki", name, score, members, head=members[0]))
    return plans


def _entries(kept, scores: dict[int, Scores], plans: list[UnitPlan]) -> list[UnitPlan]:
    """A client's entry (a `## HH:MM [title]` section) none of whose sentences seeded a unit
    becomes one unit of the bucket its best sentence leans to — personal or wiki — when
    that sentence carries a cue (ENTRY_MIN): "the pool is 40 connections" is kept from an
    agent's entry, though a long log would need a stronger cue to keep it."""
    covered = {s.block.section for p in plans for s in p.statements}
    sections: dict[int, list[Statement]] = {}
    for s in kept:
        if s.block.entry and s.block.section not in covered:
            sections.setdefault(s.block.section, []).append(s)

    def lean(s: Statement) -> float:
        return max(scores[s.index].wiki, scores[s.index].personal)

    out = []
    for members in sections.values():
        best = max(members, key=lambda s: (lean(s), -s.index))
        if lean(best) < ENTRY_MIN:
            continue
        members = members[:ENTRY_STATEMENTS]
        if best not in members:
            members = [*members[:-1], best]
        personal = scores[best.index].personal > scores[best.index].wiki
        name = _key_words(best.text, personal=True) if personal else _key_words(best.text, best.block)
        out.append(UnitPlan("personal" if personal else "wiki", name, lean(best), members, head=best))
    return out


def _cluster(statements: list[Statement], threshold: float, *, same_section: bool):
    """Greedy single-link clusters (deterministic: the input order is fixed). Sentences of
    one item stay together; across sections only near-duplicates join."""
    clusters: list[list[Statement]] = []
    for s in statements:
        t = tokens(s.text)
        for c in clusters:
            cross = same_section and c[0].block.section != s.block.section
            need, shared = (DUPLICATE_OVERLAP, MIN_SHARED_TOKENS) if cross else (threshold, 2)
            if any(m.block is s.block or (overlap(t, tokens(m.text)) >= need
                                         and len(t & tokens(m.text)) >= shared) for m in c):
                c.append(s)
                break
        else:
            clusters.append([s])
    return clusters


def _watch_out(plan: UnitPlan, statements, scores) -> list[str]:
    """Cautions ("if", "fail", "rollback", 注意) elsewhere in the material that share
    words with the procedure."""
    inside = {b.index for b in plan.steps}
    toks, found = plan.toks(), []
    for s in statements:
        text = plain(s.text)
        if (scores[s.index].noise or s.block.index in inside or s.block.parent in inside
                or s in plan.statements or _TASK.match(s.block.heading)
                or not _CAUTION.search(text) or _NEGATED.search(text)):
            continue
        t = tokens(s.text)
        if len(t & toks) >= 2 and len(t & toks) / len(t) >= 0.3:
            found.append((-len(t & toks) / len(t), s.index, s.text))
    return [text for _, _, text in sorted(sorted(found)[:MAX_WATCH], key=lambda f: f[1])]


# --- names ---------------------------------------------------------------------------------


def _title(material: Material) -> str:
    m = re.search(r"^#\s+(.+)$", material.text, re.M)
    return _unbracket(plain(m.group(1))) if m else title_from_file_name(material.path, material.text)


def _short(text: str, limit: int = 70) -> str:
    text = plain(text).strip(" :：-—.。")
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:-—")


def _core(text: str) -> str:
    """The rule itself: a quotation's words, "her rule is X" -> X, else the sentence
    without a filler label ("Preference:", "梅再次强调：")."""
    m = _QUOTED.search(_unbracket(text))  # a quote in brackets is an example, not the rule
    if m and len(plain(m.group(1))) >= 0.25 * len(plain(text)):
        return plain(m.group(1)).strip()
    t = plain(text)
    owned = _OWNED_RULE.search(t)
    if owned:
        return owned.group(1).strip()
    label = _LABEL.match(t)
    return (t[label.end():] if label and _FILLER_LABEL.match(label.group(1).strip()) else t).strip()


def _after_label(text: str) -> str:
    """"And even if it didn't: no migration without a backup" -> the part with the rule."""
    label = _LABEL.match(text)
    if label and _RULE_WORD.search(text[label.end():]) and not _RULE_WORD.search(label.group(1)):
        return text[label.end():]
    return text


def _key_words(text: str, block: Block | None = None, *, personal: bool = False) -> str:
    """A short, human name from a statement: its first clause (for a rule, the clause that
    carries it), the heading added to one-word labels ("Owns: x" -> "SRE owns: x")."""
    if block is not None and block.kind == "row":  # "service: payments-api; port: ..."
        first = plain(text).split(";")[0].split(":", 1)[-1].strip()
        return _short(f"{_unbracket(block.heading)}: {first}" if block.heading else first, 60)
    core = _unbracket(_after_label(_core(text)) if personal else _core(text))
    if not personal and (thing := assigned_name(core)):  # "build-02 = 10.20.4.12, …"
        return thing
    clauses = [c.strip() for c in re.split(r"[;；，,]|\.\s|\s[—–]\s|——|。", core) if c.strip()]
    clauses = clauses or [core]
    clause = clauses[0]
    if personal and not _RULE_WORD.search(clause):  # "今天也是周一，……——周五没合是按她的规矩"
        k = next((k for k, c in enumerate(clauses) if _RULE_WORD.search(c)
                  and (len(tokens(c)) >= 4 or not is_cjk(c[0]))), 0)
        joined = f"{clauses[0]}{'，' if is_cjk(clauses[0][-1]) else ', '}{clauses[k]}"
        clause = joined if k == 1 and len(joined) <= 40 else clauses[k]
    if len(clause.split()) < 3 and not re.search(f"[{HAN_CHARS}]{{4}}", clause):
        if not (personal and _RULE_WORD.search(clause) and len(clause.split()) == 2):
            clause = core  # "uv" says nothing; "Always uv" does
    label = _LABEL.match(plain(text))
    if (block is not None and label and len(label.group(1).split()) == 1 and block.heading
            and not _FILLER_LABEL.match(label.group(1))
            and not GENERIC_HEADINGS.match(block.heading)):
        clause = f"{_unbracket(block.heading)} {clause[:1].lower()}{clause[1:]}"
    return _cap(_short(clause, 60) or _short(text, 60), text)


def _cap(text: str, source: str) -> str:
    """Capitalise a sentence start, but not an identifier ("uv", "`deployctl`")."""
    word = text.split(" ", 1)[0]
    if (word.isalpha() and word.islower() and (len(word) > 2 or word in STOPWORDS)
            and f"`{word}" not in source):
        return text[:1].upper() + text[1:]
    return text


# --- bodies --------------------------------------------------------------------------------


def _summary(plan: UnitPlan) -> str:
    if plan.summary:
        return plan.summary
    if plan.bucket == "procedure":
        steps = plan.chain or [_step_text(b) for b in plan.steps]
        numbered = "; ".join(f"{i}) {plain(s)}" for i, s in enumerate(steps, 1))
        return trim(f"{plain(plan.when)} Steps: {numbered}".strip(), 1500, None)
    rest = [s for s in plan.statements if s is not plan.head]
    return trim(" ".join(plain(s.text) for s in [plan.head, *rest] if s).strip(), 1500, None)


def _render(plan: UnitPlan, labels: dict[str, str]) -> str:
    if plan.bucket == "procedure":  # runbook: trigger, steps (with commands), cautions
        lines = [f"## {labels['when']}", "", _md(plan.when) or plan.name, "",
                 f"## {labels['steps']}", ""]
        lines += [f"{i}. {_md(s)}" for i, s in enumerate(plan.chain, 1)]
        for i, block in enumerate(plan.steps, 1):
            lines.append(f"{i}. {_md(_step_text(block))}")
            lines += [f"   - {_md(s.block.text)}" for s in plan.statements
                      if s.block.parent == block.index and s.first]
            if _ABANDONED.search(block.text):
                continue  # a step the user stopped: its commands are the wrong ones
            for code in block.code[:2]:
                lines += fenced(code, "   ", MAX_CODE_LINES)
        if plan.watch:
            lines += ["", f"## {labels['watch']}", "", *(f"- {_md(w)}" for w in plan.watch)]
    elif plan.bucket == "personal":  # rule, why, how to apply
        rule = plan.head or plan.statements[0]
        core = _core(rule.text)
        lines = [_md(rule.text) if core == plain(rule.text) else _md(core[:1].upper() + core[1:])]
        why = _why(rule, plan.statements)
        lines += ["", f"**{labels['why']}:** {_md(why)}"] if why else []
        how, used = _how(rule, plan.statements)
        if not (_restates(how, rule.text) or _restates(how, core)):  # only when it adds
            lines += ["", f"**{labels['how']}:** {_md(how)}"]
        said = {plain(why)} if why else set()
        context = [s for s in plan.statements  # the rest of the rule's own item, then others
                   if s not in (rule, used) and plain(s.text) not in said
                   and (s.block is rule.block or s.first)]
        if context:
            lines += ["", *(f"- {_md(s.text)}" for s in context[:4])]
    else:  # wiki: the definition / decision as a paragraph, related statements as bullets
        head = plan.head or plan.statements[0]
        lines = [_md(" ".join(s.text for s in plan.statements if s.block is head.block))]
        bullets = [f"- {_md(s.text)}" for s in plan.statements if s.block is not head.block]
        lines += ["", *bullets] if bullets else []
    for phrase, heading, steps in plan.referred:  # "the corrected order": which one
        lines += ["", f"**{phrase[:1].upper() + phrase[1:]}** — {_md(plain(heading))}:", ""]
        for i, block in enumerate(steps, 1):
            lines.append(f"{i}. {_md(_step_text(block))}")
            for code in block.code[:2]:
                lines += fenced(code, "   ", MAX_CODE_LINES)
    return "\n".join(lines) + "\n"


def _restates(text: str, rule: str) -> bool:
    """`text` says no more than the rule: the same words, or the rule's own opening."""
    a, b = plain(text).lower().rstrip(" .。"), plain(rule).lower().rstrip(" .。")
    return same_text(a, b) or b.startswith(a) or a.startswith(b)


def _why(rule: Statement, statements: list[Statement]) -> str:
    """The reason clause of the rule itself ("— if it breaks, nobody's around"), else a
    later sentence of its item with a reason, else the reason a restatement gave."""
    text = plain(rule.text)
    m = has_reason(text)
    if m and m.start() >= 8:
        clause = text[m.start():].lstrip(" —-").strip(" \"”」*")
        return clause[:1].upper() + clause[1:]
    for s in statements:
        if s.index > rule.index and s.block is rule.block and has_reason(s.text):
            return s.text
    for s in statements:
        m = has_reason(plain(s.text))
        if s.block is not rule.block and m and m.start() >= 8:
            return _why(s, [])
    return ""


def _how(rule: Statement, statements: list[Statement]) -> tuple[str, Statement | None]:
    """An instruction the material gives ("Check the weekday before any merge"), else the
    rule restated: "Mei wants X" -> "Give Mei X", else the rule's own words."""
    for s in statements:
        if s is not rule and _INSTRUCTION.match(plain(s.text)) and not has_reason(s.text):
            return s.text, s
    sentences = split_sentences(_core(rule.text)) or [_core(rule.text)]
    core = next((x for x in sentences if _RULE_WORD.search(x)), sentences[0])
    core = _unbracket(_after_label(core))
    m = re.match(r"^(.+?)\s+(wants|prefers|likes|would like|hates)\s+(.+)$", core)
    if m and len(m.group(1).split()) <= 3:
        verb = "Avoid" if m.group(2) == "hates" else f"Give {m.group(1)}"
        return f"{verb} {m.group(3).rstrip('.')}.", None
    return _cap(core, rule.text), None


def _step_text(block: Block) -> str:
    sentences = split_sentences(block.text)
    text = sentences[0]
    for extra in sentences[1:]:
        if len(text) + len(extra) > 220:
            break
        text += " " + extra
    return text


def _md(text: str) -> str:
    """Material text as one line of body Markdown, without #anchor links."""
    return _ANCHOR.sub(r"\1", " ".join(text.split()))
