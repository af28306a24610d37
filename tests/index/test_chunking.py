"""Chunking: markdown structure, the token bound, context, line ranges, CJK."""

from __future__ import annotations

import random

import pytest

from reme_workbench.index import chunking
from reme_workbench.index.chunking import chunk_file
from reme_workbench.vault import tokens
from reme_workbench.vault.tokens import estimate_tokens

NOTE = """\
---
name: jwt-rotation
description: How we rotate JWT signing keys.
date: 2026-10-05
tags: [auth]
---
# Rotation

Keys rotate every 30 days. The old key stays valid for one day.

## Steps

- Generate a new key with `keyctl new`.
  Store it in the vault under `jwt/next`.
- Publish the JWKS document:
  ```bash
  # not a heading inside code
  jwksctl publish
  ```
- Flip `jwt/current` after an hour.

## Pitfalls

Clients cache the JWKS for an hour.
"""


def lines_of(text: str, start: int, end: int) -> list[str]:
    return text.split("\n")[start - 1 : end]


def test_headings_start_chunks_and_frontmatter_is_not_text():
    chunks = chunk_file("digest/procedure/jwt-rotation.md", NOTE)
    assert [c.text.split("\n", 1)[0] for c in chunks] == ["# Rotation", "## Steps", "## Pitfalls"]
    assert [c.ordinal for c in chunks] == [0, 1, 2]
    assert all("tags:" not in c.text and "description:" not in c.text for c in chunks)
    # the code comment "# not a heading" did not open a section
    assert "jwksctl publish" in chunks[1].text and "# not a heading" in chunks[1].text


def test_context_carries_name_description_date_and_heading_trail():
    chunks = chunk_file("digest/procedure/jwt-rotation.md", NOTE)
    head = "jwt-rotation — How we rotate JWT signing keys. (2026-10-05)"
    assert chunks[0].context == f"{head} › Rotation"
    assert chunks[1].context == f"{head} › Rotation › Steps"
    assert chunks[2].context == f"{head} › Rotation › Pitfalls"


def test_date_from_path_segment_and_name_from_stem():
    text = "Deployed payments-api.\n"
    [chunk] = chunk_file("daily/2026-10-13/deploy.md", text)
    assert chunk.context == "deploy (2026-10-13)"
    [txt] = chunk_file("resource/2026-10-16/rollout-sync.txt", "---\nname: x\n---\nbody\n")
    # a .txt has no frontmatter: every line is text
    assert txt.context == "rollout-sync (2026-10-16)" and txt.text.startswith("---\nname: x")
    [bad] = chunk_file("daily/2026-13-45/x.md", text)
    assert bad.context == "x"  # not a real date


def test_line_ranges_point_into_the_file():
    chunks = chunk_file("digest/procedure/jwt-rotation.md", NOTE, max_tokens=30)
    assert len(chunks) > 3
    for c in chunks:
        file_lines = [ln.rstrip() for ln in lines_of(NOTE, c.line_start, c.line_end)]
        # every line of the chunk is a line of the file in that range, in order
        chunk_lines = [ln for ln in c.text.split("\n") if ln]
        assert chunk_lines == [ln for ln in file_lines if ln], c
    assert chunks[0].line_start == 7  # "# Rotation", after six frontmatter lines


def test_list_items_are_kept_whole_and_split_between():
    chunks = chunk_file("digest/procedure/jwt-rotation.md", NOTE, max_tokens=30)
    steps = [c for c in chunks if c.context.endswith("Steps")]
    assert [c.text.split("\n\n")[-1].split("\n")[0] for c in steps] == [
        "- Generate a new key with `keyctl new`.",
        "- Publish the JWKS document:",
        "- Flip `jwt/current` after an hour.",
    ]
    # the continuation line and the nested code block stay with their item
    assert steps[0].text.endswith("Store it in the vault under `jwt/next`.")
    assert steps[1].text.endswith("```") and (steps[1].line_start, steps[1].line_end) == (15, 19)
    whole = chunk_file("digest/procedure/jwt-rotation.md", NOTE)
    assert [c.text.count("\n- ") for c in whole] == [0, 3, 0]  # packed when they fit


def test_paragraphs_pack_until_the_budget_then_split():
    text = "First paragraph here.\n\nSecond paragraph here.\n\nThird one.\n"
    [packed] = chunk_file("daily/2026-10-05/p.md", text)
    assert packed.text == "First paragraph here.\n\nSecond paragraph here.\n\nThird one."
    split = chunk_file("daily/2026-10-05/p.md", text, max_tokens=5)
    assert [c.text for c in split] == ["First paragraph here.", "Second paragraph here.", "Third one."]
    assert [(c.line_start, c.line_end) for c in split] == [(1, 1), (3, 3), (5, 5)]


@pytest.mark.parametrize(
    "body",
    [
        " ".join(f"Sentence number {i} talks about rotation keys." for i in range(200)),
        " ".join(f"word{i}" for i in range(900)),  # one line, no sentence ends
        "x" * 5000,  # one giant "word"
        "部署失败" * 400,  # CJK without punctuation
        "\n".join(f"line {i} of a long log paragraph" for i in range(300)),
    ],
    ids=["sentences", "words", "giant-word", "cjk-run", "many-lines"],
)
def test_token_bound_always_holds_and_nothing_is_lost(body):
    chunks = chunk_file("resource/2026-10-05/big.md", body + "\n", max_tokens=64)
    assert len(chunks) > 1
    for c in chunks:
        assert 0 < c.tokens <= 64
        assert c.tokens == estimate_tokens(c.text)
    if "\n" in body:  # many lines: overlapping line windows, so every line is in some chunk
        lines = body.split("\n")
        for number, line in enumerate(lines, 1):
            assert any(c.line_start <= number <= c.line_end and line in c.text.split("\n")
                       for c in chunks), line
        return
    joined = "".join("".join(c.text.split()) for c in chunks)
    assert joined == "".join(body.split())


def test_long_paragraph_splits_at_sentence_boundaries():
    body = " ".join(f"Sentence {i} is here." for i in range(60))
    chunks = chunk_file("daily/2026-10-05/s.md", body, max_tokens=40)
    assert all(c.text.startswith("Sentence") and c.text.endswith(".") for c in chunks)
    assert all(c.line_start == c.line_end == 1 for c in chunks)


def test_cjk_tokens_and_sentence_split():
    assert estimate_tokens("部署失败") == 4
    assert estimate_tokens("部署 API deploying") == 2 + 1 + 2  # 9 letters: one 8-block
    body = "。".join("我们今天讨论了家庭网络的隔离方案" for _ in range(40)) + "。"
    chunks = chunk_file("resource/2026-10-11/home-network-zh.md", body, max_tokens=50)
    assert len(chunks) > 1
    assert all(c.tokens <= 50 and c.text.endswith("。") for c in chunks)


def test_estimator_counts_words_punctuation_and_long_words():
    assert estimate_tokens("") == 0
    assert estimate_tokens("deploy the api") == 3
    assert estimate_tokens("internationalization") == 1 + 2  # 20 letters: two 8-blocks
    assert estimate_tokens("digest/wiki/x.md") == 7
    # additive over whitespace, which the packer relies on
    assert estimate_tokens("a.b c") == estimate_tokens("a.b") + estimate_tokens("c")


def test_ascii_fast_path_agrees_with_the_regex():
    rng = random.Random(5)
    alphabet = "abcXYZ019 _.-/#[]()\t\n\x0b\x1c\x00é"
    for _ in range(3000):
        s = "".join(rng.choice(alphabet[:-1]) for _ in range(rng.randint(0, 60)))
        slow = len(tokens._TOKEN_RE.findall(s)) + len(tokens._LONG_RE.findall(s))
        assert estimate_tokens(s) == slow, repr(s)


def _slow_estimate(s: str) -> int:
    return len(tokens._TOKEN_RE.findall(s)) + len(tokens._LONG_RE.findall(s))


MIXED = "abcdefghXY019 _.-。，！部署失败网络ёжé가\t"


def test_cjk_run_path_agrees_with_the_regex():
    rng = random.Random(6)
    for _ in range(3000):
        s = "".join(rng.choice(MIXED) for _ in range(rng.randint(0, 80)))
        assert estimate_tokens(s) == _slow_estimate(s), repr(s)


def test_longest_fit_is_the_longest_prefix_within_the_budget():
    """The linear cutter's bisection (ASCII) and token scan (the rest) both find the
    longest prefix whose estimate fits, as estimate_tokens counts it."""
    rng = random.Random(7)
    for alphabet in (MIXED, "abcdefghijk .,;", "部署失败", "xyzw"):
        for _ in range(400):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 400)))
            budget = rng.randint(1, 40)
            pos = rng.randrange(len(text) - 1)
            end = min(len(text), pos + rng.randint(budget, 300))
            e = chunking._longest_fit(text, pos, end, budget)
            assert pos < e <= end
            assert estimate_tokens(text[pos:e]) <= budget, (text, pos, e)
            if e < end:
                assert estimate_tokens(text[pos:e + 1]) > budget, (text, pos, e, budget)


def test_other_file_types_and_empty_bodies_give_no_chunks():
    assert chunk_file("resource/2026-10-05/diagram.png", "binary-ish") == []
    assert chunk_file("digest/wiki/empty.md", "---\nname: empty\n---\n") == []
    assert chunk_file("digest/wiki/blank.md", "\n\n   \n") == []
    with pytest.raises(ValueError):
        chunk_file("digest/wiki/x.md", "x", max_tokens=0)


def test_broken_frontmatter_is_still_skipped():
    text = "---\nname: [unclosed\n---\nBody text.\n"
    [chunk] = chunk_file("digest/wiki/broken.md", text)
    assert chunk.text == "Body text." and chunk.context == "broken" and chunk.line_start == 4


TRANSCRIPT = "# Sync, 2026-10-16\n\n" + "\n".join(
    f"[00:{i:02d}] {'Mei' if i % 2 else 'Oskar'}: point number {i} about the pgbouncer rollout "
    + "and more words " * 6
    for i in range(12)
) + "\n\nAfterwards: one short paragraph.\n"


def test_long_line_structured_blocks_become_overlapping_line_windows():
    chunks = chunk_file("resource/2026-10-16/sync.md", TRANSCRIPT)
    windows = [c for c in chunks if "[00:" in c.text]
    # the heading joins the first window; then one 3-line window starting at every line
    assert windows[0].text.startswith("# Sync, 2026-10-16\n\n[00:00]")
    assert [(c.line_start, c.line_end) for c in windows] == [(1, 5)] + [
        (n, n + 2) for n in range(4, 13)
    ]
    for c in windows:  # each window is exactly the file's lines in its range
        assert [ln for ln in c.text.split("\n") if ln] == [
            ln.rstrip() for ln in lines_of(TRANSCRIPT, c.line_start, c.line_end) if ln
        ]
    # adjacent lines always share a window; the paragraph after the block is its own chunk
    assert chunks[-1].text == "Afterwards: one short paragraph."
    assert all(c.tokens <= 256 for c in chunks)


def test_short_blocks_and_prose_are_packed_as_before():
    few = "\n".join(f"line {i}" for i in range(5)) + "\n"  # under WINDOW_MIN_LINES
    assert len(chunk_file("daily/2026-10-05/few.md", few)) == 1
    fits = "\n".join(f"line {i}" for i in range(40)) + "\n"  # many lines, but fits in one chunk
    [one] = chunk_file("daily/2026-10-05/fits.md", fits)
    assert (one.line_start, one.line_end) == (1, 40)
    assert chunk_file("digest/procedure/jwt-rotation.md", NOTE) == chunk_file(
        "digest/procedure/jwt-rotation.md", NOTE, window_lines=0
    )
    # window_lines=0 restores plain packing of a long block
    plain = chunk_file("resource/2026-10-16/sync.md", TRANSCRIPT, window_lines=0)
    assert len(plain) < len(chunk_file("resource/2026-10-16/sync.md", TRANSCRIPT))
    with pytest.raises(ValueError):
        chunk_file("daily/2026-10-05/x.md", "x", window_lines=3, window_step=4)


def test_a_window_never_spans_an_over_long_line():
    text = "\n".join(f"line {i} " + ("long " * 100 if i == 3 else "") for i in range(8))
    chunks = chunk_file("daily/2026-10-05/x.md", text, max_tokens=64)
    assert [(c.line_start, c.line_end) for c in chunks] == [
        (1, 3), (4, 4), (4, 4), (5, 7), (6, 8)
    ]
    assert all(c.tokens <= 64 for c in chunks)


def test_a_dated_bullet_with_its_own_source_is_a_chunk_of_its_own():
    """A note that gathers several sessions (a conversation's dated bullets, docs/spec.md
    §5.2.8) is chunked one record per chunk, so a hit's lines name the session it matched;
    bullets without a source of their own are packed as before."""
    note = ("---\nname: ada-s-ceramics-class\ndescription: Ada joined a ceramics class.\n---\n"
            "- **2026-03-02**: Ada joined a ceramics class. (derived_from:: [[daily/2026-03-02/s1.md]])\n"
            "- **2026-03-09**: Ada glazed her bowls. (derived_from:: [[daily/2026-03-09/s2.md]])\n"
            "- a plain bullet\n- another plain bullet\n")
    chunks = chunk_file("digest/wiki/ada-s-ceramics-class.md", note)
    assert [c.text for c in chunks] == [
        "- **2026-03-02**: Ada joined a ceramics class. (derived_from:: [[daily/2026-03-02/s1.md]])",
        "- **2026-03-09**: Ada glazed her bowls. (derived_from:: [[daily/2026-03-09/s2.md]])",
        "- a plain bullet\n- another plain bullet",
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(5, 5), (6, 6), (7, 8)]
    # a record's day in words joins its context: a question names it "in March"
    head = "ada-s-ceramics-class — Ada joined a ceramics class."
    assert [c.context for c in chunks] == [f"{head} › 2 March 2026", f"{head} › 9 March 2026", head]


# -- what is embedded: chunking.ChunkRules (issue #32 item 2) ------------------------------

LOG = "daily/2026-10-05/chat.md"


def chat_log(lines: int) -> str:
    return "# Chat\n\n" + "\n".join(
        f"**{'Mei' if i % 2 else 'Oskar'}** (D1:{i}): remark {i} about pgbouncer" + " and more" * 20
        for i in range(lines)) + "\n"


@pytest.mark.parametrize("lines", [6, 7, 8, 20, 31])
def test_a_cover_embeds_each_line_of_a_log_once_and_keeps_every_window_for_keywords(lines):
    text = chat_log(lines)
    every = chunking.plan_file(LOG, text)
    cover = chunking.plan_file(LOG, text, rules=chunking.ChunkRules(embed_windows="cover"))
    assert cover.chunks == every.chunks  # the keyword index gets every window, as before
    assert not cover.sampled  # leaving windows out is the rule, not the budget
    embedded = [c for c in cover.chunks if c.ordinal in cover.embedded]
    # every line of the file is in an embedded chunk: no remark is lost to the vectors
    held = {n for c in embedded for n in range(c.line_start, c.line_end + 1)}
    assert held >= set(range(3, lines + 3))
    for i in range(lines):
        assert any(f"remark {i} about" in c.text for c in embedded)
    # the fewest windows that hold them: every third, and the last when lines are left
    assert len(every.chunks) == lines - 2
    assert len(embedded) == -(-lines // 3)
    for i in range(lines):  # once; a line of the last window may be in the one before too
        times = sum(f"remark {i} about" in c.text for c in embedded)
        assert times == 1 or (times == 2 and i >= lines - 3)


@pytest.mark.parametrize("lines", [6, 7, 8, 20, 31])
def test_pairs_embed_every_two_adjacent_lines_of_a_log_together(lines):
    text = chat_log(lines)
    every = chunking.plan_file(LOG, text)
    pairs = chunking.plan_file(LOG, text, rules=chunking.ChunkRules(embed_windows="pairs"))
    assert pairs.chunks == every.chunks and not pairs.sampled
    embedded = [c for c in pairs.chunks if c.ordinal in pairs.embedded]
    for i in range(lines - 1):  # a turn and the reply to it are in one embedded window
        assert any(f"remark {i} about" in c.text and f"remark {i + 1} about" in c.text
                   for c in embedded)
    # windows of 3 lines: every other one, and the last
    assert len(embedded) == -(-(lines - 1) // 2)


def test_a_cover_embeds_every_part_of_an_over_long_line():
    text = "\n".join(f"line {i} " + ("long " * 100 if i == 3 else "") for i in range(12))
    rules = chunking.ChunkRules(max_tokens=64, embed_windows="cover")
    plan = chunking.plan_file("daily/2026-10-05/x.md", text, rules=rules)
    parts = [c for c in plan.chunks if c.line_start == c.line_end == 4]
    assert len(parts) == 2 and all(c.ordinal in plan.embedded for c in parts)
    embedded = [c for c in plan.chunks if c.ordinal in plan.embedded]
    assert {n for c in embedded for n in range(c.line_start, c.line_end + 1)} == set(range(1, 13))


def test_the_context_line_is_embedded_unless_the_rules_leave_it_out():
    [chunk, *_] = chunk_file("digest/procedure/jwt-rotation.md", NOTE)
    assert chunking.embed_text(chunk) == f"{chunk.context}\n{chunk.text}"
    assert chunking.embed_text(chunk, chunking.ChunkRules(embed_context="none")) == chunk.text


def test_chunk_rules_are_checked_and_named():
    assert chunking.DEFAULT_RULES.key == ""  # the index's own rules: its schema as it is
    assert chunking.ChunkRules(window_lines=2).key == (
        f"t256-w2s1-{chunking.DEFAULT_RULES.embed_windows}-{chunking.DEFAULT_RULES.embed_context}")
    for bad in ({"embed_windows": "some"}, {"embed_context": "half"}, {"window_step": 4},
                {"max_tokens": 0}):
        with pytest.raises(ValueError):
            chunking.ChunkRules(**bad)
