"""Split a note (or a daily/resource file) into retrieval chunks along its markdown structure.

Pure: `chunk_file(path, text)` does no I/O. A file is cut into blocks — headings,
paragraphs, list items (with their continuation lines and nested code), fenced code —
and consecutive blocks are packed into chunks of at most `max_tokens` estimated tokens.
A heading always starts a new chunk, so a chunk never straddles two sections. A block
that alone is too long is split at line boundaries, then sentences, then spaces, and
as a last resort inside a word, so the bound always holds.

Line-structured text — a conversation transcript, a log, a long table (whose header
row then stays in the first window only): a paragraph of at least `WINDOW_MIN_LINES`
lines that does not fit in one chunk — is cut differently:
into overlapping windows of `WINDOW_LINES` consecutive lines, one window starting at
every `WINDOW_STEP`-th line. Each line of such a block is usually one record (a turn,
an event), and a question is about one or two of them: a 256-token slice holds ten or
more records, so bm25 and the embedding both see mostly other matter, while a window
keeps a record with its neighbours (the question a turn answers, the reply to it). The
overlap means every pair of adjacent lines shares at least one window. A heading right
above the block joins its first window; blocks that fit in one chunk, and so every
short note, are packed exactly as before. Measured on LoCoMo (benchmarks/
locomo_recall.py): session-level keyword recall@5 0.79 -> 0.86 from this change alone.

Every chunk carries the file's context — its frontmatter `name` (else the file stem),
`description`, date (frontmatter `date`, else a `YYYY-MM-DD` path segment) and the
heading trail above it — which the index adds to both the keyword and the vector text;
a dated record (`- **2023-05-08**: … (derived_from:: [[…]])`, a chunk of its own) adds
its day in words ("8 May 2023"), the words a question names it by ("in May").
The frontmatter block itself is never chunk text. Line numbers are 1-based and count
the frontmatter, so `line_start..line_end` points into the file as it is on disk.

Large files: the cost of one file is bounded. Before this rule a 500 KB note took 61 s
to index and a 5 MB daily log about half an hour: MiniLM in numpy costs ~0.5 ms per
token on 2 cores, and line windows triple a log's tokens. So:

* every chunk holds at most `max_tokens` (256) estimated tokens and `MAX_CHUNK_CHARS`
  (4,096) characters, and its context at most `MAX_CONTEXT_CHARS` (1,024); a line
  longer than `LONG_LINE_CHARS` (16,384) is cut in one linear pass (at a sentence end,
  else a space, else anywhere), so no text costs more than linear work, however long
  its lines;
* a file's chunks are all embedded while their estimated tokens (context included)
  add up to at most `EMBED_TOKEN_BUDGET` (8,192, ~4 s of MiniLM) — every digest note
  of ordinary size and every LoCoMo session is below it. A file over the budget is
  embedded as a sample of at most that many tokens: first the opening chunk of each
  section (where the heading trail changes), then chunks that hold each line once
  (of overlapping line windows, every third), then the other windows, each group
  spread evenly over the file while the budget lasts; its other chunks are in the
  keyword index only, so every word of it is still found by keyword recall;
* a file whose whole text is over the budget is chunked without line windows, so each
  of its lines is indexed once, not three times.

`plan_file(path, text)` applies these rules; `chunk_file` is the chunker alone.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import NoteError
from ..textrules.cjk import CJK_CHARS
from ..vault.frontmatter import field_text, find_frontmatter, load_frontmatter
from ..vault.tokens import ascii_tokens as _ascii_tokens
from ..vault.tokens import estimate_tokens

__all__ = [
    "Chunk", "FilePlan", "ChunkRules", "DEFAULT_RULES", "EMBED_WINDOWS", "EMBED_CONTEXTS",
    "chunk_file", "plan_file", "embedded_ordinals", "embed_text",
    "description_text",
    "is_indexable", "MAX_CHUNK_CHARS", "MAX_CONTEXT_CHARS", "LONG_LINE_CHARS",
    "EMBED_TOKEN_BUDGET",
]

_NON_SPACE_RE = re.compile(r"\S")
# estimate_tokens' tokens, with a CJK run as one match (it costs one token a character)
_SCAN_RE = re.compile(rf"([{CJK_CHARS}]+)|([^\W_{CJK_CHARS}]+)|[^\w\s]|_")

_HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_ITEM_RE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_FENCE_RE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_PATH_DATE_RE = re.compile(r"(?:^|/)(\d{4}-\d{2}-\d{2})(?=/|\.[^/]*$|$)")

# How an over-long line is broken, coarsest first: after a sentence end, then at spaces.
_SPLITTERS = (
    re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])(?=\S)"),
    re.compile(r"\s+"),
)
INDEXED_SUFFIXES = (".md", ".txt")
WINDOW_LINES = 3  # lines per window of a line-structured block
WINDOW_STEP = 1  # a window starts at every line: adjacent lines always share a window
WINDOW_MIN_LINES = 6  # fewer lines are prose (or a short list of records): packed as usual
# A chunk's characters, beside its tokens: whitespace is free for the estimator, so a
# line of padded columns or a run of spaces could otherwise make a 256-token chunk of
# megabytes. 256 tokens of ordinary text are ~1,000-1,500 characters; code with aligned
# comments ~2,000. Normal notes never reach the bound.
MAX_CHUNK_CHARS = 4096
MAX_CONTEXT_CHARS = 1024  # name, description, date and heading trail; normal ones are < 300
# Lines up to this long are split as always (sentences, then words, then halves — fine
# pieces that pack with their neighbours); longer ones by the linear cutter, because the
# word split of a 5 MB line made ~1M pieces (12 s, 170 MB) and the halving of a CJK run
# without punctuation re-read the run at every level (85 s).
LONG_LINE_CHARS = 16384
# Estimated tokens of one file's chunks (context included) that are embedded. MiniLM in
# numpy costs ~0.5 ms of wall time per token on 2 idle cores (~1 ms of CPU), so this is
# ~4-5 s per file at most: 32 full chunks, or ~100 short log windows; e5 about twice
# that. Digest notes (a few KB) and the sample vault's logs (1,325 at most) are far
# below it, and so is every LoCoMo session (6,832 at most, line windows included).
EMBED_TOKEN_BUDGET = 8192
MAX_TOKENS = 256  # estimated tokens of a chunk's text
EMBED_WINDOWS = ("all", "pairs", "cover")  # which line windows get a vector (ChunkRules)
EMBED_CONTEXTS = ("every", "none")  # is the context line embedded with each chunk's text


@dataclass(frozen=True)
class ChunkRules:
    """How the index cuts files and which text it embeds: `DEFAULT_RULES` is the index's;
    the others exist to measure a cut on the recall benchmarks (benchmarks/
    locomo_recall.py, bench_recall_zh.py) before it becomes the default.

    `embed_windows`: which of a block's overlapping line windows get a vector — "all";
    "pairs", the fewest in which every two adjacent lines share one (windows of 3 lines:
    every other); "cover", the fewest that hold each line (every third). All of them stay
    in the keyword index (`_cover`).
    `embed_context="none"`: a chunk's vector is of its text alone, without the context
    line (the keyword index keeps the context either way)."""

    max_tokens: int = MAX_TOKENS
    window_lines: int = WINDOW_LINES
    window_step: int = WINDOW_STEP
    embed_windows: str = "all"
    embed_context: str = "every"

    def __post_init__(self) -> None:
        if self.embed_windows not in EMBED_WINDOWS:
            raise ValueError(f"embed_windows must be one of {', '.join(EMBED_WINDOWS)}")
        if self.embed_context not in EMBED_CONTEXTS:
            raise ValueError(f"embed_context must be one of {', '.join(EMBED_CONTEXTS)}")
        if self.max_tokens < 1 or self.window_lines < 0 or self.window_step < 1 or (
                self.window_lines and self.window_step > self.window_lines):
            raise ValueError("max_tokens >= 1, window_lines >= 0 and "
                             "1 <= window_step <= window_lines")

    @property
    def key(self) -> str:
        """"" for the index's rules; else a short name of these, which the index records
        with its schema so that changing rules re-chunks (and embeds only new text)."""
        if self == DEFAULT_RULES:
            return ""
        return (f"t{self.max_tokens}-w{self.window_lines}s{self.window_step}-"
                f"{self.embed_windows}-{self.embed_context}")


DEFAULT_RULES = ChunkRules()


@dataclass(frozen=True)
class Chunk:
    path: str
    ordinal: int  # 0-based position of the chunk in its file
    text: str
    context: str  # "name — description (date) › heading › subheading"
    line_start: int  # 1-based, inclusive, counted in the whole file
    line_end: int
    tokens: int  # estimate_tokens(text)


def is_indexable(path: str) -> bool:
    """Markdown and plain-text files are chunked; images, PDFs and the rest are skipped."""
    return path.lower().endswith(INDEXED_SUFFIXES)


@dataclass(slots=True)
class _Piece:
    text: str
    line_start: int
    line_end: int
    tokens: int
    block: int


# a list item that ends on its own source, `- **2023-05-08**: … (derived_from:: [[…]])`: one
# record of a note that gathers several (a conversation's dated bullets, docs/spec.md §5.2.8)
_OWN_SOURCE = re.compile(r"\(derived_from::\s*\[\[[^\]\n]+\]\]\)\s*$")


def chunk_file(
    path: str, text: str, *, max_tokens: int = MAX_TOKENS, window_lines: int = WINDOW_LINES,
    window_step: int = WINDOW_STEP, max_chars: int = MAX_CHUNK_CHARS,
) -> list[Chunk]:
    """The chunks of one file (empty for a file type the index skips, or an empty body).

    `window_lines=0` turns the line windows of long line-structured blocks off.
    """
    return _chunk_file(path, text, max_tokens, window_lines, window_step, max_chars)[0]


def _chunk_file(
    path: str, text: str, max_tokens: int, window_lines: int, window_step: int, max_chars: int,
) -> tuple[list[Chunk], list[list[int]]]:
    """chunk_file's chunks, and the ordinals of each windowed block's line windows (the
    parts of an over-long line in it, which repeat no text, left out)."""
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if max_chars < max_tokens:
        raise ValueError("max_chars must be at least max_tokens")
    if window_lines < 0 or window_step < 1 or (window_lines and window_step > window_lines):
        raise ValueError("window_lines must be >= 0 and 1 <= window_step <= window_lines")
    if not is_indexable(path):
        return [], []
    text = text.removeprefix("\ufeff")
    fm: dict = {}
    body_start = 0
    if path.lower().endswith(".md"):
        span = find_frontmatter(text)
        if span is not None:
            body_start = span.end
            fm = _load_frontmatter(text[span.yaml_start : span.yaml_end], path)
    first_line = text.count("\n", 0, body_start) + 1
    lines = text[body_start:].split("\n")
    head = _clip(_file_context(path, fm), MAX_CONTEXT_CHARS)

    chunks: list[Chunk] = []
    runs: list[list[int]] = []  # per windowed block: the ordinals of its line windows
    current: list[_Piece] = []
    trail: list[tuple[int, str]] = []  # (level, title) of the headings above
    used = chars = 0  # tokens of `current`, and its characters plus 2 per piece
    when = ""  # a dated record's day in words, for its chunk's context

    def flush() -> None:
        nonlocal used, chars
        used = chars = 0
        if not current:
            return
        parts = [head, *(t for _, t in trail), *([when] if when else [])]
        context = _clip(" › ".join(parts), MAX_CONTEXT_CHARS)
        chunks.append(Chunk(  # pieces are joined by whitespace, so their counts add up
            path, len(chunks), _join(current), context, current[0].line_start,
            current[-1].line_end, sum(p.tokens for p in current),
        ))
        current.clear()

    def fits(tokens: int, size: int) -> bool:
        # `size` counts 2 per piece for the separators, so the joined text is <= max_chars
        return used + tokens <= max_tokens and chars + size - 2 <= max_chars

    for block_no, (kind, start, block_lines) in enumerate(_blocks(lines, first_line)):
        if kind == "heading":
            flush()
            m = _HEADING_RE.fullmatch(block_lines[0])
            level, title = len(m.group(1)), _clip((m.group(2) or "").strip(), MAX_CONTEXT_CHARS)
            while trail and trail[-1][0] >= level:
                trail.pop()
            if title:
                trail.append((level, title))
        if (window_lines and kind == "paragraph" and len(block_lines) >= WINDOW_MIN_LINES
                and estimate_tokens("\n".join(block_lines)) > max_tokens):
            windows = _windows(block_lines, start, block_no, max_tokens, max_chars,
                               window_lines, window_step)
            # a heading (or a short block) just above joins the first window when it fits
            if current and not fits(sum(p.tokens for p in windows[0][0]),
                                    sum(len(p.text) + 2 for p in windows[0][0])):
                flush()
            runs.append([])
            for window, is_window in windows:
                current.extend(window)
                if is_window:
                    runs[-1].append(len(chunks))
                flush()
            continue
        record = kind == "item" and bool(_OWN_SOURCE.search("\n".join(block_lines)))
        if record:  # a dated bullet with its own source is a chunk of its own
            flush()
            when = _day_in_words(block_lines[0])
        for piece in _pieces(block_lines, start, block_no, max_tokens, max_chars):
            if current and not fits(piece.tokens, len(piece.text) + 2):
                flush()
            current.append(piece)
            used += piece.tokens
            chars += len(piece.text) + 2
        if record:
            flush()
            when = ""
    flush()
    return chunks, runs


_RECORD_DAY = re.compile(r"[ \t]*[-*+][ \t]+\*\*(\d{4}-\d{2}-\d{2})\*\*")


def _day_in_words(line: str) -> str:
    """`- **2023-05-08**: …` -> "8 May 2023", the words a question names the day by ("in
    May", "on 8 May 2023"); "" for a line that opens on no valid date."""
    m = _RECORD_DAY.match(line)
    if not m or not _valid(m.group(1)):
        return ""
    day = _dt.date.fromisoformat(m.group(1))
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"  # English, whatever the locale


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


@dataclass(frozen=True)
class FilePlan:
    """How the index takes one file: its chunks, and which of them get a vector."""

    chunks: tuple[Chunk, ...]
    embedded: frozenset[int]  # ordinals of the chunks that are embedded
    windowed: bool  # False when the file was too large for line windows
    # True when the file is over the embedding budget: some chunks its rules would embed
    # are in the keyword index only (line windows a cover leaves out do not count)
    sampled: bool


def plan_file(path: str, text: str, *, budget: int | None = None,
              rules: ChunkRules = DEFAULT_RULES) -> FilePlan:
    """The chunks of a file and the ones to embed, by `rules` and the large-file rule
    (see above); `budget` defaults to EMBED_TOKEN_BUDGET."""
    budget = EMBED_TOKEN_BUDGET if budget is None else budget
    windowed = estimate_tokens(text) <= budget
    chunks, runs = _chunk_file(path, text, rules.max_tokens,
                               rules.window_lines if windowed else 0, rules.window_step,
                               MAX_CHUNK_CHARS)
    left_out: set[int] = set()
    if rules.embed_windows != "all":
        pairs = rules.embed_windows == "pairs"
        for run in runs:
            left_out.update(set(run) - set(_cover([chunks[i] for i in run], pairs=pairs)))
    candidates = [c for c in chunks if c.ordinal not in left_out]
    chosen = embedded_ordinals(candidates, budget, rules)
    return FilePlan(tuple(chunks), frozenset(candidates[i].ordinal for i in chosen), windowed,
                    len(chosen) < len(candidates))


def _cover(windows: list[Chunk], *, pairs: bool = False) -> list[int]:
    """Ordinals of the fewest of a block's line windows (in order, overlapping) that hold
    every line of them (`pairs`: every two adjacent lines together): from the first,
    each time the window that reaches furthest among those starting at most one line
    past the lines held so far (`pairs`: at the last line held). Windows of 3 lines, one
    starting at every line: every third (every other), and the last."""
    if not windows:
        return []
    chosen, held = [windows[0].ordinal], windows[0].line_end
    reach = 0 if pairs else 1
    i = 1
    while i < len(windows):
        best = None
        while i < len(windows) and windows[i].line_start <= held + reach:
            if best is None or windows[i].line_end >= best.line_end:
                best = windows[i]
            i += 1
        if best is None:  # a gap (an over-long line's parts stood between): start again
            best = windows[i]
            i += 1
        if best.line_end > held:
            chosen.append(best.ordinal)
            held = best.line_end
    return chosen


def embed_text(chunk: Chunk, rules: ChunkRules = DEFAULT_RULES) -> str:
    """What a chunk's vector is of: its context line (the note's name, heading) and text
    (the text alone with `embed_context="none"`)."""
    if rules.embed_context == "none":
        return chunk.text
    return f"{chunk.context}\n{chunk.text}"


def embedded_ordinals(chunks: list[Chunk] | tuple[Chunk, ...], budget: int,
                      rules: ChunkRules = DEFAULT_RULES) -> list[int]:
    """Positions in `chunks` of the chunks to embed, ascending: all of them when their
    tokens (context included unless `rules` embed none) add up to at most `budget`;
    otherwise, while the budget lasts,
    the opening chunk of each section, then chunks that hold each line once (line
    windows overlap: every third one), then the rest — each group in spread order
    (first, last, middle, quarters, ...)."""
    context_cost: dict[str, int] = {}
    costs = []
    for c in chunks:
        cost = context_cost.get(c.context)
        if cost is None:
            cost = context_cost[c.context] = (
                0 if rules.embed_context == "none" else estimate_tokens(c.context) + 1)
        costs.append(c.tokens + cost)
    if sum(costs) <= budget:
        return list(range(len(chunks)))
    openers = {i for i, c in enumerate(chunks) if i == 0 or c.context != chunks[i - 1].context}
    cover: list[int] = []
    last: Chunk | None = None
    for i, c in enumerate(chunks):
        if last is not None and c.line_start <= last.line_end:  # repeats lines: a window
            one_line = c.line_start == c.line_end == last.line_start == last.line_end
            if not one_line:  # (parts of one over-long line repeat none of its text)
                continue
        if i not in openers:
            cover.append(i)
        last = c
    taken = openers | set(cover)
    groups = (sorted(openers), cover, [i for i in range(len(chunks)) if i not in taken])
    chosen: list[int] = []
    left = budget
    for group in groups:
        for k in _spread_order(len(group)):
            i = group[k]
            if costs[i] <= left:
                chosen.append(i)
                left -= costs[i]
            if left <= 0:
                return sorted(chosen)
    return sorted(chosen)


def _spread_order(n: int) -> list[int]:
    """0..n-1 ordered so that every prefix is spread over the range: the ends, then the
    midpoints of the gaps, level by level (0, n-1, n/2, n/4, 3n/4, ...)."""
    if n <= 2:
        return list(range(n))
    order, seen = [0, n - 1], {0, n - 1}
    gaps = [(0, n - 1)]
    while gaps:
        next_gaps = []
        for lo, hi in gaps:
            if hi - lo < 2:
                continue
            mid = (lo + hi) // 2
            if mid not in seen:
                seen.add(mid)
                order.append(mid)
            next_gaps += [(lo, mid), (mid, hi)]
        gaps = next_gaps
    return order


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _load_frontmatter(yaml_text: str, path: str) -> dict:
    try:
        return load_frontmatter(yaml_text, path)
    except NoteError:  # broken YAML: the scan reports it; we chunk the body
        return {}


def file_date(path: str, fm: Mapping) -> str | None:
    """A file's date: frontmatter `date`, else a YYYY-MM-DD segment of its path."""
    value = fm.get("date")
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, str) and (m := _DATE_RE.match(value.strip())) and _valid(m.group()):
        return m.group()
    for m in _PATH_DATE_RE.finditer(path):
        if _valid(m.group(1)):
            return m.group(1)
    return None


def _valid(iso: str) -> bool:
    try:
        _dt.date.fromisoformat(iso)
    except ValueError:
        return False
    return True


def description_text(path: str, name: str | None, description: str | None) -> str:
    """What a note says it is about, as one embedded text: `"<name>: <description>"`
    (the name alone without a description; the file stem without a name). The index
    embeds it once per digest note (`VaultIndex.description_vectors`); merge candidates
    compare notes by it (consolidate/candidates.py)."""
    name = (name or "").strip() or path.rsplit("/", 1)[-1].removesuffix(".md")
    description = (description or "").strip()
    return f"{name}: {description}" if description else name


def _file_context(path: str, fm: dict) -> str:
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    name = field_text(fm.get("name")) or stem
    description = field_text(fm.get("description"))
    date = file_date(path, fm)
    head = f"{name} — {description}" if description else name
    return f"{head} ({date})" if date else head


def _blocks(lines: list[str], first_line: int):
    """Yield (kind, first line number, lines) for headings, items, paragraphs, code."""
    kind: str | None = None
    start = 0
    buf: list[str] = []
    fence: str | None = None  # the open fence's marker while inside fenced code
    for offset, raw in enumerate(lines):
        line = raw.rstrip("\r").rstrip()
        number = first_line + offset
        if fence is not None:  # inside code: nothing is structure until the fence closes
            buf.append(line)
            m = _FENCE_RE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end():].strip():
                fence = None
                if kind == "code":
                    yield kind, start, buf
                    kind, buf = None, []
            continue
        if not line.strip():
            if kind is not None:
                yield kind, start, buf
                kind, buf = None, []
            continue
        fence_m = _FENCE_RE.match(line)
        if fence_m:
            fence = fence_m.group(1)
            if kind == "item":  # code nested in a list item stays with its item
                buf.append(line)
                continue
            if kind is not None:
                yield kind, start, buf
            kind, start, buf = "code", number, [line]
            continue
        if _HEADING_RE.fullmatch(line):
            if kind is not None:
                yield kind, start, buf
            yield "heading", number, [line]
            kind, buf = None, []
            continue
        if _ITEM_RE.match(line):
            if kind is not None:
                yield kind, start, buf
            kind, start, buf = "item", number, [line]
            continue
        if kind is None:
            kind, start, buf = "paragraph", number, [line]
        else:
            buf.append(line)  # a continuation line of a paragraph or item
    if kind is not None:
        yield kind, start, buf


def _pieces(
    block_lines: list[str], start: int, block: int, max_tokens: int, max_chars: int
) -> list[_Piece]:
    """The block as one piece, or — when too long — its lines, each split further if needed."""
    whole = "\n".join(block_lines)
    tokens = estimate_tokens(whole)
    if tokens <= max_tokens and len(whole) <= max_chars:
        return [_Piece(whole, start, start + len(block_lines) - 1, tokens, block)] if tokens else []
    out = []
    for offset, line in enumerate(block_lines):
        for part, n in _split_text(line, max_tokens, max_chars, 0):
            if n:
                out.append(_Piece(part, start + offset, start + offset, n, block))
    return out


def _windows(
    block_lines: list[str], start: int, block: int, max_tokens: int, max_chars: int,
    size: int, step: int,
) -> list[tuple[list[_Piece], bool]]:
    """Overlapping windows of up to `size` consecutive lines, starting every `step` lines,
    each with True, or False for a chunk of the parts of an over-long line.

    A window stops early at the token or character budget (it always holds at least one
    line); a line that alone exceeds the budget is split as `_pieces` splits it and
    packed into chunks of its own. The next window never starts past the line after the
    previous window's end, so every line is in some window; the last window ends at the
    block's last line.
    """
    lines = [
        _pieces([line], start + i, block, max_tokens, max_chars)
        for i, line in enumerate(block_lines)
    ]
    costs = [sum(p.tokens for p in parts) for parts in lines]
    sizes = [sum(len(p.text) + 2 for p in parts) for parts in lines]  # +2: a separator each
    over = [c > max_tokens or z - 2 > max_chars for c, z in zip(costs, sizes, strict=True)]
    n = len(lines)
    out: list[tuple[list[_Piece], bool]] = []
    first = 0
    while first < n:
        if over[first]:  # an over-long line: its parts, packed to the budget
            group: list[_Piece] = []
            used = chars = 0
            for part in lines[first]:
                if group and (used + part.tokens > max_tokens
                              or chars + len(part.text) > max_chars):
                    out.append((group, False))
                    group, used, chars = [], 0, 0
                group.append(part)
                used += part.tokens
                chars += len(part.text) + 2
            out.append((group, False))
            first += 1
            continue
        window: list[_Piece] = []
        used = chars = 0
        last = first
        for i in range(first, min(n, first + size)):
            if i > first and (used + costs[i] > max_tokens or chars + sizes[i] - 2 > max_chars):
                break
            window.extend(lines[i])
            used += costs[i]
            chars += sizes[i]
            last = i
        if window:
            out.append((window, True))
        if last >= n - 1:
            break
        # step on; but a window cut short by an over-long line is not re-cut into tails
        blocked = last + 1 < n and over[last + 1]
        first = last + 1 if blocked else min(first + step, last + 1)
    return [(w, is_window) for w, is_window in out if w]


def _split_text(text: str, max_tokens: int, max_chars: int, level: int) -> list[tuple[str, int]]:
    """(text, tokens) parts of one line, each within the budget, rejoinable with spaces.

    Parts are as fine as needed (sentences, else words); chunk_file packs them again,
    so the first part can still share a chunk with the heading above it. A line longer
    than LONG_LINE_CHARS goes to the linear cutter instead.
    """
    if len(text) > LONG_LINE_CHARS:
        return _cut_long_line(text, max_tokens, max_chars)
    n = estimate_tokens(text)
    if n <= max_tokens and len(text) <= max_chars:
        return [(text, n)]
    while level < len(_SPLITTERS):
        parts = [p.strip() for p in _SPLITTERS[level].split(text)]
        parts = [p for p in parts if p]
        level += 1
        if len(parts) > 1:
            return [q for p in parts for q in _split_text(p, max_tokens, max_chars, level)]
    mid = len(text) // 2  # one huge "word" (a hash, a CJK run without punctuation)
    return (_split_text(text[:mid], max_tokens, max_chars, level)
            + _split_text(text[mid:], max_tokens, max_chars, level))


def _cut_long_line(text: str, max_tokens: int, max_chars: int) -> list[tuple[str, int]]:
    """A very long line cut in one pass into parts of at most `max_tokens` and `max_chars`.

    Each part is the longest that fits (found by bisection: the estimate never shrinks
    as a prefix grows, and never exceeds the prefix's length), then moved back to the
    last sentence end in its second half, else the last space there, else cut as is.
    Every estimate reads at most `max_chars` characters, so the work is linear in the
    line, and the parts are few and large (not one per word).
    """
    out: list[tuple[str, int]] = []
    n = len(text)
    pos = 0
    while (m := _NON_SPACE_RE.search(text, pos)) is not None:
        pos = m.start()
        end = _longest_fit(text, pos, min(n, pos + max_chars), max_tokens)
        cut = resume = end
        if end < n and not text[end].isspace():
            half = pos + (end - pos + 1) // 2
            for splitter in _SPLITTERS:
                last = None
                for last in splitter.finditer(text, half, end):  # noqa: B007 - keep the last
                    pass
                if last is not None and last.start() > pos:
                    cut, resume = last.start(), last.end()
                    break
        part = text[pos:cut].rstrip()
        if part:
            out.append((part, estimate_tokens(part)))
        pos = max(resume, cut)
    return out


def _longest_fit(text: str, pos: int, end: int, max_tokens: int) -> int:
    """The largest e in (pos, end] with estimate_tokens(text[pos:e]) <= max_tokens."""
    window = text[pos:end]
    if window.isascii():  # bisection over C-speed estimates
        if _ascii_tokens(window) <= max_tokens:
            return end
        lo, hi = min(pos + max_tokens, end - 1), end  # est <= length: text[pos:lo] fits
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _ascii_tokens(text[pos:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid
        return lo
    # one pass over the tokens, a CJK run at a time (re-estimating prefixes would re-read
    # non-ASCII text ~12x); the costs are estimate_tokens' own
    used = 0
    for m in _SCAN_RE.finditer(text, pos, end):
        start, stop = m.span()
        cjk, letters = m.group(1) is not None, m.group(2) is not None
        cost = stop - start if cjk else 1 + (stop - start) // 8 if letters else 1
        if used + cost > max_tokens:
            left = max_tokens - used
            if cjk and left:  # one token per character: the first `left` still fit
                return start + left
            if letters and left:  # a prefix of the word still fits
                return start + min(stop - start - 1, (left - 1) * 8 + 7)
            return max(start, pos + 1)
        used += cost
    return end


def _join(pieces: list[_Piece]) -> str:
    parts = [pieces[0].text]
    for prev, piece in zip(pieces, pieces[1:], strict=False):
        if piece.line_start == prev.line_end:
            sep = " "  # two parts of one over-long line
        elif piece.block != prev.block and piece.line_start > prev.line_end + 1:
            sep = "\n\n"  # blocks that had blank lines between them
        else:
            sep = "\n"
        parts.append(sep)
        parts.append(piece.text)
    return "".join(parts)
