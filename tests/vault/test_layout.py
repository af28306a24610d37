from __future__ import annotations

import os

import pytest

from reme_workbench.errors import UnsafePathError
from reme_workbench.vault.layout import (
    BUCKETS,
    FALLBACK_BUCKET,
    MAX_SUB_FOLDERS,
    bucket_of,
    check_writable,
    is_digest_note,
    normalize_rel,
    resolve_inside,
)


def test_buckets_are_the_three_from_the_seed_with_wiki_as_fallback():
    assert BUCKETS == ("procedure", "personal", "wiki")
    assert FALLBACK_BUCKET == "wiki"


@pytest.mark.parametrize(
    "rel",
    ["../../etc/passwd", "/etc/passwd", "digest/../../x.md", "digest//x.md", "digest/./x.md",
     "C:/x.md", "digest\\wiki\\x.md", "a\x00b.md", "", "   ", "digest/wiki/con.md", "digest/wiki/LPT1.txt"],
)
def test_normalize_rel_refuses_paths_that_could_leave_the_vault(rel):
    with pytest.raises(UnsafePathError) as info:
        normalize_rel(rel)
    assert str(info.value)  # a message a user can act on


def test_normalize_rel_keeps_odd_but_legal_names():
    assert normalize_rel("./digest/wiki/用户 偏好 #1.md") == "digest/wiki/用户 偏好 #1.md"


def test_bucket_and_digest_note_detection():
    assert bucket_of("digest/personal/x.md") == "personal"
    assert bucket_of("digest/other/x.md") is None
    assert is_digest_note("digest/wiki/x.md")
    assert not is_digest_note("digest/wiki/x.png")
    assert not is_digest_note("daily/2026-10-05/x.md")


def test_check_writable_enforces_layers_and_buckets():
    assert check_writable("digest/wiki/x.md") == "digest/wiki/x.md"
    assert check_writable("meta/communities.json") == "meta/communities.json"
    for rel in ["daily/2026-10-05/x.md", "resource/2026-10-05/x.md"]:
        with pytest.raises(UnsafePathError, match="source material"):
            check_writable(rel)
        assert check_writable(rel, allow_sources=True) == rel
    with pytest.raises(UnsafePathError, match="bucket"):
        check_writable("digest/knowledge/x.md")
    with pytest.raises(UnsafePathError, match="bucket"):
        check_writable("digest/x.md")
    # a person's folder tree under the bucket (docs/spec.md §1.2.3), to a bound
    deepest = "digest/wiki/" + "/".join(f"f{i}" for i in range(MAX_SUB_FOLDERS)) + "/x.md"
    assert check_writable("digest/wiki/Courses/Linux/x.md") == "digest/wiki/Courses/Linux/x.md"
    assert check_writable(deepest) == deepest
    with pytest.raises(UnsafePathError, match="too deep"):
        check_writable(deepest.replace("/x.md", "/one-more/x.md"))
    with pytest.raises(UnsafePathError, match="markdown"):
        check_writable("digest/wiki/x.txt")
    with pytest.raises(UnsafePathError, match="cache"):
        check_writable(".reme/scan.db")
    with pytest.raises(UnsafePathError, match="layers"):
        check_writable("elsewhere/x.md")


def test_resolve_inside_refuses_a_symlink_anywhere_on_the_way(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    vault = tmp_path / "vault"
    (vault / "digest").mkdir(parents=True)
    os.symlink(outside, vault / "digest" / "wiki")
    with pytest.raises(UnsafePathError, match="symlink"):
        resolve_inside(vault, "digest/wiki/x.md")
    # a plain path that does not exist yet is fine
    assert resolve_inside(vault, "digest/personal/x.md") == vault / "digest/personal/x.md"


def test_resolve_inside_refuses_a_symlinked_file(tmp_path):
    (tmp_path / "digest" / "wiki").mkdir(parents=True)
    target = tmp_path / "secret.txt"
    target.write_text("x")
    os.symlink(target, tmp_path / "digest" / "wiki" / "x.md")
    with pytest.raises(UnsafePathError):
        resolve_inside(tmp_path, "digest/wiki/x.md")
