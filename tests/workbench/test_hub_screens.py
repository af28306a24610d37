"""The demo's hubs and the screens that show them (issue #31): hubs named and described in
words, one community id per pending hub, the Communities screen never offering what a
gate refused, and an Archive screen whose histogram a person can read."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from reme_workbench.config import CommunitySettings
from reme_workbench.consolidate.communities import update_communities  # noqa: E402
from reme_workbench.proposals import ProposalQueue  # noqa: E402
from reme_workbench.vault.meta import log_access  # noqa: E402
from reme_workbench.vault.note import parse  # noqa: E402
from reme_workbench.vault.vault import Vault  # noqa: E402
from reme_workbench.widgets import ArchiveView, CommunitiesView  # noqa: E402
from reme_workbench.widgets.plots import recency_figure  # noqa: E402
from tests.conftest import FIXED_NOW  # noqa: E402
from tests.proposals.test_review_consolidate import clusters  # noqa: E402


def waiting_hubs(root) -> list[dict]:
    out = []
    for f in sorted((root / "meta/proposals").glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data["action"] == "consolidate.abstract" and data["state"] == "pending":
            out.append(data)
    return out


def test_the_demos_hubs_are_named_and_described_in_words_one_community_each(demo_vault):
    proposals = waiting_hubs(demo_vault)
    assert proposals
    communities = [p["story"]["community"] for p in proposals]
    assert len(communities) == len(set(communities)), communities  # never two "c_03"
    for proposal in proposals:
        (op,) = proposal["ops"]
        hub = parse(op["content"], op["path"])
        members = proposal["story"]["members"]
        names = [parse((demo_vault / m).read_text(encoding="utf-8"), m).name for m in members]
        slugs = [n for n in names if " " not in n and "-" in n]  # names that are file names
        for slug in slugs:
            assert slug not in hub.description, (hub.description, slug)
        # a name is no piece cut from an identifier ("inc" of "inc-2026-031-postmortem")
        texts = "\n".join((demo_vault / m).read_text(encoding="utf-8") for m in members)
        topic = hub.name.removesuffix("-overview")  # the suffix of a hub named like a member
        for word in re.findall(r"[^\W_]+", topic.replace("-", " ")):
            alone = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", texts, re.I)
            assert alone, (hub.name, word)


def gated_vault(make_vault):
    """The six notes of group a, a communities run a week apart (stability 1.0)."""
    v = Vault.open(make_vault(clusters()), clock=lambda: FIXED_NOW)
    update_communities(v, CommunitySettings(), now=FIXED_NOW - timedelta(days=7))
    update_communities(v, CommunitySettings(), now=FIXED_NOW)
    return v


def test_the_communities_screen_never_offers_a_hub_a_gate_refused(make_vault):
    v = gated_vault(make_vault)
    view = CommunitiesView(v)
    big = view.overview.communities[0]
    queue = ProposalQueue(v)
    waiting = queue.new("consolidate.abstract", "hub", [], story={"members": list(big.members)})
    queue.save(waiting)
    view.refresh()
    view.community.value = big.id
    # nobody used these notes lately: a gate refuses a hub (the activity gate at least)
    gates = view.overview.get(big.id).gates
    assert not gates.passed and not gates.gate("active_members").passed
    assert "waits for you" not in view.detail.value
    assert f"stopped by {gates.failed.name}" in view.detail.value and waiting.id in view.detail.value
    # used, the gates pass: the waiting proposal is what the person has to review
    for p in big.members[:3]:
        log_access(v.root, p, FIXED_NOW - timedelta(days=1), "recall")
    view.refresh()
    view.community.value = big.id
    assert f"its hub proposal {waiting.id} waits for you" in view.detail.value


def test_the_archive_screen_of_the_demo_shows_a_spread(demo_vault):
    """Every demo note scored 1.000 (fresh notes score above 1 and are stored clipped):
    the histogram was one bar."""
    view = ArchiveView(demo_vault)
    figure = recency_figure(view.overview)
    bars = [p.get_height() for p in figure.axes[0].patches if p.get_height() > 0]
    assert len(bars) >= 3, bars
    days = {view._left(p) for p in view.overview.scores}
    assert len(days) >= 3, days  # "under the cut, untouched, in": not one answer for all
