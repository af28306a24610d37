"""vault.frontmatter: one reader of YAML frontmatter, so the note parser, the scan and the
chunker agree on where the block is, what it holds and when it is bad."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from reme_workbench.errors import NoteError
from reme_workbench.index.chunking import chunk_file
from reme_workbench.vault import field_text, find_frontmatter, load_frontmatter, read_frontmatter
from reme_workbench.vault.note import parse
from reme_workbench.vault.scan import VaultScan

P = "digest/wiki/n.md"


def test_read_frontmatter_returns_the_mapping_and_the_span():
    text = "\ufeff---\r\nname: n\r\ndescription: d\r\n---\r\nbody\r\n"
    data, span = read_frontmatter(text, P)
    assert data == {"name": "n", "description": "d"}
    assert span == find_frontmatter(text) and text[span.end :] == "body\r\n"
    assert read_frontmatter("no block\n", P) == ({}, None)
    assert read_frontmatter("---\n# only a comment\n---\n", P)[0] == {}
    assert read_frontmatter("---\nname: x\nno closing fence\n", P) == ({}, None)


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("name: [unclosed", "not valid YAML"),
        ("- a\n- b", "not a mapping"),
        ("a: &x [*x]", "refers to itself"),
        ("date: 2026-13-45", "not valid YAML"),
    ],
)
def test_bad_frontmatter_is_a_note_error_naming_the_file_and_the_fix(yaml_text, message):
    with pytest.raises(NoteError, match=message) as info:
        load_frontmatter(yaml_text, P, first_line=2)
    assert P in str(info.value) and "remove the frontmatter block" in str(info.value)


def test_the_line_of_a_yaml_error_counts_from_the_file_start():
    with pytest.raises(NoteError, match="line 4"):
        read_frontmatter("---\nname: n\ndescription: d\nbad: x: y\n---\n", P)


def test_deeply_nested_yaml_is_refused_without_crashing_the_process(make_vault):
    # libyaml recurses in C per nesting level and segfaults past ~20,000 levels (the scan
    # used to call it directly); the reader hands such text to the pure loader, which
    # refuses it.
    root = make_vault({"digest/wiki/deep.md": "---\na: " + "[" * 200_000 + "]" * 200_000
                       + "\n---\nBody.\n"})
    code = (
        "import sys\n"
        "from reme_workbench.vault.scan import VaultScan\n"
        "record = VaultScan(sys.argv[1], cache=False).records['digest/wiki/deep.md']\n"
        "print('refused', 'not valid YAML' in record.error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, f"the scan died ({out.returncode}): {out.stderr[-500:]}"
    assert out.stdout.strip() == "refused True"


def test_deep_flow_nesting_never_reaches_libyaml(monkeypatch):
    """PyYAML wheels before 6.0.4 bundle a libyaml with no nesting limit (the crash above);
    whatever libyaml is installed, such text must not be handed to it."""
    from reme_workbench.vault import frontmatter

    handed: list[str] = []

    class RecordingLoader(yaml.SafeLoader):
        def __init__(self, stream):
            handed.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(frontmatter, "_FAST_LOADER", RecordingLoader)
    assert load_frontmatter("a: [[1]]", P) == {"a": [[1]]} and handed == ["a: [[1]]"]
    with pytest.raises(NoteError, match="not valid YAML"):
        load_frontmatter("a: " + "[" * 5000 + "]" * 5000, P)
    assert len(handed) == 1


def test_field_text_is_the_rule_for_a_name():
    assert field_text("x") == "x" and field_text(2026) == "2026" and field_text(True) == "True"
    assert field_text(None) is None and field_text(["a"]) is None and field_text({"a": 1}) is None


# Frontmatter the readers used to disagree on: the scan read some of these with libyaml
# and no checks while note.parse refused them (or the reverse).
TRICKY = {
    "tab-after-colon.md": "---\nname:\ttab-after-colon\n---\nBody.\n",
    "self-reference.md": "---\nname: self-reference\nloop: &a [*a]\n---\nBody.\n",
    "alias-bomb.md": "---\nname: alias-bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
              for p, c in zip("abcdef", "bcdefg", strict=True))
    + "---\nBody.\n",
    "unclosed.md": "---\nname: [unclosed\n---\nBody.\n",
    "number-name.md": "---\nname: 2026\ndescription: [not, text]\n---\nBody.\n",
    "list.md": "---\n- a\n---\nBody.\n",
    "empty.md": "---\n---\nBody.\n",
    "plain.md": "Body only.\n",
}


@pytest.mark.parametrize("file_name", sorted(TRICKY))
def test_the_scan_the_note_parser_and_the_chunker_agree(make_vault, file_name):
    rel = f"digest/wiki/{file_name}"
    text = TRICKY[file_name]
    root = make_vault({rel: text})
    record = VaultScan(root, cache=False).records[rel]
    try:
        note = parse(text, rel)
    except NoteError as exc:
        assert record.error == str(exc) and record.name is None
        expected_context = file_name[:-3]  # the chunker falls back to the file name
    else:
        assert record.error is None
        assert (record.name, record.description) == (note.name, note.description)
        expected_context = note.name or file_name[:-3]
    [chunk] = chunk_file(rel, text)
    assert chunk.text == "Body." if text != "Body only.\n" else chunk.text == "Body only."
    assert chunk.context.startswith(expected_context)
