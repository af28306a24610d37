"""`Workspace`, the one composition root: it reads reme.toml and the environment, builds
the embedder, the brains and the settings, and takes ready-made ones (a test's, a
notebook's) that every operation then uses."""

from __future__ import annotations

import pytest

from reme_workbench.brains.model import LLMBrain
from reme_workbench.brains.offline_consolidate import OfflineConsolidateBrain
from reme_workbench.brains.scripted import ScriptedBrain
from reme_workbench.config import Settings
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.ops import Workspace

NOTE = "---\nname: canary\ndescription: The canary.\n---\nThe canary.\n"


@pytest.fixture
def root(make_vault):
    return make_vault({"digest/wiki/canary.md": NOTE})


def test_ready_made_brains_are_the_ones_the_operations_get(root):
    dream, consolidate = ScriptedBrain(), ScriptedBrain()
    ws = Workspace(root, embedder=HashingEmbedder(), dream_brain=dream, consolidate_brain=consolidate,
                   brain_spec="litellm:openai/x")  # a ready-made brain wins over a named one
    assert ws.get_dream_brain() == (dream, None)  # a test's brain keeps no token ledger
    assert ws.get_consolidate_brain() is consolidate
    assert ws.get_consolidate_brain(embedder=HashingEmbedder(8)) is consolidate


def test_without_ready_made_ones_the_workspace_builds_them_from_reme_toml(root):
    (root / "reme.toml").write_text('[llm]\nlanguage = "zh"\n[split]\ndispersed_under = 0.3\n')
    ws = Workspace(root, embedder=HashingEmbedder())
    dream, ledger = ws.get_dream_brain()
    assert type(dream).__name__ == "OfflineBrain" and dream.language == "zh" and ledger is None
    merge = ws.get_consolidate_brain()
    assert isinstance(merge, OfflineConsolidateBrain) and merge.embedder is ws.embedder
    assert merge.splitter.dispersed_under == 0.3


def test_with_settings_returns_a_new_workspace_and_the_settings_are_never_assigned(root):
    embedder, brain = HashingEmbedder(), ScriptedBrain()
    ws = Workspace(root, embedder=embedder, dream_brain=brain)
    before = ws.settings
    strict = Settings.model_validate({"abstract": {"min_nodes": 7}})
    other = ws.with_settings(strict)
    assert other is not ws and other.settings is strict and ws.settings is before
    assert other.get_embedder() is embedder and other.get_dream_brain()[0] is brain
    with pytest.raises(AttributeError, match="with_settings"):
        ws.settings = strict
    assert ws.settings is before


def test_with_settings_keeps_the_built_embedder_only_while_it_is_the_same_one(root):
    ws = Workspace(root, embedder_spec=None, settings=Settings.model_validate(
        {"recall": {"embedder": "hashing"}}))
    built = ws.get_embedder()
    assert ws.get_embedder() is built  # kept for the later operations
    same = ws.with_settings(ws.settings.model_copy(update={"merge": ws.settings.merge.model_copy(
        update={"min_agree": 3})}))
    assert same.get_embedder() is built
    other = ws.with_settings(Settings.model_validate({"recall": {"embedder": "hashing:64"}}))
    assert other.get_embedder().dim == 64 and ws.get_embedder() is built
    assert ws.new_embedder() is not built and ws.new_embedder().name == built.name


def test_the_environment_is_read_by_the_workspace_and_reaches_model_brains(root, monkeypatch):
    """$REME_LLM_API_BASE and $REME_LLM_API_KEY are read once, by `from_environment`; the
    brain factory reads no environment (a workspace made without it leaves them out)."""
    env = {"REME_LLM_API_BASE": "http://env:1/v1", "REME_LLM_API_KEY": "sk-env-secret"}
    ws = Workspace.from_environment(root, environ=env, embedder=HashingEmbedder(),
                                    brain_spec="litellm:openai/x")
    dream, _ = ws.get_dream_brain()
    merge = ws.get_consolidate_brain()
    for brain in (dream, merge):
        assert isinstance(brain, LLMBrain) and brain.api_base == "http://env:1/v1"
        assert vars(brain)["_LLMBrain__api_key"] == "sk-env-secret"
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    bare = Workspace(root, embedder=HashingEmbedder(), brain_spec="litellm:openai/x")
    unkeyed, _ = bare.get_dream_brain()
    assert unkeyed.api_base is None and vars(unkeyed)["_LLMBrain__api_key"] is None


def test_a_screen_with_its_own_settings_leaves_the_shared_workspace_alone(make_vault):
    """A screen given its own settings (a notebook's experiment) assigned them to the
    workspace it was handed: every other screen and operation sharing it then ran with
    them. It now gets a workspace of its own (`with_settings`)."""
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    from reme_workbench.widgets import CommunitiesView, ProposalQueueView, UncertainView

    ws = Workspace(make_vault({"digest/wiki/canary.md": NOTE}), embedder=HashingEmbedder())
    shared = ws.settings
    strict = Settings.model_validate({"abstract": {"min_stability": 0.9}})
    for screen in (CommunitiesView, ProposalQueueView, UncertainView):
        view = screen(ws, settings=strict)
        assert view.settings is strict and view.ws.settings is strict
        assert ws.settings is shared, f"{screen.__name__} changed the shared workspace's settings"


def test_one_reader_of_the_litellm_prefix_for_brains_and_embedders():
    """`config.litellm_model` reads `litellm:<model>` for the brain factory and the embedder
    specs alike: the same spare spaces and capitals are read the same by both."""
    from reme_workbench.brains.factory import brain_from_spec
    from reme_workbench.config import litellm_model
    from reme_workbench.errors import RemeError
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.index.specs import check_spec

    assert litellm_model(" LiteLLM: openai/x ") == "openai/x"
    assert [litellm_model(s) for s in ("litellm:", "litellm: ", "openai/x", "offline", None)] == \
        [None] * 5
    assert brain_from_spec(" LiteLLM: openai/x ").model == "openai/x"
    assert get_embedder(" LiteLLM: openai/emb ").name == "litellm:openai/emb"
    for empty in ("litellm:", "litellm:  "):
        with pytest.raises(RemeError, match="litellm:<model>"):
            brain_from_spec(empty)
        with pytest.raises(RemeError, match="name the model"):
            check_spec(empty)
