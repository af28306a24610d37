"""File-name slugs from free text (typically the `name` an LLM proposes for a note).

A slug is safe on every filesystem an Obsidian vault lives on: no separators, no dots,
no Windows device names, bounded length. Latin text becomes lowercase ASCII
kebab-case; letters and digits of other scripts (CJK, Cyrillic, ...) are kept, since a
vault in Chinese deserves Chinese file names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from ..errors import RemeError, UnsafePathError
from .layout import BUCKETS, check_writable

__all__ = ["MAX_SLUG_LENGTH", "slugify", "note_path", "free_slug"]

MAX_SLUG_LENGTH = 80
# Room for the longest reserved name plus "-note", so the reserved-name fix always fits.
_MIN_MAX_LENGTH = 10
_MAX_TRIES = 1000

# Latin letters with no Unicode decomposition still have a usual ASCII spelling.
_LATIN_FOLD = {
    "ß": "ss",
    "æ": "ae",
    "œ": "oe",
    "ø": "o",
    "đ": "d",
    "ð": "d",
    "þ": "th",
    "ł": "l",
    "ı": "i",
    "ħ": "h",
    "ŧ": "t",
    "ŋ": "ng",
}

# Windows device names (case-insensitive, any extension): `con.md` cannot be opened.
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"com{i}" for i in range(1, 10)]
    + [f"lpt{i}" for i in range(1, 10)]
)


def slugify(text: str, *, max_length: int = MAX_SLUG_LENGTH, keep_accents: bool = False) -> str:
    """A slug for `text`, e.g. "Café Résumé" -> "cafe-resume", "用户偏好 设置" -> "用户偏好-设置".

    `keep_accents` keeps a Latin letter's accents ("Funções" -> "funções", composed as
    NFC): for names made of a person's own words in their language (a hub's). A slug
    with accents is a slug: `note_path` and `free_slug` take both.

    Raises RemeError when nothing usable is left (only punctuation, emoji, spaces).
    """
    if max_length < _MIN_MAX_LENGTH:
        raise ValueError(f"max_length must be at least {_MIN_MAX_LENGTH}, got {max_length}.")
    # NFKC first folds compatibility forms (full-width, ligatures, superscripts) into
    # plain ones, so "ＣＯＭ１" cannot slip past the reserved-name check.
    folded = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for cluster in _clusters(unicodedata.normalize("NFKD", folded)):
        base = cluster[0]
        if base.isascii() and base.isalnum():
            # ASCII letter + accents -> the bare letter, or the letter as written when the
            # name is a word of the person's language (a hub's "Funções", not "funcoes")
            out.append(unicodedata.normalize("NFC", cluster) if keep_accents else base)
        elif base in _LATIN_FOLD:
            out.append(_LATIN_FOLD[base])
        elif unicodedata.category(base)[0] in "LN" and not base.isascii():
            # Any other script's letter or digit, re-composed with its marks.
            out.append(unicodedata.normalize("NFKC", cluster))
        elif not out or out[-1] != "-":
            out.append("-")  # every other run of characters is one separator
    # Concatenated pieces can compose further (Hangul jamo), so normalise the whole.
    slug = unicodedata.normalize("NFKC", "".join(out)).strip("-")
    slug = _truncate(slug, max_length)
    if not slug:
        raise RemeError(
            f"Cannot make a file name from {text[:100]!r}: it has no letters or digits; "
            "give the note a name with letters or digits."
        )
    if slug in _RESERVED:
        slug += "-note"  # Windows would treat `con.md` as the console device
    return slug


def note_path(bucket: str, slug: str) -> str:
    """`digest/<bucket>/<slug>.md`, after checking bucket and slug."""
    if bucket not in BUCKETS:
        raise UnsafePathError(
            f"Unknown bucket {bucket!r}; digest notes live in one of: {', '.join(BUCKETS)}."
        )
    _check_slug(slug)
    return check_writable(f"digest/{bucket}/{slug}.md")


def free_slug(slug: str, exists: Callable[[str], bool]) -> str:
    """`slug` if `exists(slug)` is false, else the first free `slug-2`, `slug-3`, ...

    The base is shortened when needed so the result stays within MAX_SLUG_LENGTH.
    """
    _check_slug(slug)
    if not exists(slug):
        return slug
    for n in range(2, _MAX_TRIES + 1):
        suffix = f"-{n}"
        base = _hard_cut(slug, MAX_SLUG_LENGTH - len(suffix)).rstrip("-")
        candidate = base + suffix
        if not exists(candidate):
            return candidate
    raise RemeError(
        f"No free file name for {slug!r} after {_MAX_TRIES} tries ({slug}-2 ... "
        f"{slug}-{_MAX_TRIES} all exist); choose a more specific name."
    )


# --- helpers --------------------------------------------------------------------------


def _check_slug(slug: str) -> None:
    try:
        ok = isinstance(slug, str) and slugify(slug, keep_accents=True) == slug
    except RemeError:
        ok = False
    if not ok:
        raise UnsafePathError(
            f"{slug!r} is not a slug; call slugify() on the name first.",
            path=slug if isinstance(slug, str) else None,
        )


def _clusters(text: str) -> list[str]:
    """Split decomposed text into base character + following combining marks."""
    clusters: list[str] = []
    for ch in text:
        if clusters and unicodedata.category(ch)[0] == "M":
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def _hard_cut(slug: str, limit: int) -> str:
    """At most `limit` characters, never splitting a letter from its combining marks."""
    if len(slug) <= limit:
        return slug
    cut = limit
    while cut > 0 and unicodedata.category(slug[cut])[0] == "M":
        cut -= 1
    # One letter with more marks than fit: splitting it beats returning nothing.
    return slug[: cut or limit]


def _truncate(slug: str, limit: int) -> str:
    """Bound to `limit`, at a word ("-") boundary unless that would lose over half."""
    if len(slug) <= limit:
        return slug
    boundary = slug.rfind("-", 0, limit + 1)
    if boundary >= limit // 2:
        return slug[:boundary].rstrip("-")
    return _hard_cut(slug, limit).rstrip("-")
