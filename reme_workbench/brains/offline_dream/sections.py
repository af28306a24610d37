"""Documentation pages planned by their structure: one unit per section worth a note.

A page in `resource/` with headings is organised by its author already; the brain follows
that instead of picking sentences by cue words:

* **the page**: a wiki unit named by its title, described by its own `description` (else
  its first sentence), holding the introduction — when that says something;
* **a section** (the top heading level below the title) is a unit when its prose has
  substance (MIN_TOKENS content words or MIN_CJK characters; links, code and labels do not
  count); one longer than SPLIT_STATEMENTS whose sub-sections have substance is split into
  them; a section without substance is folded into the page unit as a bullet;
* **bucket**: procedure when it teaches steps (two numbered steps, or an imperative
  heading over instructions), else wiki — never personal: a page addresses every reader;
* **name**: the heading (`naming.heading_name`); **description**: its first real
  sentence, and for a list under a heading that negates or restricts it ("Transaction
  mode: what does not work") that heading and its items (docs/spec.md §5.3.5);
* **body**, extractive: the lead paragraph, then at most MAX_BULLETS bullets; a procedure
  as a runbook (when / steps / watch out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...dream.boilerplate import Boilerplate
from ...dream.markdown import MaterialInfo, fenced
from ...textrules import is_cjk, plain, tokens
from .naming import (
    GENERIC_SECTION,
    cjk_count,
    describe,
    heading_name,
    is_imperative,
    same_text,
    statement_name,
    title_name,
)
from .standalone import qualifiers
from .statements import PROC_HEADING, Block, Scores, Statement
from .units import LABELS, UnitPlan, unique_names

__all__ = ["is_document", "plan_document", "MIN_TOKENS", "MIN_CJK"]

MIN_TOKENS = 12  # content words of prose a note needs to stand on its own
MIN_CJK = 24  # the same for Chinese, in characters
SPLIT_STATEMENTS = 14  # a section longer than this is split into its sub-sections
MAX_BULLETS = 10
MAX_LEAD = 3  # sentences of the lead paragraph
MAX_CODE_LINES = 8

_INSTRUCTION = re.compile(
    r"^(to [a-z]+\b[^,]*,|in the \w+|open|select|click|press|type|enter|go to|choose|drag|"
    r"run|add|remove|enable|disable|turn|right-click|under)\b|^(要|在|打开|选择|点击|按|输入|进入|"
    r"拖动|运行|添加|启用|禁用|右键)",
    re.I,
)
# The lead of a how-to: "To X, …", "You can X by adding …", "要……，……", "……即可".
_HOW_TO = re.compile(r"^(to [a-z]+\b[^,]{0,80},|you can [^.]{0,80}\bby \w+ing\b|in order to\b)|"
                     r"^(要|若要|如需|想要)[^，,]{1,30}[，,]|(即可|就可以|就能)[。.]?$", re.I)
_EXAMPLE = re.compile(r"^(for example|e\.g\.|example:|例如|比如|举例)", re.I)
_CALLOUT_LABEL = {  # any other callout is a note
    "en": {"warning": "Warning", "caution": "Warning", "danger": "Warning", "important": "Important",
           "tip": "Tip", "hint": "Tip", "note": "Note"},
    "zh": {"warning": "警告", "caution": "警告", "danger": "警告", "important": "重要", "tip": "提示",
           "hint": "提示", "note": "注意"},
}


def is_document(path: str, blocks: list[Block]) -> bool:
    """A Markdown page in resource/ is read as documentation: by its sections."""
    return path.startswith("resource/") and path.lower().endswith(".md") and bool(blocks)


@dataclass
class _Section:
    heading: str
    level: int
    blocks: list[Block] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    children: list[_Section] = field(default_factory=list)

    def _under(self, kind: str) -> list:
        return [*getattr(self, kind), *(x for c in self.children for x in c._under(kind))]

    def all_statements(self) -> list[Statement]:
        return sorted(self._under("statements"), key=lambda s: s.index)

    def all_blocks(self) -> list[Block]:
        return sorted(self._under("blocks"), key=lambda b: b.index)


def _prose_size(statements: list[Statement]) -> tuple[int, int]:
    """(content words outside CJK, CJK characters) of what the statements say."""
    words, cjk = 0, 0
    for s in statements:
        text = re.sub(r"`[^`]*`", " ", s.text)  # code is not prose
        text = plain(re.sub(r"\[\[[^\]|]*\|([^\]]*)\]\]|\[\[([^\]]*)\]\]", " ", text))
        cjk += cjk_count(text)
        words += len([t for t in tokens(text) if not is_cjk(t[0])])
    return words, cjk


def _name_of(sec: _Section, info: MaterialInfo, page: _Page) -> str:
    """The section's heading as a name; a heading that is a phrase of a sentence ("After
    setup", "Before you begin") gives way to the key phrase of what the section says. A
    heading every page of a template has ("Description") names a part of this page."""
    name = heading_name(sec.heading, info.title, part=page.template_text(sec.heading))
    if name:
        return name
    if GENERIC_SECTION.match(plain(sec.heading).strip()):
        return ""  # "Overview": the page's own note holds it
    prose = page.own_first([s for s in sec.all_statements() if not _EXAMPLE.match(plain(s.text))])
    said = _has_substance(prose) and prose[0].index not in page.template
    return statement_name(prose[0].text) if said else ""


def _has_substance(statements: list[Statement]) -> bool:
    words, cjk = _prose_size(statements)
    return words >= MIN_TOKENS or cjk >= MIN_CJK or (words >= MIN_TOKENS // 2 and cjk >= MIN_CJK // 2)


def _tree(
    blocks: list[Block], statements: list[Statement], aside: set[str] | frozenset[str] = frozenset()
) -> tuple[_Section, list[_Section]]:
    """The page's introduction and its top-level sections (each with its children),
    built from every block's heading path, so a heading with no text of its own
    ("### Display" right before "#### Readable line length") still holds its children.
    `aside`: H1s of the page's template, which do not make a second title."""
    by_block: dict[int, list[Statement]] = {}
    for s in statements:
        by_block.setdefault(s.block.index, []).append(s)
    h1s = {p[0] for b in blocks for p, lv in [(b.path, b.levels)] if lv and lv[0] == 1} - aside
    title_h1 = len(h1s) == 1  # one H1 over the page: its title, not a section
    levels = {lv for b in blocks for i, lv in enumerate(b.levels) if not (title_h1 and i == 0 and lv == 1)}
    top = min(levels, default=1)
    intro = _Section("", 0)
    roots: list[_Section] = []
    nodes: dict[tuple[str, ...], _Section] = {}
    for b in blocks:
        keep = [(lv, h) for lv, h in zip(b.levels, b.path, strict=True) if lv >= top
                and not (title_h1 and lv == 1)]
        if not keep:  # before the first section heading (or under the H1 title only)
            intro.blocks.append(b)
            intro.statements += by_block.get(b.index, [])
            continue
        key: tuple[str, ...] = ()
        parent = None
        for lv, h in keep:
            key += (h,)
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = _Section(h, lv)
                (parent.children if parent else roots).append(node)
            parent = node
        parent.blocks.append(b)
        parent.statements += by_block.get(b.index, [])
    return intro, roots


def _language(statements: list[Statement]) -> str:
    text = " ".join(s.text for s in statements[:20])
    return "zh" if cjk_count(text) * 2 > len(text.replace(" ", "")) * 0.3 else "en"


@dataclass(frozen=True)
class _Page:
    """What of a page is its template's (docs/spec.md §5.8): the statements that are
    mostly boilerplate, and the boilerplate itself."""

    boilerplate: Boilerplate
    template: frozenset[int] = frozenset()  # statements mostly of the template's words

    def template_text(self, text: str) -> bool:
        return bool(self.boilerplate) and self.boilerplate.share(text) == 1.0

    def own_first(self, statements: list[Statement]) -> list[Statement]:
        """The page's own statements, then the template's (ones with its values)."""
        return ([s for s in statements if s.index not in self.template]
                + [s for s in statements if s.index in self.template])

    def says(self, statements: list[Statement]) -> bool:
        """Some statement says something of the page's own: a sentence of its own, or a
        value it filled in the template's fields (a theme page: its designer, its modes)."""
        return any(s.index not in self.template or tokens(self.boilerplate.strip(s.text))
                   for s in statements)


def plan_document(
    info: MaterialInfo, blocks: list[Block], statements: list[Statement],
    scores: dict[int, Scores], max_units: int, boilerplate: Boilerplate | None = None,
) -> list[UnitPlan]:
    boilerplate = boilerplate or Boilerplate()
    page = _Page(boilerplate, frozenset(s.index for s in statements
                                        if boilerplate.is_template(s.text)))
    kept = [s for s in statements if (not scores[s.index].noise or scores[s.index].noise.startswith("too short"))
            and not page.template_text(s.text)]  # the template's own lines say nothing here
    kept_ids = {s.index for s in kept}
    aside = {h for b in blocks for h, lv in zip(b.path, b.levels, strict=True)
             if lv == 1 and page.template_text(h)}  # "# This note in GitHub" on every page
    intro, sections = _tree(blocks, [s for s in statements if s.index in kept_ids], aside)
    lang = _language(statements)
    units: list[_Section] = []
    fragments: list[_Section] = []
    for sec in sections:
        if not _name_of(sec, info, page):
            fragments.append(sec)  # "Overview" on a page whose title is the topic: the page
            continue
        parts = [c for c in sec.children if _has_substance(c.all_statements())
                 and page.says(c.all_statements())]
        if len(sec.all_statements()) > SPLIT_STATEMENTS and len(parts) >= 2:
            own = _Section(sec.heading, sec.level, sec.blocks, sec.statements)
            said = _has_substance(own.statements) and page.says(own.statements)
            (units if said else fragments).append(own)
            units += parts
            fragments += [c for c in sec.children if c not in parts]
        elif _has_substance(sec.all_statements()) and page.says(sec.all_statements()):
            units.append(sec)
        else:
            fragments.append(sec)
    plans = [_section_plan(sec, info, lang, scores, page) for sec in units]
    plans = [p for p in plans if p is not None]
    page_plan = _page_plan(info, intro, fragments, lang, page)
    if page_plan is not None:
        plans.insert(0, page_plan)
    if len(plans) > max_units:  # keep the page and the sections with the most to say
        keep = sorted(plans[1:] if page_plan else plans, key=lambda p: -p.score)[
            : max_units - bool(page_plan)]
        plans = ([page_plan] if page_plan else []) + sorted(keep, key=lambda p: p.position)
    unique_names(plans)
    return plans


def _page_plan(
    info: MaterialInfo, intro: _Section, fragments: list[_Section], lang: str, page: _Page
):
    name = title_name(info.title) or statement_name(info.title)
    if not name:
        return None
    lead = page.own_first([s for s in intro.statements if not _EXAMPLE.match(plain(s.text))])
    folded = []
    for frag in fragments:
        sts = page.own_first([s for s in frag.all_statements() if not _EXAMPLE.match(plain(s.text))])
        if sts:
            label = heading_name(frag.heading) if frag.heading else ""
            folded.append((label, sts[0]))
    said = lead + [s for _, s in folded]
    if not _has_substance(said) or not page.says(said):
        return None  # the page says no more than its sections (or its template): no note
    description = info.description or _describe(lead, name, page)
    if same_text(description, name):
        description = _describe(lead[1:], name, page)
    body = _article(intro, lang, page) if lead else ""
    bullets = [f"- **{label}:** {_md(s.text)}" if label and not same_text(label, name) else
               f"- {_md(s.text)}" for label, s in folded]
    if bullets:
        body = (body.rstrip("\n") + "\n\n" if body.strip() else "") + "\n".join(bullets) + "\n"
    statements = page.own_first(said)
    gist, summary = _gist(statements, description, page)
    return UnitPlan("wiki", name, 3.0, statements or intro.statements, head=gist[0] if gist else None,
                    body=body, description=description or name, summary=summary, page=True)


def _gist(statements: list[Statement], description: str, page: _Page) -> tuple[list[Statement], str]:
    """The page's own statements (the template's when it has none), and the summary of
    a unit: its description and their first six."""
    gist = [s for s in statements if s.index not in page.template] or statements
    return gist, " ".join([description, *(plain(s.text) for s in gist[:6])]).strip()[:1500]


def _is_procedure(sec: _Section, scores: dict[int, Scores], page: _Page) -> bool:
    """A section that teaches how: numbered steps that are most of it, an imperative
    heading ("Take a snapshot"), or a how-to lead ("To make a callout foldable, add …")
    over instructions or code. The template's statements are not what it teaches."""
    blocks = sec.all_blocks()
    statements = ([s for s in sec.all_statements() if s.index not in page.template]
                  or sec.all_statements())
    steps = [b for b in blocks if b.kind == "step" and b.depth == 0]
    step_share = sum(1 for s in statements if s.block in steps) / max(len(statements), 1)
    if len(steps) >= 2 and _steps_have_substance(steps) and step_share >= 0.4:
        return True
    if is_imperative(sec.heading):
        return True
    heading = plain(sec.heading)
    lead = [s for s in statements if not s.block.callout and s.block.kind != "row"][:2]
    if any(_how_to(plain(s.text)) for s in lead):
        return True
    doing = [s for s in statements
             if _INSTRUCTION.match(plain(s.text)) or scores[s.index].procedure >= 1.0]
    return bool(PROC_HEADING.search(heading)) and len(doing) >= 2


def _how_to(text: str) -> bool:
    """A sentence that starts telling how: "To X, …", "You can X by …", "Add … to …",
    "要……，……"."""
    if _HOW_TO.search(text):
        return True
    if " to " in f" {text.lower()} " and is_imperative(text):
        return True
    can = re.match(r"^you can (\w+\b.*\b(?:with|using|by)\b.*)", text, re.I)
    return bool(can and is_imperative(can.group(1)))


def _steps_have_substance(steps: list[Block]) -> bool:
    """Steps that are more than links ("Open [[Settings]]."): six content words in all."""
    text = " ".join(re.sub(r"\[\[[^\]]*\]\]", " ", b.text) for b in steps)
    return len(tokens(text)) >= 6 or cjk_count(plain(text)) >= 12


def _section_plan(
    sec: _Section, info: MaterialInfo, lang: str, scores: dict[int, Scores], page: _Page
) -> UnitPlan | None:
    name = _name_of(sec, info, page)
    if not name:
        return None
    statements = sec.all_statements()  # never empty: a unit's prose has substance
    prose = page.own_first([s for s in statements if not _EXAMPLE.match(plain(s.text))])
    description = _under_heading(sec, _describe(prose or page.own_first(statements), name, page))
    words, cjk = _prose_size(statements)
    score = 2.0 + min(words + cjk / 2, 80) / 20
    bucket = "procedure" if _is_procedure(sec, scores, page) else "wiki"
    body = _runbook(sec, LABELS[lang]) if bucket == "procedure" else _article(sec, lang, page)
    gist, summary = _gist(prose, description, page)
    return UnitPlan(bucket, name, score, statements, head=gist[0] if gist else statements[0],
                    body=body, description=description or name, summary=summary)


def _dropped(heading: str, text: str) -> frozenset[str]:
    """The negations and qualifiers a heading states that `text` does not."""
    return qualifiers(plain(heading)) - qualifiers(text) if heading else frozenset()


def _under_heading(sec: _Section, description: str) -> str:
    """A list read under a heading that negates or restricts it ("Transaction mode: what
    does not work" over "`SET` / `RESET` …") is described with its heading in front and
    its items: alone, the first item would say the opposite (docs/spec.md §5.3.5)."""
    if not description or not _dropped(sec.heading, description):
        return description
    items = [s for s in sec.all_statements() if s.first and s.block.kind in ("item", "step")]
    if not items:
        return description
    heading = plain(sec.heading).strip()
    cjk = cjk_count(heading) > 0
    sep = "；" if cjk else "; "
    out = heading + (("——" if cjk else " — ") if re.search(r"[:：]", heading) else ("：" if cjk else ": "))
    for i, s in enumerate(items):
        part = plain(s.text).strip().rstrip(".。;；")
        if i and len(out) + len(sep) + len(part) > 280:
            return out + sep + "…"
        out += (sep if i else "") + part
    return out + ("。" if cjk else ".")


def _describe(statements: list[Statement], name: str, page: _Page) -> str:
    """What the note holds, in the page's own words: its first real sentence, else — a
    template's page often says what it is in three words ("Render Kroki diagrams") — its
    first own sentence of two words or more; a statement of the template only when the
    page has no sentence of its own, for the values it filled in."""
    own = [s for s in statements if s.index not in page.template]
    found = describe([s.text for s in own], name, blocks=[s.block.index for s in own])
    if found or not page.boilerplate:
        return found
    for text in [s.text for s in own] or [s.text for s in statements][:1]:  # its values
        text = " ".join(plain(text).split())
        if len(text.split()) >= 2 and not same_text(text, name) and not text.endswith((":", "：")):
            return text[:200]
    return ""


# --- bodies ---------------------------------------------------------------------------


def _md(text: str) -> str:
    return " ".join(text.split())


def _callout_label(block: Block, lang: str) -> str:
    label = _CALLOUT_LABEL[lang].get(block.callout, _CALLOUT_LABEL[lang]["note"])
    title = block.callout_title
    return f"{label} — {title}" if title and not same_text(title, label) else label


def _code(block: Block, indent: str = "") -> list[str]:
    return [ln for code in block.code[:1] for ln in fenced(code, indent, MAX_CODE_LINES)]


def _article(sec: _Section, lang: str, page: _Page) -> str:
    statements = [s for s in sec.statements if s.block.kind != "row"] or sec.statements
    lines: list[str] = []
    head_block = None
    if statements:  # the lead: the first block that says something of the page's own
        head_block = page.own_first(statements)[0].block
        listed = head_block.kind in ("item", "step")
        if listed and _dropped(sec.heading, head_block.text):
            # the heading says what the list is ("what does not work"): it leads, the
            # first item stays one of the list
            lines = [f"**{_md(plain(sec.heading))}**"]
            head_block = None
        elif not head_block.callout:
            lead = [s.text for s in statements if s.block is head_block][:MAX_LEAD]
            lines = [_md(" ".join(lead)), *_code(head_block)]
    bullets: list[str] = []
    seen_blocks = {head_block.index} if lines and head_block else set()
    for s in sec.statements:
        b = s.block
        if b.index in seen_blocks or not s.first:
            continue
        seen_blocks.add(b.index)
        if b.callout:
            bullets.append(f"- **{_callout_label(b, lang)}:** {_md(s.text)}")
        else:
            bullets += [f"- {_md(s.text)}", *(_code(b, "  ") if b.kind != "row" else [])]
    for child in sec.children:
        sts = [s for s in child.all_statements() if not _EXAMPLE.match(plain(s.text))]
        if not sts:
            continue
        label = heading_name(child.heading) or plain(child.heading)
        bullets.append(f"- **{label}:** {_md(sts[0].text)}")
    bullets = _cap_bullets(bullets)
    if not lines and bullets:
        first = bullets.pop(0)
        lines = [first[2:]]
    return "\n".join(lines + ([""] if bullets else []) + bullets) + "\n"


def _cap_bullets(bullets: list[str]) -> list[str]:
    """Up to the bullet after MAX_BULLETS (a bullet's code lines stay with it)."""
    starts = [i for i, line in enumerate(bullets) if line.startswith("- ")]
    return bullets[:starts[MAX_BULLETS]] if len(starts) > MAX_BULLETS else bullets


def _runbook(sec: _Section, labels: dict) -> str:
    """when / steps / watch out. Steps: the numbered list, else the instruction bullets,
    else the section's how-to sentences (a procedure told in prose)."""
    blocks = sec.all_blocks()
    statements = [s for s in sec.all_statements() if not s.block.callout]
    steps = [b for b in blocks if b.kind == "step" and b.depth == 0]
    if len(steps) < 2:
        steps = [b for b in blocks if b.kind in ("item", "step") and b.depth == 0 and not b.callout]
    first_step = steps[0].index if len(steps) >= 2 else 10**9
    intro = [s for s in statements if s.block.kind == "para" and s.block.index < first_step]
    if len(steps) >= 2:
        step_lines = [(_md(b.text), b) for b in steps]
        when = " ".join(_md(s.text) for s in intro[:2])
    else:  # prose: every sentence that is not an example is a step of the how-to
        prose = [s for s in statements if not _EXAMPLE.match(plain(s.text))] or statements
        step_lines = [(_md(s.text), s.block if s.first else None) for s in prose]
        when = ""
    lines = [f"## {labels['when']}", "", when, ""] if when and not when.endswith("]]") else []
    lines += [f"## {labels['steps']}", ""]
    for i, (text, block) in enumerate(step_lines[:12], 1):
        lines.append(f"{i}. {text}")
        if block is not None:
            lines += _code(block, "   ")
    cautions = [s for s in sec.all_statements() if s.block.callout and s.first]
    if cautions:
        lines += ["", f"## {labels['watch']}", ""]
        lines += [f"- {_md(s.text)}" for s in cautions[:3]]
    return "\n".join(lines) + "\n"
