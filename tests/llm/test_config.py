from __future__ import annotations

import pytest

from reme_workbench.config import Settings, load_settings
from reme_workbench.errors import RemeError
from reme_workbench.vault.note import MAX_NOTE_BYTES


def test_defaults_are_the_seed_values(tmp_path):
    s = load_settings(tmp_path)
    assert s == Settings()
    assert s.split.token_threshold == 2000
    assert (s.recall.rrf_k, s.recall.traverse_depth, s.recall.fusion) == (60, 2, "rrf")
    assert s.vault.max_replans == 3
    assert s.vault.max_note_bytes == MAX_NOTE_BYTES  # the library's default limit


def test_reme_toml_overrides_a_value(tmp_path):
    (tmp_path / "reme.toml").write_text("[split]\ntoken_threshold = 700\n", encoding="utf-8")
    assert load_settings(tmp_path).split.token_threshold == 700


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[split\n", "not valid TOML"),
        ("[split]\ntoken_treshold = 3\n", "split.token_treshold"),
        ("[vault]\nmax_replans = 0\n", "vault.max_replans"),
        ("[llm]\napi_key = 'sk-123'\n", "REME_LLM_API_KEY"),
        # the number of votes is the brain's three judges, not a setting: refused
        ("[merge]\nvotes = 3\n", "merge.votes"),
        ("[abstract]\nmin_pillars = 6\n", "min_pillars must not exceed max_pillars"),
        ("[merge]\nmin_agree = 4\n", "merge.min_agree"),
        ("[merge]\nmin_body_overlap = 1.5\n", "merge.min_body_overlap"),
    ],
)
def test_bad_settings_fail_with_a_message_naming_the_fix(tmp_path, text, fragment):
    (tmp_path / "reme.toml").write_text(text, encoding="utf-8")
    with pytest.raises(RemeError) as info:
        load_settings(tmp_path)
    assert fragment in str(info.value)
    assert "sk-123" not in str(info.value)


def test_min_agree_counts_at_most_the_judges_there_are():
    """The merge phase trusts the settings: agreeing votes can be at most the votes asked."""
    from pydantic import ValidationError

    from reme_workbench.config import MergeSettings
    from reme_workbench.llm.consolidate import JUDGES

    assert MergeSettings(min_agree=JUDGES).min_agree == JUDGES
    with pytest.raises(ValidationError):
        MergeSettings(min_agree=JUDGES + 1)
