"""Slugs: safe, bounded, idempotent file names from free text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reme_workbench.errors import RemeError, UnsafePathError
from reme_workbench.vault.layout import check_writable
from reme_workbench.vault.slug import MAX_SLUG_LENGTH, free_slug, note_path, slugify

RESERVED = (
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


def assert_slug_rules(slug: str, max_length: int = MAX_SLUG_LENGTH) -> None:
    assert slug, "empty slug"
    assert len(slug) <= max_length
    assert not slug.startswith("-") and not slug.endswith("-")
    assert "--" not in slug
    assert slug not in RESERVED
    assert unicodedata.normalize("NFKC", slug) == slug
    for ch in slug:
        if ch.isascii():
            assert ch.islower() or ch.isdigit() or ch == "-", repr(ch)
        else:
            # Other scripts: letters, digits and their combining marks only.
            assert unicodedata.category(ch)[0] in "LNM", repr(ch)
    assert slug.lower() == slug


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("JWT Rotation", "jwt-rotation"),
        ("  How to: deploy (v2)!  ", "how-to-deploy-v2"),
        ("snake_case and CamelCase", "snake-case-and-camelcase"),
        ("Café Résumé", "cafe-resume"),
        ("Ærøskøbing Straße", "aeroskobing-strasse"),
        ("İstanbul", "istanbul"),
        ("用户偏好 设置", "用户偏好-设置"),
        ("한국어 노트", "한국어-노트"),
        ("がぎぐ", "がぎぐ"),  # dakuten are part of the letter, not an accent to strip
        ("Привет мир", "привет-мир"),
        ("🎉 party 🎉", "party"),
        ("deploy 🚀 now", "deploy-now"),
        ("../../etc/passwd", "etc-passwd"),
        ("..\\..\\windows", "windows"),
        (".hidden", "hidden"),
        ("a\x00b", "a-b"),
        ("ＦＵＬＬ ｗｉｄｔｈ", "full-width"),
        ("ﬁle", "file"),
        ("x²", "x2"),
    ],
)
def test_examples(text: str, expected: str) -> None:
    assert slugify(text) == expected


@pytest.mark.parametrize("name", ["CON", "prn", "Aux", "nul", "com1", "LPT9", "ＣＯＭ１", "con."])
def test_windows_reserved_names_get_a_suffix(name: str) -> None:
    slug = slugify(name)
    assert slug.endswith("-note")
    assert slug[: -len("-note")] == name.rstrip(".").lower() or name == "ＣＯＭ１"
    check_writable(f"digest/wiki/{slug}.md")  # layout agrees it is not a device name


def test_near_reserved_names_are_left_alone() -> None:
    assert slugify("console") == "console"
    assert slugify("com10") == "com10"


@pytest.mark.parametrize("text", ["", "   ", "!!!", "🎉🎉", "../..", "\x00", "-", "\u0301"])
def test_nothing_usable_raises(text: str) -> None:
    with pytest.raises(RemeError, match="give the note a name with letters or digits"):
        slugify(text)


def test_length_bound_cuts_at_a_word_boundary() -> None:
    text = " ".join(["word"] * 40)  # 199 characters
    slug = slugify(text)
    assert len(slug) <= MAX_SLUG_LENGTH
    assert slug.endswith("word") and set(slug.split("-")) == {"word"}
    assert slugify(text, max_length=12) == "word-word"


def test_length_bound_hard_cuts_one_long_word() -> None:
    assert slugify("x" * 200) == "x" * MAX_SLUG_LENGTH
    # A dash very early would lose most of the text, so cut inside the word instead.
    assert slugify("ab " + "y" * 200, max_length=20) == "ab-" + "y" * 17


def test_length_bound_does_not_split_combining_marks() -> None:
    slug = slugify("क" + "ि" * 30, max_length=10)  # a base letter followed by marks
    assert len(slug) <= 10
    assert unicodedata.category(slug[0])[0] == "L"


def test_max_length_too_small_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        slugify("abc", max_length=3)


@given(st.text())
def test_slugify_obeys_its_rules_and_is_idempotent(text: str) -> None:
    try:
        slug = slugify(text)
    except RemeError:
        return
    assert_slug_rules(slug)
    assert slugify(slug) == slug
    assert note_path("wiki", slug) == f"digest/wiki/{slug}.md"


@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1), st.integers(10, 120))
def test_slugify_respects_any_max_length(text: str, max_length: int) -> None:
    try:
        slug = slugify(text, max_length=max_length)
    except RemeError:
        return
    assert_slug_rules(slug, max_length)
    assert slugify(slug, max_length=max_length) == slug


# --- note_path ------------------------------------------------------------------------------


def test_note_path() -> None:
    assert note_path("procedure", "deploy") == "digest/procedure/deploy.md"
    assert note_path("personal", "用户偏好") == "digest/personal/用户偏好.md"


def test_note_path_refuses_unknown_bucket_listing_the_three() -> None:
    with pytest.raises(UnsafePathError) as info:
        note_path("notes", "x")
    assert all(b in str(info.value) for b in ("procedure", "personal", "wiki"))


@pytest.mark.parametrize(
    "slug", ["Upper", "a/b", "../x", "con", "", "a--b", "-a", "x.md", "a" * 81]
)
def test_note_path_refuses_non_slugs(slug: str) -> None:
    with pytest.raises(UnsafePathError, match="slugify"):
        note_path("wiki", slug)


# --- free_slug ------------------------------------------------------------------------------


def test_free_slug_returns_slug_when_free() -> None:
    assert free_slug("x", lambda s: False) == "x"


def test_free_slug_counts_up_and_passes_candidates() -> None:
    taken = {"x", "x-2", "x-3"}
    seen: list[str] = []

    def exists(candidate: str) -> bool:
        seen.append(candidate)
        return candidate in taken

    assert free_slug("x", exists) == "x-4"
    assert seen == ["x", "x-2", "x-3", "x-4"]


def test_free_slug_stays_within_the_length_bound() -> None:
    long = "a" * MAX_SLUG_LENGTH
    got = free_slug(long, lambda s: s == long)
    assert got == "a" * (MAX_SLUG_LENGTH - 2) + "-2"
    assert slugify(got) == got


def test_free_slug_does_not_leave_a_double_dash_when_cutting() -> None:
    slug = "a" * (MAX_SLUG_LENGTH - 3) + "-bc"
    got = free_slug(slug, lambda s: s == slug)
    assert "--" not in got and len(got) <= MAX_SLUG_LENGTH
    assert slugify(got) == got


def test_free_slug_gives_up_after_a_thousand() -> None:
    calls = 0

    def always(_: str) -> bool:
        nonlocal calls
        calls += 1
        return True

    with pytest.raises(RemeError, match="No free file name"):
        free_slug("x", always)
    assert calls == 1000


def test_free_slug_refuses_a_non_slug() -> None:
    with pytest.raises(UnsafePathError, match="slugify"):
        free_slug("Not A Slug", lambda s: False)


@given(st.text(min_size=1), st.integers(0, 30))
def test_free_slug_candidates_are_valid_slugs(text: str, taken_count: int) -> None:
    try:
        slug = slugify(text)
    except RemeError:
        return
    taken = {slug} | {f"{slug}-{n}" for n in range(2, taken_count + 2)}
    got = free_slug(slug, lambda s: s in taken)
    assert got not in taken
    assert_slug_rules(got)
    assert slugify(got) == got


def test_a_slug_may_keep_a_latin_letters_accents():
    """A hub named by the community's own words keeps them as written (issue #31):
    "Funções" -> "funções", not "funcoes"; such a slug is still a slug."""
    from reme_workbench.vault.slug import free_slug, note_path

    assert slugify("Funções", keep_accents=True) == "funções"
    assert slugify("Autômato finito", keep_accents=True) == "autômato-finito"
    assert slugify("Café Résumé") == "cafe-resume"  # the default folds them, as before
    assert note_path("wiki", "funções") == "digest/wiki/funções.md"
    assert free_slug("funções", lambda s: s == "funções") == "funções-2"
