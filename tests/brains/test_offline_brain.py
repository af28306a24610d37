"""OfflineBrain: segmentation, scoring, gating, units on the real sample vault, integrate,
the links it weaves (on synthetic requests and on the sample vault dreamt in order)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

import reme_workbench
from reme_workbench.brains.offline_dream.offline import OfflineBrain
from reme_workbench.brains.offline_dream.statements import (
    TOO_SHORT,
    score_all,
    segment,
)
from reme_workbench.brains.offline_dream.weave import MAX_RELATED, related_notes
from reme_workbench.llm import (
    BrainError,
    CandidateNote,
    IntegrateDecision,
    IntegrateRequest,
    Material,
    MemoryUnit,
    order_units_for_cache,
)
from reme_workbench.textrules import overlap, split_sentences, tokens
from reme_workbench.vault.links import outbound_keys, parse_links
from reme_workbench.vault.note import parse
from reme_workbench.vault.slug import free_slug, note_path, slugify

SAMPLE = Path(reme_workbench.__file__).parent / "samples" / "vault"
PROVENANCE_PREFIX = "derived_from:: [["


@cache
def material(rel: str) -> Material:
    """A sample file as the dream pipeline hands it over: the body, without frontmatter."""
    text = (SAMPLE / rel).read_text(encoding="utf-8")
    body = parse(text, rel).body if rel.endswith(".md") else text
    return Material(rel, body, rel.split("/")[1])


@cache
def units(rel: str) -> tuple[MemoryUnit, ...]:
    return tuple(OfflineBrain().extract(material(rel)).value.units)


def unit_named(rel: str, bucket: str, *words: str) -> MemoryUnit:
    """The unit of `rel` in `bucket` whose name + summary mention every word."""
    for u in units(rel):
        text = f"{u.name} {u.summary}".lower()
        if u.bucket == bucket and all(w.lower() in text for w in words):
            return u
    shown = [(u.bucket, u.name) for u in units(rel)]
    raise AssertionError(f"no {bucket} unit with {words} in {rel}: {shown}")


def create(rel: str, unit: MemoryUnit, **kw) -> IntegrateDecision:
    decision = OfflineBrain(**kw).integrate(IntegrateRequest(material(rel), unit)).value
    assert decision.action == "CREATE"
    return decision


def as_note(decision: IntegrateDecision, bucket: str) -> CandidateNote:
    """The note as the pipeline recalls it: named by its file, body ending in a newline."""
    slug = slugify(decision.name)
    return CandidateNote(f"digest/{bucket}/{slug}.md", slug, decision.description,
                         decision.body + "\n")


def all_sample_files() -> list[str]:
    return sorted(str(p.relative_to(SAMPLE)) for p in SAMPLE.glob("*/*/*") if p.is_file())


# --- segmentation ----------------------------------------------------------------------------


def test_english_sentences_keep_versions_abbreviations_code_and_quotes_whole():
    text = ('Deploy v2.14.0 to prod, e.g. after CI. Run `make test. now` first! '
            'She said: "Never merge. Not on Fridays." Then we left.')
    assert split_sentences(text) == [
        "Deploy v2.14.0 to prod, e.g. after CI.",
        "Run `make test. now` first!",
        'She said: "Never merge. Not on Fridays."',
        "Then we left.",
    ]


def test_chinese_sentences_split_on_full_stops_and_line_ends_not_inside_quotes():
    text = "周报每周一上午发。她说：“周一早上发，这样能看到。”以后都这样！好吗？不要写段落；每条一行\n第二行"
    assert split_sentences(text) == [
        "周报每周一上午发。", "她说：“周一早上发，这样能看到。”", "以后都这样！", "好吗？",
        "不要写段落；", "每条一行", "第二行",
    ]


def test_paragraph_lines_join_in_english_but_a_chinese_line_end_is_a_sentence_end():
    _, sts = segment("Mei asked me to ship\nthe release today.\n\n周报每周一发\n用要点列表\n")
    assert [s.text for s in sts] == ["Mei asked me to ship the release today.", "周报每周一发", "用要点列表"]


SAMPLE_MD = """---
name: secret-frontmatter-words
description: never shown
---
# Runbook

## Deploy the api

1. Check CI is green:
   ```bash
   gh release view v1
   ```
   Takes a minute.
2. Roll out to staging.
   - watch the dashboard
3. Promote.

Rollback: `deployctl rollback` if errors climb.

- a bullet
- another bullet

| service | port |
|---|---|
| api | 8080 |

see_also:: [[digest/wiki/x.md]]
"""


def test_segment_is_markdown_aware():
    blocks, sts = segment(SAMPLE_MD)
    texts = " ".join(s.text for s in sts)
    assert "secret" not in texts and "never shown" not in texts  # frontmatter skipped
    assert "see_also" not in texts  # a predicate line is a link, not content
    steps = [b for b in blocks if b.kind == "step"]
    assert [b.text for b in steps] == [
        "Check CI is green:\nTakes a minute.", "Roll out to staging.", "Promote."]
    assert {b.heading for b in steps} == {"Deploy the api"} and len({b.run for b in steps}) == 1
    assert steps[0].code == ("gh release view v1",)  # code belongs to the step before it
    nested = next(b for b in blocks if b.text == "watch the dashboard")
    assert nested.depth == 1 and nested.parent == steps[1].index
    bullets = [b for b in blocks if b.kind == "item" and b.depth == 0]
    assert len(bullets) == 2 and bullets[0].run == bullets[1].run != steps[0].run
    assert [b.text for b in blocks if b.kind == "row"] == ["service: api; port: 8080"]
    assert steps[0].line == 9  # frontmatter lines still count


def test_plain_text_transcript_lines_drop_timestamp_and_speaker():
    text = ("Sync notes\n[00:12] Oskar: PgBouncer listens on 6432. Postgres moves.\n"
            "[00:41] Mei: Good.\n")
    blocks, sts = segment(text, plain_text=True)
    assert [b.text for b in blocks] == [
        "Sync notes", "PgBouncer listens on 6432. Postgres moves.", "Good."]


# --- scoring and gating ------------------------------------------------------------------------


def scores_of(md: str) -> dict[str, object]:
    _, sts = segment(md)
    return {s.text: sc for s, sc in zip(sts, score_all(sts), strict=True)}


def test_scores_point_to_the_right_bucket():
    scored = scores_of(
        "## Deploy\n\n1. Restart the api with `deployctl restart api`.\n2. Check the logs.\n\n"
        "## Notes\n\n- Mei wants the summary as short bullets, not paragraphs.\n"
        "- We decided to use PgBouncer because each backend costs 10 MB.\n"
        "- 她说：以后周报不要写成段落。\n"
    )
    by_text = {t: (s.bucket, s) for t, s in scored.items()}
    assert by_text["Restart the api with `deployctl restart api`."][0] == "procedure"
    assert by_text["Mei wants the summary as short bullets, not paragraphs."][0] == "personal"
    assert by_text["We decided to use PgBouncer because each backend costs 10 MB."][0] == "wiki"
    assert by_text["她说：以后周报不要写成段落。"][0] == "personal"


def test_chit_chat_and_content_free_lines_are_gated():
    scored = scores_of(
        "- Hi! Thanks a lot.\n- She asked whether it would rain tomorrow; she is going hiking.\n"
        "- Nothing to keep here. Prod runs 3 replicas of the api now.\n- Done.\n"
        "- Ledger-worker reads the same Keybox secret as the api.\n"
    )
    noise = {t: s.noise for t, s in scored.items()}
    assert noise["Hi!"] and noise["Thanks a lot."]
    rain = "She asked whether it would rain tomorrow; she is going hiking."
    assert noise[rain] == "chit-chat topic"
    assert noise["Prod runs 3 replicas of the api now."]  # after "nothing to keep" in its item
    assert noise["Done."] == TOO_SHORT
    assert noise["Ledger-worker reads the same Keybox secret as the api."] is None


def test_tokens_stem_drop_dates_and_use_cjk_bigrams():
    assert tokens("merges merged merging") == tokens("merge") == {"merg"}
    assert tokens("Summaries of 10-09, 10-16") == tokens("summary")
    assert tokens("`non-hotfix`") >= {"non-hotfix", "hotfix"}
    assert {"中文", "文回"} <= tokens("用中文回复") and "的" not in "".join(tokens("我的中文"))
    assert overlap(tokens("use uv for python"), tokens("always use uv for every python env")) == 1.0
    assert overlap(frozenset(), tokens("x y z")) == 0.0


def test_near_duplicate_rules_of_one_material_merge_into_one_unit():
    rel = "daily/2026-10-09/dependabot-prs-no-friday-merge.md"
    personal = [u for u in units(rel) if u.bucket == "personal"]
    assert len(personal) == 1  # the quote and the "Preference:" note are one rule
    assert "Fridays" in personal[0].name and "non-hotfix" in personal[0].summary


# --- extract on the sample vault -----------------------------------------------------------------


def test_halloween_chit_chat_yields_no_units():
    assert units("daily/2026-10-31/halloween-chitchat.md") == ()


@pytest.mark.parametrize("rel", all_sample_files())
def test_every_sample_file_gives_few_valid_units(rel):
    found = units(rel)
    assert len(found) <= 8
    assert len({u.name for u in found}) == len(found)  # names identify units in Phase 2
    for u in found:
        assert u.bucket in ("procedure", "personal", "wiki") and 0 < len(u.name) <= 120
        assert 0 < len(u.summary) <= 2000


@pytest.mark.parametrize(("rel", "name", "words"), [
    ("daily/2026-10-05/deploy-payments-api.md", "Deploy payments-api", ("promote", "canary")),
    ("daily/2026-10-07/migration-0041-add-refund-reason.md", "Migration 0041 add refund reason",
     ("snapshot", "upgrade head")),
    ("daily/2026-10-08/rotate-staging-db-credential.md", "Rotate staging DB credential",
     ("both consumers", "Only then")),
    ("daily/2026-10-22/restore-drill-staging.md", "Restore drill staging", ("scratch", "Dropped")),
    ("daily/2026-10-06/build-box-python-venv.md", "Build box python venv", ("uv", "make venv")),
    ("resource/2026-10-05/payments-runbook-v2.md", "Database migrations",
     ("snapshot", "downgrade")),
    ("resource/2026-10-07/backup-policy.md", "PostgreSQL restores",  # bullets
     ("pg-scratch-01", "Verify")),
])
def test_procedures_come_out_as_one_named_procedure_unit(rel, name, words):
    u = unit_named(rel, "procedure", *words)
    assert u.name == name
    assert sum(x.bucket == "procedure" and x.name == name for x in units(rel)) == 1


def test_the_corrected_procedure_wins_over_the_first_attempt():
    u = unit_named("daily/2026-10-08/rotate-staging-db-credential.md", "procedure")
    assert "Restart both consumers of the secret" in u.summary
    assert "Disabled the old role straight away" not in u.summary  # the flawed first run


@pytest.mark.parametrize(("rel", "words"), [
    ("daily/2026-10-06/build-box-python-venv.md", ("always", "uv")),
    ("daily/2026-10-09/dependabot-prs-no-friday-merge.md", ("auto-merge", "Fridays")),
    ("daily/2026-10-05/weekly-report-w40.md", ("中文",)),  # reply in Chinese
    ("daily/2026-10-05/deploy-payments-api.md", ("short bullets",)),
    ("daily/2026-10-07/migration-0041-add-refund-reason.md", ("never", "without a backup")),
    ("daily/2026-10-05/weekly-report-w40.md", ("周报每周一上午发",)),  # weekly report day
    ("daily/2026-10-23/weekly-report-moved-to-friday.md", ("每周五下午",)),
    ("daily/2026-11-01/october-review.md", ("weekends",)),
])
def test_preferences_come_out_as_personal_units(rel, words):
    unit_named(rel, "personal", *words)


@pytest.mark.parametrize(("rel", "words"), [
    ("daily/2026-10-14/incident-payments-502.md", ("Root cause", "max_connections")),
    ("resource/2026-10-15/incident-2026-10-14-postmortem.md", ("Root cause", "ledger-worker")),
    ("daily/2026-10-15/pgbouncer-research.md", ("Decision", "transaction mode", "Reasons")),
    ("daily/2026-10-05/deploy-payments-api.md", ("8080", "9090")),
    ("daily/2026-10-15/pgbouncer-research.md", ("default port", "6432")),
    ("daily/2026-10-28/pgbouncer-prod-cutover.md", ("6432",)),
])
def test_facts_decisions_and_root_causes_come_out_as_wiki_units(rel, words):
    unit_named(rel, "wiki", *words)


def test_units_are_capped_best_scored_first():
    rel = "daily/2026-11-01/october-review.md"
    capped = OfflineBrain(max_units=2).extract(material(rel)).value.units
    assert len(units(rel)) > 2  # stated rules ("No ...") outrank restatements and facts
    assert [u.name for u in capped] == ["No auto-merge / non-hotfix merges on Fridays",
                                        "No migration without a backup"]
    top = OfflineBrain(max_units=1).extract(material("daily/2026-10-05/deploy-payments-api.md"))
    assert [u.bucket for u in top.value.units] == ["procedure"]


# --- integrate: CREATE bodies ---------------------------------------------------------------------


def check_created(decision: IntegrateDecision, rel: str) -> None:
    # The schema strips surrounding whitespace; the pipeline adds the final newline back.
    assert decision.body.splitlines()[-1] == f"derived_from:: [[{rel}]]"
    assert all(link.anchor is None for link in parse_links(decision.body))
    assert 0 < len(decision.description) <= 200 and "\n" not in decision.description


def test_a_step_the_user_stopped_keeps_its_text_but_not_its_commands():
    rel = "daily/2026-10-06/build-box-python-venv.md"
    body = create(rel, unit_named(rel, "procedure")).body
    assert "stopped me" in body and "python3 -m venv .venv" not in body
    assert "uv venv --python 3.11 .venv" in body


def test_procedure_body_is_a_runbook():
    rel = "daily/2026-10-08/rotate-staging-db-credential.md"
    d = create(rel, unit_named(rel, "procedure"))
    check_created(d, rel)
    when, steps = d.body.index("## When\n"), d.body.index("## Steps\n")
    watch = d.body.index("## Watch out\n")
    assert when < steps < watch
    assert "\n1. New password on the inactive role.\n" in d.body and "\n5. Only then" in d.body
    assert "deployctl restart ledger-worker --env <env>" in d.body  # the step's command
    assert "ledger-worker reads the same Keybox secret" in d.body[watch:]
    assert d.description == "Quarterly rotation of the staging application database credential."


def test_personal_body_is_rule_why_how():
    rel = "daily/2026-10-09/dependabot-prs-no-friday-merge.md"
    d = create(rel, unit_named(rel, "personal"))
    check_created(d, rel)
    first, why = d.body.split("\n\n")[:2]
    assert first.startswith("Don't auto-merge PRs on Fridays.")
    assert why == "**Why:** If it breaks, nobody's around to notice."
    assert "**How to apply:**" not in d.body  # it would only say the rule's opening again
    # the description says what the note holds, not the name again
    assert d.description == "Nothing merges to main after Thursday unless it's a hotfix — if it " \
        "breaks, nobody's around to notice."


def test_personal_body_without_a_reason_omits_why_and_restates_the_rule():
    rel = "daily/2026-10-05/deploy-payments-api.md"
    d = create(rel, unit_named(rel, "personal", "bullets"))
    assert "**Why:**" not in d.body
    assert ("**How to apply:** Give Mei the end-of-task summary as short bullets, not paragraphs."
            in d.body)


def test_wiki_body_is_a_paragraph_with_related_bullets():
    rel = "daily/2026-10-15/pgbouncer-research.md"
    d = create(rel, unit_named(rel, "wiki", "Decision"))
    check_created(d, rel)
    lines = d.body.splitlines()
    assert lines[0].startswith("PgBouncer in **transaction** mode")
    assert lines[2].startswith("- Reasons: ~10 MB RAM") and lines[3].startswith("- Rejected:")


def test_labels_follow_the_material_language_unless_set():
    rel = "daily/2026-10-25/home-assistant-restore.md"
    u = unit_named(rel, "procedure", "qmrestore")
    assert "## 步骤" in create(rel, u).body
    assert "## Steps" in create(rel, u, language="en").body


def test_anchor_links_of_the_material_are_written_without_the_anchor():
    rel = "daily/2026-10-09/rules.md"
    text = ("## Notes\n\n- Mei wants PR summaries as bullets, see "
            "[[digest/wiki/prs.md#format|format]].\n")
    u = OfflineBrain().extract(Material(rel, text)).value.units[0]
    d = OfflineBrain().integrate(IntegrateRequest(Material(rel, text), u)).value
    assert "[[digest/wiki/prs.md|format]]" in d.body and "#format" not in d.body


def test_a_plain_text_file_is_read_line_by_line():
    text = "Sync 2026-10-16 attendees Oskar and Mei\nDecision: use PgBouncer in transaction mode\n"
    txt = OfflineBrain().extract(Material("resource/2026-10-16/sync.txt", text)).value.units
    md = OfflineBrain().extract(Material("resource/2026-10-16/sync.md", text)).value.units
    assert [u.name for u in txt] == ["Decision: use PgBouncer in transaction mode"]
    assert [u.name for u in md] != [u.name for u in txt]  # Markdown joins the wrapped lines


def test_a_unit_from_another_brain_is_rendered_from_its_summary():
    rel = "daily/2026-10-09/dependabot-prs-no-friday-merge.md"
    u = MemoryUnit(name="Friday merges", bucket="personal",
                   summary="Never merge on Fridays. Nobody is around because it is the weekend.")
    d = create(rel, u)
    check_created(d, rel)
    assert d.body.startswith("Never merge on Fridays.") and "**Why:**" in d.body


# --- integrate: CORROBORATE ---------------------------------------------------------------------


@pytest.mark.parametrize(("first", "first_words", "later", "later_words"), [
    ("daily/2026-10-06/build-box-python-venv.md", ("always", "uv"),
     "daily/2026-10-27/build-box-venv-rebuild.md", ("restated", "uv")),
    ("daily/2026-10-06/build-box-python-venv.md", ("always", "uv"),
     "daily/2026-11-01/october-review.md", ("uv for every",)),
    ("daily/2026-10-09/dependabot-prs-no-friday-merge.md", ("Fridays",),
     "daily/2026-10-16/offsite-quiz-and-friday-hold.md", ("Fridays",)),
    ("daily/2026-10-09/dependabot-prs-no-friday-merge.md", ("Fridays",),
     "daily/2026-11-01/october-review.md", ("Fridays",)),
    ("daily/2026-10-07/migration-0041-add-refund-reason.md", ("backup",),
     "daily/2026-10-21/migration-0042-ledger-index.md", ("backup",)),
    ("daily/2026-10-05/weekly-report-w40.md", ("周报每周一上午发",),
     "daily/2026-10-12/weekly-report-w41.md", ("每周一上午",)),
])
def test_a_repeat_on_a_later_day_corroborates_the_earlier_note(first, first_words, later,
                                                                later_words):
    note = as_note(create(first, unit_named(first, "personal", *first_words)), "personal")
    later_unit = unit_named(later, "personal", *later_words)
    d = OfflineBrain().integrate(IntegrateRequest(material(later), later_unit, (note,))).value
    assert (d.action, d.flavor, d.target_path) == ("UPDATE", "CORROBORATE", note.path)
    assert d.body == note.body + f"derived_from:: [[{later}]]"


def corroborating_request(old_body: str) -> tuple[IntegrateRequest, CandidateNote]:
    rel = "daily/2026-10-27/build-box-venv-rebuild.md"
    note = CandidateNote("digest/personal/uv.md", "Always use uv for Python envs",
                         "Always uv for Python environments.", old_body)
    return IntegrateRequest(material(rel), unit_named(rel, "personal", "restated"), (note,)), note


OLD_BODY = (
    "Always uv for Python environments, [is_a:: [[digest/wiki/tooling.md]]] and "
    "[[digest/wiki/uv.md|uv]].\n\nsee_also:: [[digest/procedure/venv.md]]\n"
    "derived_from:: [[daily/2026-10-06/build-box-python-venv.md]]"  # no final newline
)


def test_corroborate_keeps_the_old_body_and_every_outbound_link():
    request, note = corroborating_request(OLD_BODY)
    d = OfflineBrain().integrate(request).value
    assert d.flavor == "CORROBORATE" and d.body.startswith(OLD_BODY)  # old bytes untouched
    assert d.body == OLD_BODY + "\nderived_from:: [[daily/2026-10-27/build-box-venv-rebuild.md]]"
    assert outbound_keys(OLD_BODY) < outbound_keys(d.body)  # E-1, plus the new provenance
    assert d.name == note.name and d.description == note.description


def test_corroborate_without_appending_when_the_material_is_already_cited():
    body = OLD_BODY + "\nderived_from:: [[daily/2026-10-27/build-box-venv-rebuild.md]]"
    request, _ = corroborating_request(body)
    d = OfflineBrain().integrate(request).value
    assert (d.action, d.flavor, d.body) == ("UPDATE", "CORROBORATE", body)


def test_the_decision_validates_against_the_offered_candidates():
    request, _ = corroborating_request(OLD_BODY)
    raw = OfflineBrain().integrate(request).raw
    context = {"candidate_paths": request.candidate_paths}
    IntegrateDecision.model_validate(json.loads(raw), context=context)


def test_a_dissimilar_or_other_bucket_candidate_means_create():
    request, note = corroborating_request(OLD_BODY)
    elsewhere = CandidateNote("digest/wiki/uv.md", note.name, note.description, note.body)
    rule = "Don't auto-merge PRs on Fridays."
    unrelated = CandidateNote("digest/personal/friday.md", "No merges on Fridays", rule, rule)
    for candidates in [(elsewhere,), (unrelated,)]:
        d = OfflineBrain().integrate(IntegrateRequest(request.material, request.unit, candidates))
        assert d.value.action == "CREATE"


def test_the_similarity_threshold_is_honoured():
    request, _ = corroborating_request(OLD_BODY)
    assert OfflineBrain(similarity_threshold=1.0).integrate(request).value.action == "CREATE"


def test_a_note_created_from_the_same_material_is_a_sibling_unless_it_has_the_unit_name():
    rel = "daily/2026-10-06/build-box-python-venv.md"
    u = unit_named(rel, "personal", "uv")
    created = as_note(create(rel, u), "personal")
    # a sibling unit's note shares the material's words, not every line of the unit (a
    # note holding all of them is the unit's own, §5.5.2)
    how = next(ln for ln in created.body.splitlines() if ln.startswith("**How to apply:**"))
    sibling = CandidateNote(created.path, "Python environments on build-02", created.description,
                            created.body.replace(how, "build-02 runs Ubuntu 22.04."))
    request = IntegrateRequest(material(rel), u, (sibling,))
    assert OfflineBrain().integrate(request).value.action == "CREATE"
    redream = OfflineBrain().integrate(IntegrateRequest(material(rel), u, (created,))).value
    assert (redream.flavor, redream.body) == ("CORROBORATE", created.body.strip())  # idempotent


def test_a_note_about_something_else_that_quotes_the_unit_is_not_a_repeat():
    rel = "daily/2026-10-14/incident-payments-502.md"
    cause = unit_named(rel, "wiki", "Root cause")
    ownership = CandidateNote("digest/wiki/team-ownership.md", "Team ownership",
                              "Which team owns which service.",
                              f"Payments Core owns the apps.\n\n- {cause.summary}\n")
    d = OfflineBrain().integrate(IntegrateRequest(material(rel), cause, (ownership,))).value
    assert d.action == "CREATE"


def test_a_reported_change_corrects_the_old_note_and_keeps_its_statement():
    later = "daily/2026-11-01/october-review.md"
    monday = CandidateNote("digest/personal/weekly-report.md", "Weekly report on Monday morning",
                           "Send the weekly report every Monday morning.",
                           "Send the weekly report every Monday morning.\n")
    moved = unit_named(later, "personal", "moved from Monday")
    d = OfflineBrain().integrate(IntegrateRequest(material(later), moved, (monday,))).value
    assert (d.action, d.flavor, d.target_path) == ("UPDATE", "CORRECT", monday.path)
    lines = d.body.splitlines()
    assert lines[0] == "Send the weekly report every Monday morning."  # the old statement stays
    assert lines[1].startswith("> superseded on 2026-11-01: ") and "Friday" in lines[1]
    assert "weekday: mon -> fri" in lines[1] and f"derived_from:: [[{later}]]" in lines[1]


def test_a_change_from_a_notes_values_corrects_it_in_another_language():
    """"Moved from Monday morning to Friday afternoon" names 周报每周一上午发 by its values,
    where no word is shared and no embedder is asked (docs/spec.md §5.5.6); a note that
    states more than the old values (merge PRs Monday morning, approved Friday) is not it."""
    later = "daily/2026-11-01/october-review.md"
    monday = CandidateNote("digest/personal/周报每周一上午发.md", "周报每周一上午发",
                           "周报每周一上午发，10:30 之前。", "**周报每周一上午发**，10:30 之前。\n")
    merges = CandidateNote("digest/personal/周一上午合并-pr.md", "周一上午合并 PR",
                           "每周一上午合并上周五批准的 PR。", "每周一上午合并上周五批准的 PR。\n")
    moved = unit_named(later, "personal", "moved from Monday")
    d = OfflineBrain().integrate(IntegrateRequest(material(later), moved, (merges, monday))).value
    assert (d.action, d.flavor, d.target_path) == ("UPDATE", "CORRECT", monday.path)
    assert d.body.startswith("**周报每周一上午发**，10:30 之前。\n")
    assert "weekday: mon -> fri" in d.body and f"derived_from:: [[{later}]]" in d.body
    alone = OfflineBrain().integrate(IntegrateRequest(material(later), moved, (merges,))).value
    assert alone.action == "CREATE"


def test_a_procedure_with_a_new_step_is_not_corroborated():
    first, later = ("daily/2026-10-08/rotate-staging-db-credential.md",
                    "daily/2026-10-29/rotate-prod-db-credential.md")
    staging = as_note(create(first, unit_named(first, "procedure")), "procedure")
    prod = unit_named(later, "procedure", "userlist")  # PgBouncer added a step since
    d = OfflineBrain().integrate(IntegrateRequest(material(later), prod, (staging,))).value
    assert d.action == "CREATE" and f"[[{staging.path}]]" in d.body
    assert "new step" in d.rationale


# --- feedback, reply, determinism ----------------------------------------------------------------


def test_feedback_re_adds_a_dropped_link_and_says_so():
    request, note = corroborating_request("Always uv.\n")
    feedback = f"keeps_outbound: {note.path} drops the link see_also:: [[digest/wiki/uv.md]]"
    d = OfflineBrain().integrate(IntegrateRequest(request.material, request.unit,
                                                  request.candidates, feedback)).value
    assert d.body.startswith("Always uv.\nsee_also:: [[digest/wiki/uv.md]]\nderived_from:: [[")
    assert "Feedback: re-added 1 dropped link" in d.rationale


def test_feedback_about_a_taken_name_makes_the_name_specific():
    rel = "daily/2026-10-07/migration-0041-add-refund-reason.md"
    u = unit_named(rel, "personal", "backup")
    request = IntegrateRequest(material(rel), u, (), "the note name already exists")
    d = OfflineBrain().integrate(request).value
    assert d.name == f"{u.name} (Migration 0041 add refund reason)" and "Feedback:" in d.rationale
    check_created(d, rel)


def test_reply_is_the_json_of_its_value_and_costs_nothing():
    brain = OfflineBrain()
    rel = "daily/2026-10-05/deploy-payments-api.md"
    reply = brain.extract(material(rel))
    assert json.loads(reply.raw) == reply.value.model_dump(mode="json")
    assert (reply.model, reply.attempts, reply.usage.total_tokens, reply.usage.cached_tokens) == (
        "offline", 1, 0, 0)
    assert brain.name == "offline" and brain.model == "offline"
    decision = brain.integrate(IntegrateRequest(material(rel), reply.value.units[0]))
    assert json.loads(decision.raw) == decision.value.model_dump(mode="json")


@pytest.mark.parametrize("rel", ["daily/2026-10-14/incident-payments-502.md",
                                 "daily/2026-10-05/weekly-report-w40.md",
                                 "resource/2026-10-16/pgbouncer-rollout-sync.txt"])
def test_same_input_same_output(rel):
    def run() -> list[str]:
        brain = OfflineBrain()
        reply = brain.extract(Material(rel, material(rel).text))
        return [reply.raw] + [brain.integrate(IntegrateRequest(material(rel), u)).raw
                              for u in reply.value.units]

    assert run() == run()


def test_bad_settings_and_unlinkable_material_are_refused():
    for kwargs in [{"max_units": 0}, {"similarity_threshold": 0}, {"language": "fr"}]:
        with pytest.raises(ValueError):
            OfflineBrain(**kwargs)
    unit = MemoryUnit(name="x", bucket="wiki", summary="Ports are 8080 and 9090 here.")
    with pytest.raises(BrainError, match="provenance"):
        OfflineBrain().integrate(IntegrateRequest(Material("daily/a|b.md", "text"), unit))


# --- integrate: the links a CREATE weaves (docs/spec.md §5.6) -----------------------------------------

MIGRATION = "daily/2026-10-07/migration-0041-add-refund-reason.md"
RUNBOOK = "resource/2026-10-05/payments-runbook-v2.md"
FRIDAY = "daily/2026-10-09/dependabot-prs-no-friday-merge.md"
DEPLOY = "daily/2026-10-05/deploy-payments-api.md"
_BULLET = re.compile(r"^- \[\[(digest/[^\]|#]+\.md)\]\]$")


@cache
def sample_note(rel: str, bucket: str, *words: str) -> CandidateNote:
    """The note a unit of a sample file becomes when created with no candidates."""
    return as_note(create(rel, unit_named(rel, bucket, *words)), bucket)


def integrate(rel: str, unit: MemoryUnit, *candidates: CandidateNote, feedback=None, **kw):
    request = IntegrateRequest(material(rel), unit, candidates, feedback)
    return OfflineBrain(**kw).integrate(request).value


def woven(body: str) -> list[str]:
    """The targets listed under the Related label, in order (plain `- [[path]]` lines)."""
    lines = body.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln in ("**Related:**", "**相关：**")), None)
    if start is None:
        return []
    out: list[str] = []
    for line in lines[start + 1:]:
        m = _BULLET.match(line)
        if m:
            out.append(m.group(1))
        elif out or line.strip():
            break
    return out


def digest_links(body: str) -> set[str]:
    return {lk.target for lk in parse_links(body) if lk.target.startswith("digest/")}


def test_a_new_note_links_the_related_note_of_another_bucket_and_material_only():
    unit = unit_named(RUNBOOK, "procedure", "snapshot", "downgrade")  # Database migrations
    rule = sample_note(MIGRATION, "personal", "backup")  # never run migrations without one
    unrelated = (sample_note(FRIDAY, "personal"), sample_note(DEPLOY, "personal", "bullets"))
    d = integrate(RUNBOOK, unit, rule, *unrelated)
    assert d.action == "CREATE" and woven(d.body) == [rule.path]
    assert "linked 1 related note(s)" in d.rationale
    assert woven(integrate(RUNBOOK, unit, *unrelated).body) == []  # 0 links is legal


def test_related_links_are_plain_bullets_under_a_label_before_the_provenance():
    unit = unit_named(RUNBOOK, "procedure", "snapshot", "downgrade")
    rule = sample_note(MIGRATION, "personal", "backup")
    d = integrate(RUNBOOK, unit, rule)
    check_created(d, RUNBOOK)
    lines = d.body.splitlines()
    at = lines.index("**Related:**")
    assert lines[at - 1:] == ["", "**Related:**", "", f"- [[{rule.path}]]", "",
                              f"derived_from:: [[{RUNBOOK}]]"]
    (link,) = [lk for lk in parse_links(d.body) if lk.target == rule.path]
    assert (link.predicate, link.anchor, link.alias, link.embed) == (None, None, None, False)


def test_a_note_of_the_same_material_is_related_on_less_evidence():
    window = unit_named(MIGRATION, "wiki", "window")  # shares "migration", "window" with it
    runbook = sample_note(MIGRATION, "procedure")
    stranger = replace(runbook, body=runbook.body.replace(MIGRATION, "daily/2026-10-21/x.md"))
    assert woven(integrate(MIGRATION, window, runbook).body) == [runbook.path]
    assert woven(integrate(MIGRATION, window, stranger).body) == []


def test_words_in_a_candidates_own_links_are_not_what_it_says():
    rule = unit_named(MIGRATION, "personal", "backup")
    friday = sample_note(FRIDAY, "personal")
    paths = ["procedure/migrations", "personal/backups", "wiki/staging", "wiki/exceptions"]
    bullets = "".join(f"- [[digest/{p}.md]]\n" for p in paths)  # the words of the unit
    linked = friday.body.replace("derived_from", f"**Related:**\n\n{bullets}\nderived_from")
    said = friday.body.replace("derived_from", "Never run migrations on staging without a "
                               "backup either.\n\nderived_from")
    assert woven(integrate(MIGRATION, rule, replace(friday, body=linked)).body) == []
    assert woven(integrate(MIGRATION, rule, replace(friday, body=said)).body) == [friday.path]


def test_never_a_link_to_the_note_itself_or_a_path_that_was_not_a_candidate():
    unit = unit_named(MIGRATION, "personal", "backup")
    runbook = sample_note(MIGRATION, "procedure")
    own = note_path("personal", slugify(unit.name))
    itself = CandidateNote(own, "snapshots-first", "Snapshots first.", runbook.body)
    twin = replace(itself, path="digest/personal/snapshots-first.md")
    anchored = replace(itself, path="digest/personal/snapshots#first.md")  # "#": an anchor
    d = integrate(MIGRATION, unit, itself, anchored, twin)
    assert woven(d.body) == [twin.path]  # the same words: only the path keeps `itself` out
    assert digest_links(d.body) == {twin.path} and "#" not in d.body


def test_a_covering_note_is_pointed_at_once_and_a_corroborate_weaves_nothing():
    later = "daily/2026-11-01/october-review.md"
    monday = CandidateNote("digest/personal/weekly-report.md", "Weekly report on Monday morning",
                           "Send the weekly report every Monday morning.",
                           "Send the weekly report every Monday morning.\n")
    d = integrate(later, unit_named(later, "personal", "moved from Monday"), monday)
    assert d.flavor == "CORRECT" and d.body.count(f"[[{later}]]") == 1  # marked once
    assert woven(d.body) == []
    first, again = "daily/2026-10-06/build-box-python-venv.md", "daily/2026-11-01/october-review.md"
    rule, runbook = sample_note(first, "personal", "always", "uv"), sample_note(first, "procedure")
    unit = unit_named(again, "personal", "uv for every")
    d = integrate(again, unit, rule, runbook)
    assert d.flavor == "CORROBORATE" and d.body == rule.body + f"derived_from:: [[{again}]]"
    alone = integrate(again, unit, runbook)  # without the rule: a CREATE that links it
    assert alone.action == "CREATE" and woven(alone.body) == [runbook.path]


def test_feedback_about_a_link_leaves_the_related_links_out():
    unit = unit_named(RUNBOOK, "procedure", "snapshot", "downgrade")
    rule = sample_note(MIGRATION, "personal", "backup")
    anchor = ("no_new_anchors: digest/procedure/database-migrations.md writes an anchor link "
              "[[digest/personal/x.md#why]]; link the note itself")
    d = integrate(RUNBOOK, unit, rule, feedback=anchor)
    assert woven(d.body) == [] and not digest_links(d.body)
    assert "Feedback: left out the related links" in d.rationale
    check_created(d, RUNBOOK)
    taken = integrate(RUNBOOK, unit, rule, feedback="the note name already exists")
    assert woven(taken.body) == [rule.path]  # other feedback keeps them


def test_a_chinese_note_gets_the_chinese_label():
    rel = "daily/2026-10-05/weekly-report-w40.md"
    bullets = sample_note(rel, "personal", "要点列表")
    d = integrate(rel, unit_named(rel, "personal", "人名"), bullets)
    assert "\n**相关：**\n" in d.body and woven(d.body) == [bullets.path]


def test_the_brains_own_labels_are_not_words_two_notes_share():
    rel = "daily/2026-10-05/weekly-report-w40.md"  # two rules of one log: 做法 and 说 alike
    monday = sample_note(rel, "personal", "周报每周一上午发")
    assert woven(integrate(rel, unit_named(rel, "personal", "中文"), monday).body) == []


def test_a_quoted_rule_is_not_repeated_as_how_to_apply_it():
    rel = "daily/2026-10-05/weekly-report-w40.md"  # 她说："我用中文写的时候你就用中文回我…" —— …
    body = sample_note(rel, "personal", "中文").body
    assert body.count("我用中文写的时候你就用中文回我") == 1, body


def _note(i: int, words: str, material: str = "daily/2026-01-01/other.md") -> CandidateNote:
    return CandidateNote(f"digest/wiki/n{i}.md", f"n{i}", "", f"{words}\n\nderived_from:: "
                         f"[[{material}]]\n")


UNIT = "alpha bravo charlie delta echo foxtrot golf hotel"
FILLER = " ".join(f"filler{i}" for i in range(40))


def test_at_most_three_links_strongest_first_and_at_most_two_siblings():
    unit, here = tokens(UNIT), "daily/2026-01-02/here.md"
    words = UNIT.split()
    strangers = [_note(k, " ".join(words[:k] + ["x", "y", "z"][: 8 - k])) for k in (6, 5, 4, 3)]
    found = related_notes(unit, strangers, material=here)
    assert [r.path for r in found] == ["digest/wiki/n6.md", "digest/wiki/n5.md", "digest/wiki/n4.md"]
    assert len(found) == MAX_RELATED and found[0].score > found[1].score > found[2].score
    assert related_notes(unit, strangers[::-1], material=here) == found  # order-free
    siblings = [_note(10 + k, " ".join(words[:k]), here) for k in (7, 6, 5)]
    found = related_notes(unit, [*siblings, strangers[-1]], material=here)
    assert [r.path for r in found] == ["digest/wiki/n17.md", "digest/wiki/n16.md",
                                       "digest/wiki/n3.md"]
    assert [r.sibling for r in found] == [True, True, False]


def test_a_word_or_two_or_a_few_words_in_a_long_note_are_chance():
    unit, here = tokens(UNIT), "daily/2026-01-02/here.md"
    two = _note(1, "alpha bravo")  # all it says is in the unit, but two words are luck
    diluted = _note(2, f"alpha bravo charlie {FILLER}")
    assert related_notes(unit, [two, diluted], material=here) == []
    assert [r.path for r in related_notes(unit, [replace(two, body=f"{two.body} charlie")],
                                          material=here)] == [two.path]
    assert related_notes(unit, [_note(3, "alpha", here)], material=here) == []  # sibling: >= 2


# --- the sample vault, dreamt in the pipeline's order ---------------------------------------------


@cache
def dream_sample() -> tuple[dict[str, CandidateNote], tuple]:
    """Dream every sample file in the pipeline's order (files by path, units bucket by
    bucket) with every note written so far as a candidate; the notes as they end up,
    and each (request, decision)."""
    brain, notes, calls = OfflineBrain(), {}, []
    for rel in all_sample_files():
        for unit in order_units_for_cache(brain.extract(material(rel)).value.units):
            request = IntegrateRequest(material(rel), unit, tuple(notes.values()))
            d = brain.integrate(request).value
            calls.append((request, d))
            if d.action == "CREATE":
                def taken(slug: str, bucket: str = unit.bucket) -> bool:
                    return note_path(bucket, slug) in notes

                slug = free_slug(slugify(d.name), taken)
                path = note_path(unit.bucket, slug)
                notes[path] = CandidateNote(path, slug, d.description, d.body + "\n")
            else:
                old = notes[d.target_path]
                notes[old.path] = replace(old, description=d.description, body=d.body + "\n")
    return notes, tuple(calls)


def test_dreaming_the_sample_vault_weaves_a_link_graph():
    notes, calls = dream_sample()
    linked = [p for p, n in notes.items() if digest_links(n.body)]
    assert len(notes) >= 80 and len(linked) >= 0.4 * len(notes)
    for path, note in notes.items():
        for link in parse_links(note.body):
            assert link.anchor is None, (path, link)
            if link.target.startswith("digest/"):
                assert link.target in notes and link.target != path, (path, link.target)
                assert link.predicate is None
    creates = [(r, d) for r, d in calls if d.action == "CREATE"]
    assert sum(bool(woven(d.body)) for _, d in creates) >= 0.4 * len(creates)
    for request, d in creates:
        assert len(woven(d.body)) <= MAX_RELATED
        assert digest_links(d.body) <= request.candidate_paths


@pytest.mark.parametrize(("a", "b"), [
    ("procedure/migration-0041-add-refund-reason", "personal/never-run-migrations-without-a-backup"),
    ("wiki/ledger-worker-pool-plus-payments-api", "wiki/decision-pgbouncer-in-transaction-mode"),
    ("procedure/build-box-python-venv", "personal/always-use-uv-for-python-envs"),
    ("procedure/rotate-prod-db-credential", "procedure/rotate-staging-db-credential"),
    ("procedure/database-migrations", "procedure/migration-0042-ledger-index"),
    ("personal/今天全程用中文", "personal/用中文回我"),
])
def test_dreaming_links_notes_about_one_thing(a, b):
    notes, _ = dream_sample()
    a, b = f"digest/{a}.md", f"digest/{b}.md"
    assert a in digest_links(notes[b].body) or b in digest_links(notes[a].body)


@pytest.mark.parametrize(("a", "b"), [
    ("personal/don-t-auto-merge-prs-on-fridays", "personal/never-run-migrations-without-a-backup"),
    ("personal/always-use-uv-for-python-envs", "procedure/migration-0041-add-refund-reason"),
    # one material, but all they share is "Mei"
    ("personal/mei-wants-the-end-of-task-summary", "procedure/deploy-payments-api"),
])
def test_dreaming_does_not_link_notes_about_different_things(a, b):
    notes, _ = dream_sample()
    a, b = f"digest/{a}.md", f"digest/{b}.md"
    assert a not in digest_links(notes[b].body) and b not in digest_links(notes[a].body)


HOME = {"daily/2026-10-11/home-network-iot-vlan.md", "daily/2026-10-25/home-assistant-restore.md",
        "resource/2026-10-11/home-network-zh.md"}


def test_dreaming_never_links_the_home_lab_to_the_payments_work():
    notes, _ = dream_sample()

    def at_home(note: CandidateNote) -> bool:
        return {lk.target for lk in parse_links(note.body) if lk.predicate} <= HOME

    for path, note in notes.items():  # how she wants answers holds everywhere: not personal
        for target in digest_links(note.body) - {p for p in notes if "/personal/" in p}:
            if "/personal/" not in path:
                assert at_home(note) == at_home(notes[target]), (path, target)


def test_a_runbook_with_no_prose_is_described_by_its_first_steps():
    rel = "daily/2026-10-25/home-assistant-restore.md"
    units = OfflineBrain().extract(material(rel)).value.units
    chain = next(u for u in units if u.bucket == "procedure" and "恢复流程" in u.name)
    d = create(rel, chain)
    assert d.description.startswith("确认故障；") and d.description != d.name


def test_a_short_entry_a_client_appended_is_kept_as_a_unit():
    from reme_workbench.ops.operations import render_entry

    log = b""
    for heading, text in [
        ("09:00 pool", "The payments-api pool is 40 connections since the incident."),
        ("09:05", "Should we raise the pool again?"),
        ("09:06", "ok thanks!"),
        ("09:10", "连接池现在是 40 个连接，事故之后调大的。"),
        ("09:20", "Mei prefers code reviews on Tuesday mornings."),
        ("09:30", "We had lunch."),
    ]:
        log = render_entry(log, text, heading)
    found = OfflineBrain().extract(Material("daily/2026-12-04/log.md", log.decode(), "2026-12-04")).value.units
    assert [(u.bucket, u.summary) for u in found] == [
        ("wiki", "The payments-api pool is 40 connections since the incident."),
        ("wiki", "连接池现在是 40 个连接，事故之后调大的。"),
        ("personal", "Mei prefers code reviews on Tuesday mornings."),
    ]
    assert found[0].name == "payments-api pool"
    # the same sentence in a log that is not an entry needs a stronger cue (§5.2.4)
    plain = "## Monday\n\nThe payments-api pool is 40 connections since the incident.\n"
    assert OfflineBrain().extract(Material("daily/2026-12-04/x.md", plain, "2026-12-04")).value.units == []


def test_the_same_rule_in_another_language_corroborates_by_meaning_and_values():
    later = "daily/2026-11-01/october-review.md"
    zh = CandidateNote("digest/personal/用中文回我.md", "用中文回我",
                       "我用中文写的时候你就用中文回我。", "我用中文写的时候你就用中文回我。\n")
    unit = MemoryUnit(name="Reply in Chinese", bucket="personal",
                      summary="Reply in Chinese when she writes in Chinese.")
    near = IntegrateRequest(material(later), unit, (zh,), meaning=lambda c: 0.5)
    d = OfflineBrain().integrate(near).value
    assert (d.flavor, d.target_path) == ("CORROBORATE", zh.path)
    far = OfflineBrain().integrate(replace(near, meaning=lambda c: 0.1)).value
    assert d.body.startswith(zh.body) and far.action == "CREATE"  # not near: another note
    english = replace(zh, name="用英文回我", description="我用英文写的时候你就用英文回我。",
                      body="我用英文写的时候你就用英文回我。\n")
    other = OfflineBrain().integrate(replace(near, candidates=(english,))).value
    assert other.action == "CREATE"  # near in meaning, but another value (en): not the rule
