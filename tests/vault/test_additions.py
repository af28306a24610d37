"""`only_adds`: the rule for what may be applied without a person (docs/spec.md §3.7.3)."""

from __future__ import annotations

import random

from reme_workbench.vault.additions import lines_not_kept, only_adds

NOTE = b"---\nname: canary\n---\nNever canary on Fridays.\n\nderived_from:: [[daily/a.md]]\n"


def test_appending_and_inserting_lines_only_adds():
    assert only_adds(NOTE, NOTE + b"derived_from:: [[daily/b.md]]\n")
    inserted = NOTE.replace(b"Fridays.\n", b"Fridays.\n> seen again on 2026-11-02\n")
    assert only_adds(NOTE, inserted)
    assert only_adds(None, b"a new file\n") and only_adds(b"", b"x\n")
    assert only_adds(NOTE, NOTE)


def test_a_last_line_without_its_newline_is_kept_when_a_line_follows_it():
    assert only_adds(b"one\ntwo", b"one\ntwo\nthree\n")
    assert not only_adds(b"one\ntwo", b"one\ntwothree\n")


def test_a_rewritten_line_is_counted_whatever_it_became():
    always = NOTE.replace(b"Never canary", b"Always canary")
    assert not only_adds(NOTE, always) and lines_not_kept(NOTE, always) == 1
    two = always.replace(b"name: canary", b"name: canaries")
    assert lines_not_kept(NOTE, two) == 2
    assert lines_not_kept(NOTE, NOTE.replace(b"\n\n", b"\n")) == 1  # a blank line is a line
    assert lines_not_kept(NOTE, NOTE.replace(b"\n", b"\r\n")) == 6  # bytes, not meaning
    assert lines_not_kept(NOTE, NOTE.replace(b"Fridays.", b"Fridays. ")) == 1
    assert lines_not_kept(NOTE, None) == 6  # a delete removes every line


def test_reordered_lines_are_not_an_addition():
    a, b = b"first\n", b"second\n"
    assert not only_adds(a + b, b + a) and lines_not_kept(a + b, b + a) == 1


def test_random_additions_are_additions_and_random_rewrites_are_not():
    rng = random.Random(29)
    lines = [f"line {i}".encode() for i in range(40)]
    for _ in range(200):
        new = list(lines)
        for _ in range(rng.randint(1, 5)):
            new.insert(rng.randint(0, len(new)), f"added {rng.random()}".encode())
        assert only_adds(b"\n".join(lines) + b"\n", b"\n".join(new) + b"\n")
        at = rng.randrange(len(new))
        if new[at] in lines:
            new[at] += b"!"
            assert lines_not_kept(b"\n".join(lines) + b"\n", b"\n".join(new) + b"\n") == 1
