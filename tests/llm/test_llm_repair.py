"""`extract_json`: the breakage local models really produce, repaired or refused."""

from __future__ import annotations

import pytest

from reme_workbench.llm.repair import extract_json


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Here you go:\n```json\n{"a": 1}\n```\nLet me know!', {"a": 1}),
        ('```json\n{"a": 1}', {"a": 1}),  # unclosed fence: the model stopped early
        ('Sure! The result is {"a": 1} as requested.', {"a": 1}),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ("{'a': 'b', 'c': ['d']}", {"a": "b", "c": ["d"]}),
        ("{'a': 'it's fine'}", {"a": "it's fine"}),  # apostrophe: not followed by a delimiter
        ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
        ('[{"units": []}]', {"units": []}),
        ("\u201ca\u201d: 1", None),  # smart quotes but no object at all -> refused below
        ("{\u201ca\u201d: \u201cb\u201d}", {"a": "b"}),
        ('{"q": "she said \u201chi\u201d"}', {"q": "she said \u201chi\u201d"}),
        ('{"body": "line one\nline two"}', {"body": "line one\nline two"}),
        ('{"body": "a \\_b\\_ c" , }', {"body": "a \\_b\\_ c"}),
        ('{"q": "he said "hi" ok"}', {"q": 'he said "hi" ok'}),
        ('{name: "x"}', {"name": "x"}),
        ('{"a": 1, // why\n "b": 2 /* note */}', {"a": 1, "b": 2}),
        ('<think>maybe {"a": 0}</think>\n{"a": 2}', {"a": 2}),
        ('"{\\"a\\": 1}"', {"a": 1}),  # JSON double-encoded as a string
        ('See [1] and [2]. {"a": 1}', {"a": 1}),  # prose brackets are not the answer
        ("[]", []),
        ('\ufeff{"a": "\\ud83d\\ude00"}', {"a": "\U0001f600"}),
        ('{"zh": "用中文写的“引号”"}', {"zh": "用中文写的“引号”"}),
    ],
)
def test_repairs(text, expected):
    if expected is None:
        with pytest.raises(ValueError):
            extract_json(text)
    else:
        assert extract_json(text) == expected


def test_list_of_several_objects_is_kept():
    assert extract_json('[{"a": 1}, {"a": 2}]') == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I could not find anything worth remembering.",
        '{"a": "truncated bo',  # cut off: must not be completed
        '{"a": 1',
        "[1, 2, 3]",  # not an object
        "<think>only thoughts</think>",
    ],
)
def test_refuses_what_is_not_json(text):
    with pytest.raises(ValueError, match="no readable JSON"):
        extract_json(text)


def test_valid_json_is_never_rewritten():
    # a body full of quotes and backslashes that *is* valid must come back unchanged
    text = '{"body": "path C:\\\\tmp, \\"quoted\\", it\'s, \\u00e9\\n- [[digest/wiki/x.md]]"}'
    assert extract_json(text) == {
        "body": 'path C:\\tmp, "quoted", it\'s, é\n- [[digest/wiki/x.md]]'
    }


def test_rejects_non_string():
    with pytest.raises(TypeError):
        extract_json(b"{}")  # type: ignore[arg-type]
