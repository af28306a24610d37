"""The offline brain's coverage judge (docs/spec.md §5.5): does a recalled note already
cover a unit (CORROBORATE) or not (a new note)? Lexical, and guarded against the ways
words lie:

* similarity: the share of the unit's content tokens (its name, and its name with its
  first sentence, asides dropped — later sentences of a cluster may be about a neighbour)
  found in the candidate, with at least MIN_SHARED_TOKENS shared;
* only the unit's bucket (words cannot tell a runbook from the rule it quotes), and the
  candidate's own gist must be partly in the unit (REVERSE_SHARE × the threshold);
* a note created from this same material counts only by the unit's name (a re-dream),
  not as a sibling unit's note; `own_note` finds a re-dream's note before all that;
* a page or its section must also hold SECTION_SAME of its words, on a template's page
  every value it filled in (the id, the author), a whole page every word of its name;
* the material's boilerplate (`boilerplate.py`, §5.8) is not counted on either side: two
  pages of one template are not alike because both say "Plugin ID:".
"""

from __future__ import annotations

import re

from ...dream.boilerplate import Boilerplate
from ...llm.base import CandidateNote, IntegrateRequest
from ...llm.schema import MemoryUnit
from ...textrules import plain, split_sentences, tokens
from ...vault.links import PROVENANCE_PREDICATE, parse_links
from .values import Values, agree, conflict, new_values, old_values, values, without_values
from .weave import FENCED, PRED_LINE, content_tokens, strip_related

__all__ = ["MIN_SHARED_TOKENS", "most_similar", "reports_change", "first_sentence", "unbracket",
           "meaning_cover", "changed_fact", "own_note", "STEP_MARK"]

MIN_SHARED_TOKENS = 3  # an overlap of 1.0 on two tokens is luck, not evidence
REVERSE_SHARE = 0.6  # a candidate's name+description must be >= 0.6 x threshold in the unit
SECTION_SAME = 0.6  # a documentation section covered by a note holding this share of its words
# Meaning (docs/spec.md §5.5.5): a candidate this near the unit (the pipeline's embedder,
# 0 = unrelated text, 1 = the same; dream/meaning.py) and stating the same values is the
# same rule in other words or another language; one this near with another value for
# the same kind is the same subject changed (§5.5.6).
MEANING_MIN = 0.3

_CHANGE = re.compile(
    r"\b(moved (to|from)|changed|no longer|is now|are now|instead of|supersed\w*|"
    r"obsolete|(is|was) wrong|replaced|corrected)\b|改为|改到|改成|不再|变更|取代|过时|有误", re.I)
STEP_MARK = re.compile(r"(?:Steps: |; )\d+\) ")  # how a procedure's summary numbers its steps
_NO_BOILERPLATE = Boilerplate()


def most_similar(
    request: IntegrateRequest, threshold: float, *, section_body: str = "", page: bool = False,
    boilerplate: Boilerplate = _NO_BOILERPLATE, noise: frozenset[str] = frozenset(),
) -> tuple[CandidateNote | None, float, frozenset[str]]:
    """The candidate that covers the unit best, its similarity, and every candidate that
    covers it (the same concept: never a Related link). `section_body`: the body the
    offline brain rendered for a page or a page's section (else ""); `page`: the unit is
    a whole page, named by its title."""
    best, best_sim, covering = None, 0.0, set()
    for cand in request.candidates:
        sim = _coverage(request, cand, threshold, section_body, page, boilerplate, noise)
        if sim >= threshold:
            covering.add(cand.path)
            if sim > best_sim:
                best, best_sim = cand, sim
    return best, round(best_sim, 3), frozenset(covering)


def _coverage(
    request: IntegrateRequest, cand: CandidateNote, threshold: float, section_body: str,
    page: bool, boilerplate: Boilerplate, noise: frozenset[str],
) -> float:
    """How well `cand` covers the unit; 0.0 when a guard rules it out."""
    unit, strip = request.unit, boilerplate.strip
    if not cand.path.startswith(f"digest/{unit.bucket}/"):
        return 0.0
    core = name_tokens(strip(gist(cand)))  # what the note is: the rule itself
    whole = name_tokens(strip(f"{unit.name}\n{unit.summary}"))
    if core and len(core & whole) / len(core) < REVERSE_SHARE * threshold:
        return 0.0
    sibling = _origin(cand.body) == request.material.path
    if sibling and name_tokens(cand.name) != name_tokens(unit.name):
        return 0.0
    head = unbracket(first_sentence(unit.summary))
    views = [tokens(strip(unit.name)), tokens(strip(f"{unit.name}\n{head}"))]
    cand_toks = (tokens(strip(f"{cand.description}\n{note_prose(cand.body)}"))
                 | name_tokens(strip(cand.name)))
    sims = [len(v & cand_toks) / len(v) for v in views
            if len(v & cand_toks) >= MIN_SHARED_TOKENS]
    sim = max(sims, default=0.0)
    if sim and section_body:  # a page or its section: the same concept only if it fills
        # its template's fields alike (the plugin id, the author: a fork is another plugin),
        # a page only if it names it too, and only if it says the same
        if page and tokens(strip(unit.name)) - cand_toks:
            return 0.0
        if _values(section_body, boilerplate) - cand_toks:
            return 0.0
        said = content_tokens(strip(section_body)) - noise
        if not said or len(said & cand_toks) / len(said) < SECTION_SAME:
            return 0.0
    return sim


def _values(body: str, boilerplate: Boilerplate) -> frozenset[str]:
    """The words a page wrote into its template's fields: the own words of its lines
    that are mostly the template's ("Plugin ID: `x` … Developed by: y" -> x, y)."""
    out: set[str] = set()
    for line in body.splitlines():
        if boilerplate.is_template(line):
            out |= tokens(boilerplate.strip(line))
    return frozenset(out)


def reports_change(unit: MemoryUnit, cand: CandidateNote, threshold: float) -> bool:
    """The unit reports a change ("no longer", "改为"), or is a procedure with a step the
    similar note lacks: only a model can merge that (REFINE / CORRECT)."""
    if _CHANGE.search(f"{unit.name} {first_sentence(unit.summary)}"):
        return True
    if unit.bucket != "procedure":
        return False
    cand_toks = tokens(f"{cand.description} {strip_related(cand.body)}") | name_tokens(cand.name)
    steps = [tokens(s) for s in STEP_MARK.split(unit.summary)[1:]]
    return any(len(t) >= 3 and len(t & cand_toks) / len(t) < threshold for t in steps)


def name_tokens(text: str) -> frozenset[str]:
    # Phase 2 sees candidates named by their file (name = basename, "always-use-uv-for-..."):
    # names are compared word by word.
    return tokens(text, split=True)


def note_prose(body: str) -> str:
    """A note body without fenced code and `pred:: [[...]]` lines: what it *says*."""
    lines = FENCED.sub("", strip_related(body)).splitlines()
    return "\n".join(ln for ln in lines if not PRED_LINE.match(ln))


def first_sentence(text: str) -> str:
    sentences = split_sentences(text.strip())
    return plain(sentences[0]) if sentences else ""


def unbracket(text: str) -> str:
    return re.sub(r"\s*[(（][^)）]*[)）]", "", text).strip() or text


def _origin(body: str) -> str | None:
    """The material a note was created from: its first provenance link."""
    return next((lk.target for lk in parse_links(body) if lk.predicate == PROVENANCE_PREDICATE),
                None)


def gist(cand: CandidateNote) -> str:
    """What a note states, for its values: its name, description and opening sentence."""
    return f"{cand.name}\n{cand.description}\n{first_sentence(note_prose(cand.body))}"


def similarity(request: IntegrateRequest, cand: CandidateNote) -> float:
    """How near `cand` is to the unit in meaning (0 when not measured)."""
    return (request.meaning(cand) or 0.0) if request.meaning is not None else 0.0


def _other_note(request: IntegrateRequest, cand: CandidateNote) -> bool:
    """A note of the unit's bucket not created from this material (a sibling is another unit)."""
    return (cand.path.startswith(f"digest/{request.unit.bucket}/")
            and _origin(cand.body) != request.material.path)


def _comparable(request: IntegrateRequest, cand: CandidateNote) -> bool:
    return _other_note(request, cand) and similarity(request, cand) >= MEANING_MIN


def meaning_cover(request: IntegrateRequest, said: str) -> tuple[CandidateNote | None, float]:
    """§5.5.5: the candidate that says what the unit says in other words or another
    language: near in meaning (MEANING_MIN), of the unit's bucket, giving the same kinds
    of values and agreeing on them ("Reply in Chinese" / "用中文回我": language zh)."""
    mine = values(said)
    best, best_sim = None, 0.0
    for cand in request.candidates:
        if not mine or not _comparable(request, cand):
            continue
        theirs, sim = values(gist(cand)), similarity(request, cand)
        if mine.keys() == theirs.keys() and agree(mine, theirs) and sim > best_sim:
            best, best_sim = cand, sim
    return best, round(best_sim, 3)


def _subject_shared(said: str, cand: CandidateNote) -> int:
    return len(tokens(without_values(said)) & name_tokens(without_values(gist(cand))))


def _changed_from(request: IntegrateRequest, cand: CandidateNote, before: Values) -> bool:
    """The unit reports a change *from* what the note states: two values or more before its
    change word, every one of them the note's ("moved from Monday morning to Friday
    afternoon" and "周报每周一上午发"). That names the note's subject in any language, where
    words and a small embedder do not meet; same bucket, not a sibling."""
    if sum(map(len, before.values())) < 2:
        return False
    theirs = values(gist(cand))
    return _other_note(request, cand) and all(theirs.get(k) == v for k, v in before.items())


def changed_fact(request: IntegrateRequest, said: str, *, only: CandidateNote | None = None
                 ) -> tuple[CandidateNote | None, list[str]]:
    """§5.5.6: the note whose value the unit changes — same bucket, near in meaning and
    sharing a word of the subject (values aside), stating another value of a kind the
    unit gives ("周报每周一上午发" when the unit says "改为每周五下午"): the note and what
    changed ("weekday: mon -> fri"); (None, []) when no note is changed."""
    mine: Values = new_values(said)
    if not mine:
        return None, []
    found: list[tuple[float, CandidateNote, list[str]]] = []
    before = old_values(said)
    for cand in [only] if only is not None else request.candidates:
        if only is None and (not _comparable(request, cand) or _subject_shared(said, cand) < 1) \
                and not _changed_from(request, cand, before):
            continue  # (a note that covers the unit by its words is its subject already)
        changed = conflict(mine, values(gist(cand)))
        if changed:
            found.append((similarity(request, cand), cand, changed))
    if not found:
        return None, []
    _, cand, changed = max(found, key=lambda f: (f[0], f[1].path))
    return cand, changed


def own_note(request: IntegrateRequest, body: str) -> CandidateNote | None:
    """The unit's own note on a re-dream (§5.5): a candidate of its bucket citing this
    material that holds every line the brain would write for the unit now — whatever its
    words read as ("obsolete", "no longer"), nothing is new: never a twin beside it."""
    said = _lines(body)
    if not said:
        return None
    for cand in request.candidates:
        if not cand.path.startswith(f"digest/{request.unit.bucket}/"):
            continue
        cites = any(lk.predicate == PROVENANCE_PREDICATE and lk.target == request.material.path
                    for lk in parse_links(cand.body))
        if cites and said <= _lines(cand.body):
            return cand
    return None


def _lines(body: str) -> frozenset[str]:
    """A body's non-blank lines, spaces at their ends dropped (a note on disk is rendered)."""
    return frozenset(ln.strip() for ln in body.splitlines() if ln.strip())
