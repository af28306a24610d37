"""The offline brain recognises the note a unit wrote when its material is dreamt again
(docs/spec.md §5.5.2, `coverage.own_note`): same material in `derived_from`, every line
it would write already there -> the note back unchanged, never a second CREATE."""

from __future__ import annotations

from reme_workbench.brains.offline_dream.offline import OfflineBrain
from reme_workbench.llm import CandidateNote, IntegrateRequest, Material

LOG = "daily/2026-10-28/pgbouncer-prod-cutover.md"
TEXT = ("# PgBouncer prod cutover\n\n"
        "Deploy canary is 15 minutes since today; the 10 minutes in runbook v2 is obsolete.\n")


def first_dream() -> tuple[Material, object, CandidateNote]:
    material = Material(LOG, TEXT, "2026-10-28")
    unit = OfflineBrain().extract(material).value.units[0]
    made = OfflineBrain().integrate(IntegrateRequest(material, unit)).value
    assert made.action == "CREATE"
    path = f"digest/{unit.bucket}/deploy-canary.md"
    return material, unit, CandidateNote(path, "deploy-canary", made.description, made.body)


def test_a_re_dream_returns_its_own_note_unchanged_though_it_reads_as_a_change():
    material, unit, note = first_dream()
    again = OfflineBrain().integrate(IntegrateRequest(material, unit, (note,))).value
    assert (again.action, again.flavor, again.target_path) == ("UPDATE", "CORROBORATE", note.path)
    assert again.body == note.body  # nothing added: the pipeline proposes nothing
    assert "re-dream" in again.rationale


def test_a_note_that_lacks_a_line_or_cites_other_material_is_not_the_units_own():
    material, unit, note = first_dream()
    lacking = CandidateNote(note.path, note.name, note.description,
                            note.body.replace("15 minutes", "20 minutes"))
    other = CandidateNote(note.path, note.name, note.description,
                          note.body.replace(LOG, "daily/2026-10-01/other.md"))
    for cand in (lacking, other):
        again = OfflineBrain().integrate(IntegrateRequest(material, unit, (cand,))).value
        assert "re-dream" not in again.rationale
