"""Merge candidates (docs/spec.md §7.7.1): the two gates, communities, cooldowns, order."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from reme_workbench.config import MergeSettings
from reme_workbench.consolidate.candidates import (
    MergeCandidate,
    body_topic_words,
    chance_level,
    description_text,
    mine_candidates,
    topic_overlap,
)
from reme_workbench.consolidate.cooldowns import Cooldowns
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.vault.vault import Vault
from tests.conftest import FIXED_NOW

DAILY = "daily/2026-10-05/deploy.md"


def note(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


DEPLOY_A = note(
    "deploy-payments-api", "How to deploy the payments API to production",
    "# Deploy the payments API\n\n"
    "Run the database migrations first, then roll the payments API out with the canary "
    "script. Watch the error rate dashboard for ten minutes before widening the rollout.\n\n"
    "> [!warning] Never deploy on Friday evening.\n\n"
    "See [[digest/wiki/canary-rollout.md|canary rollout]].\n\n"
    f"derived_from:: [[{DAILY}]]\n",
)
DEPLOY_B = note(
    "payments-api-deploy", "Deploying the payments API to production",
    "Before rolling out the payments API run the database migrations. The canary script "
    "rolls it out; keep an eye on the error rate dashboard, then widen the rollout.\n\n"
    "related_to:: [[digest/wiki/canary-rollout.md]]\n\n"
    "derived_from:: [[daily/2026-10-12/payments.md]]\n",
)
CANARY = note(
    "canary-rollout", "How the canary rollout script shifts traffic",
    "The canary script sends 5 % of traffic to the new version and doubles it every "
    "five minutes while the error budget holds.\n\n"
    f"derived_from:: [[{DAILY}]]\n",
)
# same description words as DEPLOY_A, but a body about something else
LOOKALIKE = note(
    "deploy-payments-api-history", "How to deploy the payments API to production (history)",
    "In 2024 the team moved from Jenkins to GitHub Actions; the old pipeline lived on a "
    "single VM that nobody patched. This page keeps the story for reference.\n\n"
    f"derived_from:: [[{DAILY}]]\n",
)


@pytest.fixture
def vault(make_vault):
    root = make_vault({
        "digest/procedure/deploy-payments-api.md": DEPLOY_A,
        "digest/procedure/payments-api-deploy.md": DEPLOY_B,
        "digest/wiki/canary-rollout.md": CANARY,
        "digest/procedure/deploy-payments-api-history.md": LOOKALIKE,
        "digest/wiki/copy-elsewhere.md": DEPLOY_A.replace("deploy-payments-api", "copy-elsewhere"),
        DAILY: "deploy log\n",
        "daily/2026-10-12/payments.md": "payments log\n",
    })
    return Vault.open(root, clock=lambda: FIXED_NOW)


COMMUNITIES = {
    "digest/procedure/deploy-payments-api.md": "c_00",
    "digest/procedure/payments-api-deploy.md": "c_00",
    "digest/wiki/canary-rollout.md": "c_00",
    "digest/procedure/deploy-payments-api-history.md": "c_00",
    "digest/wiki/copy-elsewhere.md": "c_01",  # identical to A, but another community
}


def test_body_topic_words_drop_provenance_dates_and_markup_and_keep_link_targets():
    body = (
        "# Deploy the payments API\n"
        "derived_from:: [[daily/2026-10-05/log.md]]\n"
        "We deploy on port 8080 since 2026-10-05. related_to:: [[digest/wiki/Kubernetes.md|k8s]]\n"
        "> [!note] Deploys happen on Fridays.\n"
    )
    words = body_topic_words(body)
    assert {"deploy", "payment", "api", "port", "8080", "friday", "[[digest/wiki/kubernetes]]"} <= words
    assert not {w for w in words if "daily" in w or "2026" in w or "derived" in w}
    assert not {"related_to", "note", "the", "on", "k8s", "05"} & words  # alias, callout, stop words


def test_body_topic_words_cut_chinese_with_jieba():
    words = body_topic_words("部署支付接口之前需要先检查数据库迁移。\n")
    assert {"部署", "支付", "接口", "数据库", "迁移"} <= words
    assert not {w for w in words if len(w) < 2}
    assert "需要" not in words  # a function word


def test_topic_overlap_is_the_overlap_coefficient_with_a_floor():
    small = frozenset({"deploy", "payment", "api", "canary", "migration"})
    large = small | {"dashboard", "error", "rate", "rollout", "friday"}
    assert topic_overlap(small, large) == 1.0  # the short note says nothing the long one lacks
    assert topic_overlap(large, small) == 1.0
    two = frozenset({"deploy", "api"})
    assert topic_overlap(two, two) == pytest.approx(2 / 5)  # tiny bodies do not score 1.0
    assert topic_overlap(frozenset(), large) == 0.0


def test_description_text_falls_back_to_the_name_and_the_file_name():
    assert description_text("digest/wiki/x.md", "x", "What x is") == "x: What x is"
    assert description_text("digest/wiki/x.md", "x", None) == "x"
    assert description_text("digest/wiki/x-y.md", None, "  ") == "x-y"


def test_mine_finds_the_duplicates_across_communities_and_not_the_lookalike(vault):
    """Candidates come from the whole digest (docs/spec.md §7.7.1): the identical copy in
    another community is paired too, and the pair says which communities it joins."""
    A, B = "digest/procedure/deploy-payments-api.md", "digest/procedure/payments-api-deploy.md"
    COPY = "digest/wiki/copy-elsewhere.md"
    found = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings())
    assert {(c.a, c.b) for c in found} == {(A, B), (A, COPY), (B, COPY)}
    by_pair = {(c.a, c.b): c for c in found}
    same = by_pair[(A, B)]
    assert same.community == "c_00" and same.communities == ("c_00", "c_00")
    assert same.skipped is None and same.distinct is None
    assert same.description_similarity >= 0.6 and same.body_overlap >= 0.5
    assert same.score == pytest.approx((same.description_similarity + same.body_overlap) / 2)
    across = by_pair[(A, COPY)]
    assert across.communities == ("c_00", "c_01") and across.community_label == "c_00 / c_01"
    assert across.to_json()["communities"] == ["c_00", "c_01"]
    # the lookalike passes gate 1 but not gate 2: its body is about something else
    loose = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings(min_body_overlap=0.0))
    assert ("digest/procedure/deploy-payments-api-history.md", A) in [(c.a, c.b) for c in loose]


def test_mine_is_deterministic_and_sorted_best_first(vault):
    loose = MergeSettings(min_description_similarity=0.0, min_body_overlap=0.0)
    first = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), loose)
    second = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), loose)
    assert first == second
    # every pair of the five notes (both communities) but two: one whose hashed vectors
    # point apart, and the history + the copy in c_01, which name no value alike
    assert len(first) == 8 and all(c.description_similarity >= 0.0 for c in first)
    assert ("digest/procedure/deploy-payments-api-history.md",
            "digest/wiki/copy-elsewhere.md") not in [(c.a, c.b) for c in first]
    scores = [c.score for c in first]
    assert scores == sorted(scores, reverse=True)
    assert all(c.a < c.b for c in first)


def test_a_pair_under_a_merge_cooldown_is_reported_as_skipped(vault):
    cooldowns = Cooldowns(root=vault.root)
    cooldowns.start("digest/procedure/payments-api-deploy.md", "split", FIXED_NOW - timedelta(days=3))
    found = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings(), cooldowns=cooldowns, now=FIXED_NOW)
    cooled = [c for c in found if "payments-api-deploy" in c.a + c.b]
    assert len(cooled) == 2 and all(c.skipped is not None for c in cooled)
    assert all("split" in c.skipped and "split_to_merge_days" in c.skipped for c in cooled)
    assert [c.skipped for c in found if c not in cooled] == [None]  # the other pair is free
    # once the window passed it is a candidate again
    later = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings(), cooldowns=cooldowns,
                            now=FIXED_NOW + timedelta(days=20))
    assert all(c.skipped is None for c in later)


def test_notes_gone_or_unreadable_since_the_communities_are_left_out(vault):
    (vault.root / "digest/procedure/payments-api-deploy.md").unlink()
    vault.refresh()
    stale = {**COMMUNITIES, "digest/wiki/not-there.md": "c_00"}
    found = mine_candidates(vault, stale, HashingEmbedder(), MergeSettings())
    # the note gone and the one never there are in no pair; the copy across is still found
    assert [(c.a, c.b) for c in found] == [("digest/procedure/deploy-payments-api.md",
                                             "digest/wiki/copy-elsewhere.md")]


def test_a_chinese_duplicate_pair_is_found(make_vault):
    a = note("支付接口部署", "如何把支付接口部署到生产环境",
             "部署支付接口之前先执行数据库迁移，然后用灰度脚本发布，观察错误率面板十分钟。\n")
    b = note("生产环境部署支付接口", "把支付接口部署到生产环境的步骤",
             "先执行数据库迁移，再用灰度脚本发布支付接口；发布后观察错误率面板。\n")
    root = make_vault({"digest/procedure/支付接口部署.md": a,
                       "digest/procedure/生产环境部署支付接口.md": b})
    v = Vault.open(root, clock=lambda: FIXED_NOW)
    found = mine_candidates(v, {"digest/procedure/支付接口部署.md": "c_00",
                                "digest/procedure/生产环境部署支付接口.md": "c_00"},
                            HashingEmbedder(), MergeSettings())
    assert len(found) == 1 and found[0].body_overlap >= 0.5


def test_embedding_is_batched_once_per_note(vault, monkeypatch):
    calls = []

    class Counting(HashingEmbedder):
        def embed(self, texts):
            calls.append(len(texts))
            return super().embed(texts)

    monkeypatch.setattr("reme_workbench.consolidate.candidates.EMBED_BATCH", 2)
    monkeypatch.setattr("reme_workbench.consolidate.candidates._CHANCE", {})
    mine_candidates(vault, COMMUNITIES, Counting(), MergeSettings())
    # five notes, each embedded once, then the chance level's ten sentences per language
    assert calls == [2, 2, 1, 10, 10]


def test_an_unnormalised_embedder_still_gives_cosines(vault):
    class Loud(HashingEmbedder):
        def embed(self, texts):
            return super().embed(texts) * 7.0

    assert [c.description_similarity for c in mine_candidates(vault, COMMUNITIES, Loud(), MergeSettings())] == \
        pytest.approx([c.description_similarity
                       for c in mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings())])


def test_candidate_json_rounds_its_figures():
    c = MergeCandidate("digest/wiki/a.md", "digest/wiki/b.md", "c_00", 0.712345, 0.5, None)
    assert c.to_json()["description_similarity"] == 0.7123
    assert c.to_json()["score"] == round((0.712345 + 0.5) / 2, 4)
    assert np.isclose(c.score, 0.6061725)


class Counting(HashingEmbedder):
    """Counts the descriptions embedded (the chance level's reference sentences apart)."""

    def __init__(self, name: str = "hashing-256") -> None:
        super().__init__()
        self.name = name
        self.texts: list[str] = []

    def embed(self, texts):
        from reme_workbench.consolidate.reference import REFERENCE

        reference = {t for sentences in REFERENCE.values() for t in sentences}
        self.texts += [t for t in texts if t not in reference]
        return super().embed(texts)


def test_description_vectors_are_cached_per_embedder_and_text(vault):
    cache = vault.root / ".reme" / "merge_description_vectors-hashing-256.npz"
    first = Counting()
    found = mine_candidates(vault, COMMUNITIES, first, MergeSettings())
    assert len(first.texts) == 5 and cache.is_file()
    warm = Counting()
    assert mine_candidates(vault, COMMUNITIES, warm, MergeSettings()) == found
    assert warm.texts == []  # nothing changed: nothing embedded
    path = vault.root / "digest/wiki/canary-rollout.md"
    path.write_text(CANARY.replace("shifts traffic", "moves traffic"), encoding="utf-8")
    vault.refresh()
    changed = Counting()
    mine_candidates(vault, COMMUNITIES, changed, MergeSettings())
    assert changed.texts == ["canary-rollout: How the canary rollout script moves traffic"]
    other = Counting("litellm:openai/text-embedding-3-small")  # never mixed with another's
    mine_candidates(vault, COMMUNITIES, other, MergeSettings())
    assert len(other.texts) == 5
    assert (vault.root / ".reme/merge_description_vectors-litellm_openai_text-embedding-3-small.npz"
            ).is_file() and cache.is_file()  # each embedder keeps its own


def test_a_damaged_cache_is_embedded_around_and_no_cache_writes_nothing(vault):
    cache = vault.root / ".reme" / "merge_description_vectors-hashing-256.npz"
    cache.parent.mkdir(exist_ok=True)
    cache.write_bytes(b"not a zip file")
    emb = Counting()
    found = mine_candidates(vault, COMMUNITIES, emb, MergeSettings())
    assert len(emb.texts) == 5 and found
    cache.unlink()
    emb = Counting()
    assert mine_candidates(vault, COMMUNITIES, emb, MergeSettings(), cache=False) == found
    assert not cache.exists()


def test_cache_keys_ending_in_a_nul_byte_survive_the_round_trip(tmp_path, monkeypatch):
    from reme_workbench.consolidate import candidates

    (tmp_path / ".reme").mkdir()
    monkeypatch.setattr(candidates, "_text_key", lambda text: text.encode().ljust(16, b"\0")[:16])
    first = Counting()
    candidates.embed_descriptions(tmp_path, first, ["a", "bb"])  # keys b"a\0\0…", b"bb\0…"
    again = Counting()
    vectors = candidates.embed_descriptions(tmp_path, again, ["a", "bb"])
    assert again.texts == [] and vectors.shape == (2, 256)


def test_description_similarity_is_measured_above_the_embedders_chance_level(vault, monkeypatch):
    """An embedder under which unrelated texts already score a cosine of ~0.8 (as e5
    does) must not make every pair a candidate: the gate is the similarity above that."""

    class Crowded(HashingEmbedder):
        def __init__(self):
            super().__init__()
            self.name = "crowded"  # the chance level is kept per embedder name

        def embed(self, texts):
            base = np.ones((len(texts), 1), dtype=np.float32) * 2.0  # a shared direction
            return np.hstack([base, super().embed(texts)])

    monkeypatch.setattr("reme_workbench.consolidate.candidates._CHANCE", {})
    plain = mine_candidates(vault, COMMUNITIES, HashingEmbedder(), MergeSettings())
    crowded = mine_candidates(vault, COMMUNITIES, Crowded(), MergeSettings())
    assert all(c.description_cosine > 0.8 for c in crowded)  # raw cosines are all high
    # measured above chance the same pairs come out, not every pair of the community
    assert [(c.a, c.b) for c in crowded] == [(c.a, c.b) for c in plain]
    assert chance_level(Crowded(), "en") > 0.75 > chance_level(HashingEmbedder(), "en")


# -- description vectors from the index ------------------------------------------------------


def test_the_index_embeds_each_digest_notes_description_once_and_keeps_it_current(vault):
    from reme_workbench.index.store import VaultIndex

    emb = Counting()
    with VaultIndex(vault.root, emb) as idx:
        idx.refresh()
        texts = {p: description_text(p, r.name, r.description)
                 for p, r in vault.scan.records.items() if p.startswith("digest/")}
        stored = idx.description_vectors(texts)
        assert set(stored) == set(texts)  # every digest note, no daily log
        for path, vector in stored.items():
            want = HashingEmbedder().embed([texts[path]])[0]
            assert np.allclose(vector, want / np.linalg.norm(want), atol=1e-6)
        # a description the index did not embed (edited since) is not answered from it
        assert idx.description_vectors({DAILY: "deploy log"}) == {}
        path = "digest/wiki/canary-rollout.md"
        assert idx.description_vectors({path: "canary-rollout: something else"}) == {}
        (vault.root / path).write_text(CANARY.replace("shifts traffic", "moves traffic"))
        idx.refresh()
        new = "canary-rollout: How the canary rollout script moves traffic"
        assert set(idx.description_vectors({path: new})) == {path}
        (vault.root / path).unlink()
        idx.refresh()
        assert idx.description_vectors({path: new}) == {}  # gone with its note
        # an index of another embedder answers nothing: its vectors are of another space
    with VaultIndex(vault.root, Counting("other"), on_embedder_change="reembed") as other:
        assert other.description_vectors({"digest/procedure/deploy-payments-api.md": "x"}) == {}


def test_mining_reads_the_description_vectors_from_the_index(vault):
    from reme_workbench.index.store import VaultIndex

    vault.root.joinpath(".reme").mkdir(exist_ok=True)
    with VaultIndex(vault.root, HashingEmbedder()) as idx:
        idx.refresh()
        emb = Counting()
        with_index = mine_candidates(vault, COMMUNITIES, emb, MergeSettings(), index=idx, cache=False)
        assert emb.texts == []  # nothing embedded: the index had every description
        assert with_index == mine_candidates(vault, COMMUNITIES, Counting(), MergeSettings(), cache=False)
        # a note edited after the index's last refresh is embedded here, the rest not
        path = "digest/procedure/payments-api-deploy.md"
        (vault.root / path).write_text(DEPLOY_B.replace("Deploying the", "Rolling out the"))
        vault.refresh()
        emb = Counting()
        mine_candidates(vault, COMMUNITIES, emb, MergeSettings(), index=idx, cache=False)
        assert emb.texts == ["payments-api-deploy: Rolling out the payments API to production"]


# -- across communities: the values must agree ------------------------------------------------

def test_a_pair_of_two_communities_must_share_its_values(make_vault):
    """Whole-digest mining pairs notes of two communities only when they name the same
    values (docs/spec.md §7.7.1): the same runbook for another service is no duplicate."""
    orders = DEPLOY_A.replace("deploy-payments-api", "deploy-orders-api").replace(
        "payments API", "orders API").replace("Friday", "Monday") + "\nOwned by Priya (team-orders).\n"
    payments = DEPLOY_A + "\nOwned by Mei (team-payments).\n"
    root = make_vault({"digest/procedure/deploy-payments-api.md": payments,
                       "digest/procedure/deploy-orders-api.md": orders,
                       "digest/wiki/copy-elsewhere.md": payments.replace("deploy-payments-api",
                                                                           "copy-elsewhere")})
    v = Vault.open(root, clock=lambda: FIXED_NOW)
    apart = {"digest/procedure/deploy-payments-api.md": "c_00",
             "digest/procedure/deploy-orders-api.md": "c_01", "digest/wiki/copy-elsewhere.md": "c_01"}
    found = {(c.a, c.b) for c in mine_candidates(v, apart, HashingEmbedder(), MergeSettings())}
    assert ("digest/procedure/deploy-payments-api.md", "digest/wiki/copy-elsewhere.md") in found
    assert ("digest/procedure/deploy-orders-api.md",
            "digest/procedure/deploy-payments-api.md") not in found
    together = dict.fromkeys(apart, "c_00")  # in one community the judges decide, as before
    found = {(c.a, c.b) for c in mine_candidates(v, together, HashingEmbedder(), MergeSettings())}
    assert ("digest/procedure/deploy-orders-api.md",
            "digest/procedure/deploy-payments-api.md") in found
