"""What a user tells an assistant to do, or how they want things: read from the parse.

In a chat with an assistant, what the user says of themselves is read as facts
(conversation.py); the log rules keep besides only what the user states as a rule or a
preference for the assistant, and steps (docs/spec.md §5.2.9). A word list cannot tell
those apart: "Sounds like you and the kids had a blast" has "like", "I've always had a
love for horses" has "always", and both are neither. The parse can (spaCy's small English
pipeline, `textrules.nlp`):

* an **instruction** — the sentence's head is a verb in the base form with no subject of
  its own ("Always answer in French", "Don't use bullet points", "Please keep it short"),
  carrying a negation or a rule word (`always`, `never`, `only`, `please`, "make sure");
  a bare imperative ("get a couch") is advice, not a rule; so is one about the listener's
  own life: without "please", one that names no thing but the listener's ("Don't give up
  on your dreams", "Don't ever quit", "don't be scared to reach out", "make sure yours
  stands out") — "Don't use bullet points in your replies" names one;
* a **preference** — the user (I, we) as the subject of a verb in the present: `prefer`
  or `'d rather` by themselves; `like`, `love`, `hate`, `want`, `need` only with a rule
  word or a negation ("I always want the short version", "I don't like emoji"); any other
  verb only with a negation and a thing it is about ("I never eat meat", "we don't work on
  Fridays") — an affirmative habit in the perfect ("I've always had a love for horses") is
  a fact, and so is a negation with no thing ("I don't expect to win big") or with a modal
  ("I'll never forget seeing …": what they will feel).

Questions state no rule. A Chinese sentence is read by the log rules' own rule words
(`statements.has_rule_words_zh`: 不要, 别, 总是, 一律, 必须 …).
"""

from __future__ import annotations

from ...textrules import is_cjk, plain
from ...textrules.nlp import english_docs
from .chat import read_turn
from .conversation import attributed
from .statements import Statement, has_rule_words_zh
from .topics import first_person, second_person
from .units import UnitPlan

__all__ = ["tells_a_rule", "said_text", "rules_beside"]

_RULE_WORDS = frozenset({"always", "never", "only", "please", "ever"})
_PREFERENCE = frozenset({"like", "love", "hate", "want", "need", "enjoy", "dislike"})


def said_text(statement: Statement) -> str:
    """The statement's words without the speaker's label a turn opens with."""
    text = statement.text.strip()
    turn = read_turn(text)
    return plain(turn.text if turn is not None and turn.text else text)


def rules_beside(plans: list[UnitPlan], facts: list[UnitPlan]) -> list[UnitPlan]:
    """Of the log rules' `plans` for a user's chat with an assistant, those to keep beside
    the chat's `facts`: steps, and the rules and preferences the user tells it — never a
    sentence a fact already quotes (a fact's statements are the turns it starts in, so a
    turn's second sentence is found by its words) — each described in the user's words,
    attributed (`conversation.attributed`), never as a bare "I …"."""
    held = " ".join(" ".join(q.strip('"“”').split()) for f in facts for q in f.said)
    starts = {s.index for f in facts for s in f.statements}

    def told(s: Statement) -> bool:
        said = " ".join(said_text(s).split())
        return s.index in starts or (bool(said) and said in held)

    kept = [p for p in plans if not any(map(told, p.statements)) and (
        p.bucket == "procedure" or any(tells_a_rule(s) for s in p.statements))]
    for p in kept:
        head = p.head or p.statements[0]
        if p.bucket != "procedure" and head.block.speaker:
            p.description = attributed(head.block.speaker, said_text(head))
    return kept


def tells_a_rule(statement: Statement) -> bool:
    """Whether the user's sentence states a rule or a preference for the assistant (see
    the module doc)."""
    text = said_text(statement)
    if not text or text.rstrip().endswith(("?", "？")):
        return False
    if sum(map(is_cjk, text)) * 3 >= len(text):
        return has_rule_words_zh(text)
    doc = english_docs([text])[0]
    return any(_instruction(sent) or _preference(sent) for sent in doc.sents)


def _marked(head) -> bool:
    """A negation or a rule word on the verb ("don't", "never", "always", "please"), or
    "make sure"."""
    return any(c.dep_ == "neg" or c.lower_ in _RULE_WORDS for c in head.children) or (
        head.lemma_.lower() == "make" and any(c.lower_ == "sure" for c in head.children))


def _names_a_thing(head) -> bool:
    """A noun among what the verb takes, not the listener's own ("use bullet points in
    your replies", "eat meat"; "give up on your dreams" names only the listener's)."""
    return any(t.pos_ in ("NOUN", "PROPN") and not any(
        c.dep_ == "poss" and second_person(c) for c in t.children)
        for t in head.subtree if t.i != head.i)


def _instruction(sent) -> bool:
    head = sent.root
    if head.tag_ != "VB" or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in head.children):
        return False
    please = any(t.lower_ == "please" for t in sent)
    return _marked(head) and (please or _names_a_thing(head))


def _preference(sent) -> bool:
    if any(t.lower_ == "rather" for t in sent) and any(  # "I'd rather you didn't …"
            first_person(t) and t.dep_ == "nsubj" for t in sent):
        return True
    for verb in (t for t in sent if t.pos_ in ("VERB", "AUX")):
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or not first_person(subject):  # I, we: the parse's first person
            continue
        if verb.tag_ not in ("VBP", "VB") and verb.lower_ not in ("'d", "’d", "would"):
            continue  # the present: "I've always had …" and "I liked …" tell what was
        lemma = verb.lemma_.lower()
        if lemma == "prefer":
            return True
        if lemma in _PREFERENCE and _marked(verb):
            return True
        modal = any(c.tag_ == "MD" for c in verb.children)  # "I'll never forget …"
        if any(c.dep_ == "neg" or c.lower_ == "never" for c in verb.children) \
                and not modal and _names_a_thing(verb):
            return True
    return False
