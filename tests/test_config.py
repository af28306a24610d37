from __future__ import annotations

import pytest

from reme_workbench.config import Settings, load_settings
from reme_workbench.errors import RemeError


def test_defaults_are_the_seed_values(tmp_path):
    s = load_settings(tmp_path)
    assert s == Settings()
    assert s.split.token_threshold == 2000
    assert (s.abstract.min_nodes, s.abstract.min_stability, s.abstract.hub_coverage) == (5, 0.7, 0.6)
    assert (s.merge.votes, s.merge.min_agree, s.merge.min_vote_confidence) == (3, 2, 0.8)
    assert (s.archive.tau_update_days, s.archive.centrality_scale, s.archive.threshold) == (60.0, 10.0, 0.15)
    assert s.cooldowns.merge_to_merge_days == 84
    assert s.vault.max_replans == 3


def test_reme_toml_overrides_a_value(tmp_path):
    (tmp_path / "reme.toml").write_text("[abstract]\nmin_nodes = 7\n", encoding="utf-8")
    assert load_settings(tmp_path).abstract.min_nodes == 7


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[abstract\n", "not valid TOML"),
        ("[abstract]\nmin_nodez = 3\n", "abstract.min_nodez"),
        ("[merge]\nvotes = 0\n", "merge.votes"),
        ("[llm]\napi_key = 'sk-123'\n", "REME_LLM_API_KEY"),
    ],
)
def test_bad_settings_fail_with_a_message_naming_the_fix(tmp_path, text, fragment):
    (tmp_path / "reme.toml").write_text(text, encoding="utf-8")
    with pytest.raises(RemeError) as info:
        load_settings(tmp_path)
    assert fragment in str(info.value)
    assert "sk-123" not in str(info.value)
