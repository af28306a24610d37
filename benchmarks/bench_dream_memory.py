"""Does dream keep what people later ask about? LoCoMo conversations, dreamt, asked.

    python benchmarks/bench_dream_memory.py [--conversations 0-4] [--embedder minilm]
        [--form clean|texting|assistant|all] [--assistant-user a|b|both] [--seed N]
        [--work DIR] [--json FILE] [--flagged FILE] [--show N]
    python benchmarks/bench_dream_memory.py --remeasure WORK   (step 5 again, no dream)

For each LoCoMo conversation in ../shared/data/locomo/ (CC BY-NC: read at run time, never
copied into the repository) and each form of it (`--form`, all three by default; issue #30
item 6):

* **clean**: each session a daily file as a person would keep a chat
  (`daily/<session date>/<id>-session-<n>.md`, `**Name:** text` lines, image captions in
  brackets; `reme_lab/locomo.py`, layout "chat");
* **texting**: the same turns as people text them (layout "texting": mostly lowercase,
  apostrophes dropped or curly, "u", "lol", emoji, long turns sent as bursts of short
  messages; deterministic for `--seed`);
* **assistant**: one speaker relabelled as the assistant ("AI" or "Assistant" by
  conversation), the other the user under their own name (layout "assistant"); run
  with each speaker as the user (`--assistant-user both`, the default: forms
  assistant-a and assistant-b);

1. a fresh vault with the sessions;
2. `reme-workbench dream --json` through the CLI (the offline brain, the default), timed,
   and its CPU seconds (the child's, `getrusage(RUSAGE_CHILDREN)` before and after);
3. every question with evidence asked through the CLI, `recall --queries FILE --scope S
   -k 10 --json`, for S = `digest` (the organised layer alone), `all` (digest and logs) and
   `sources` (the raw logs' own figure); each hit traced to sessions by provenance
   (`locomo.ranked_sessions`: a session file is its session; a digest note stands for the
   sessions its `derived_from::` links name, those on the hit's matched lines first);
4. session recall@5 and MRR (top 10) against the sessions the evidence names — in the
   assistant form also over the questions whose evidence turns are all the user's
   (`locomo.user_questions`: facts about the user, what the memory of such a chat keeps;
   the issue's target applies to that figure); notes written, the share named from a
   reaction (`dream_quality.reaction_name`), digest tokens per material token, units per
   session, dream time and CPU seconds per 1,000 messages (the `**Name:**` lines) and the
   CPU seconds per 1,000 of the dataset's turns (a texted turn is several messages);
5. over every note written, the measures of `reme_lab/people_notes.py`: names with no
   topic, descriptions in first person, broken contractions / agreement errors, notes
   mixing two topics, pairs of a person's notes on one topic (`dream/keys.py`); the flagged
   notes are written to `--flagged` (default `flagged-notes.md` in the work folder) for a
   person to review;
6. (clean form) how far the digest can lift the raw logs at all: `digest` and `sources`
   asked again with `-k 30`, each digest hit traced to its matched lines' sessions alone,
   and the two session rankings fused — weighted reciprocal rank fusion over a grid (the
   best setting pooled, and the first conversation's best setting on the others) and the
   raw logs' top four with the digest's best new session fifth (`locomo.fuse_rrf`,
   `one_slot_for`).

Targets: digest recall@5 >= 0.60 and `all` above `sources` (clean); notes named from a
reaction 0; digest recall@5 >= 0.78 on each form and the forms within 0.03 of each other
(issue #30); names with no topic <= 3 %, descriptions in first person 0, notes mixing two
topics <= 3 %, broken contractions / agreement errors 0. Exit status 1 when one is
missed. The data folder absent: the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reme_lab.dream_quality import reaction_name  # noqa: E402
from reme_lab.locomo import (  # noqa: E402
    HEADLINE,
    fuse_rrf,
    load_conversations,
    one_slot_for,
    questions,
    ranked_sessions,
    recall_at,
    reciprocal_rank,
    score_rankings,
    session_numbers,
    user_questions,
    write_vault,
)
from reme_lab.people_notes import TARGETS as VOICE_TARGETS  # noqa: E402
from reme_lab.people_notes import NoteVoice, measure_notes  # noqa: E402
from reme_workbench.dream.keys import near_duplicates  # noqa: E402
from reme_workbench.vault.note import parse  # noqa: E402
from reme_workbench.vault.tokens import estimate_tokens  # noqa: E402
from reme_workbench.vault.vault import init_vault  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo10_conv0-4.json"
SCOPES = ("digest", "all", "sources")
TARGETS = {"digest_recall5": 0.60, "reaction_share": 0.0, "form_recall5": 0.78,
           "form_spread": 0.03}
VOICE_LABELS = {"no_topic": "names with no topic", "first_person": "descriptions in first person",
                "mixing": "notes mixing two topics",
                "agreement": "broken contractions / agreement errors"}


@dataclass(frozen=True)
class Form:
    """One rendering of the conversations (issue #30 item 6): `layout` of
    `reme_lab/locomo.py`, the texting `seed`, the assistant form's `user` side."""

    name: str
    layout: str
    seed: int = 0
    user: str | None = None  # "a" / "b": which speaker is the user (the assistant form)

    def describe(self) -> str:
        if self.layout == "texting":
            return f"the turns as people text them, seed {self.seed}"
        if self.layout == "assistant":
            return f"speaker_{self.user} the user, the other relabelled as the assistant"
        return "the dataset's words as chat lines"


def cli(root: Path, *args: str) -> str:
    """One reme-workbench command on the vault at `root`, as a person runs it."""
    run = subprocess.run([sys.executable, "-m", "reme_workbench", "--vault", str(root), *args],
                         capture_output=True, text=True, env={**_env()})
    if run.returncode != 0:
        raise SystemExit(f"reme-workbench {' '.join(args[:2])} failed ({run.returncode}):\n"
                         f"{run.stderr[-2000:]}")
    return run.stdout


def _env() -> dict:
    import os

    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def count_messages(files: dict[str, int], root: Path) -> int:
    """The messages the sessions hold: their `**Name:** …` lines."""
    return sum(line.startswith("**") for rel in files
               for line in (root / rel).read_text("utf-8").splitlines())


def _children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def read_notes(root: Path, digest: list[str]) -> list[tuple[str, str, str]]:
    """(name, description, body) of every digest note dream wrote."""
    out = []
    for rel in digest:
        note = parse((root / rel).read_text("utf-8"), rel)
        fm = note.frontmatter
        out.append((str(fm.get("name") or Path(rel).stem), str(fm.get("description") or ""),
                    note.body))
    return out


def conversation(sample: dict, work: Path, embedder: str, form: Form, *,
                 ceiling: bool = True) -> dict:
    sid = str(sample.get("sample_id"))
    root = work / form.name / sid
    init_vault(root)
    files = write_vault(root, sample, layout=form.layout, seed=form.seed, user=form.user or "a")
    material_tokens = sum(estimate_tokens((root / rel).read_text("utf-8")) for rel in files)
    messages = count_messages(files, root)
    cpu0, t0 = _children_cpu(), time.perf_counter()
    report = json.loads(cli(root, "dream", "--json", "--embedder", embedder))
    dream_s, dream_cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    digest = sorted(p.relative_to(root).as_posix() for p in (root / "digest").rglob("*.md"))
    digest_tokens = sum(estimate_tokens(parse((root / p).read_text("utf-8"), p).body) for p in digest)
    qs = questions(sample)
    users = user_questions(sample, form.user) if form.user else None
    qfile = root.parent / f"{sid}-questions.jsonl"
    qfile.write_text("".join(json.dumps({"id": q.qid, "query": q.text}) + "\n" for q in qs), "utf-8")

    def read(rel: str) -> str | None:
        try:
            return (root / rel).read_text("utf-8")
        except OSError:
            return None

    scores, user_scores, latency = {}, {}, {}
    for scope in SCOPES:
        t1 = time.perf_counter()
        out = cli(root, "recall", "--queries", str(qfile), "--scope", scope, "-k", "10",
                  "--json", "--embedder", embedder)
        latency[scope] = (time.perf_counter() - t1) / max(1, len(qs))
        rankings = {}
        for line in out.splitlines():
            if line.strip():
                row = json.loads(line)
                rankings[row["id"]] = ranked_sessions(row["hits"], read)
        scores[scope] = score_rankings(rankings, qs)
        if users is not None:
            user_scores[scope] = score_rankings(rankings, [q for q in qs if q.qid in users])
    pairs = {}  # question -> (raw sessions, digest's matched sessions), 30 hits each
    for scope in ("sources", "digest") if ceiling else ():
        out = cli(root, "recall", "--queries", str(qfile), "--scope", scope, "-k", "30",
                  "--json", "--embedder", embedder)
        for line in out.splitlines():
            if line.strip():
                row = json.loads(line)
                pairs.setdefault(row["id"], []).append(ranked_sessions(row["hits"], read, rest=False))
    names = [Path(p).stem for p in digest]
    outcomes = report["outcomes"]
    return {
        "sample_id": sid, "form": form.name, "sessions": len(session_numbers(sample["conversation"])),
        "questions": len(qs), "user_questions": None if users is None else len(users),
        "messages": messages, "notes": len(digest), "names": names,
        "turns": sum(len(sample["conversation"][f"session_{n}"])
                     for n in session_numbers(sample["conversation"])),
        "reaction_names": [n for n in names if reaction_name(n)],
        "near_duplicates": near_duplicates(names),
        "voice": measure_notes(read_notes(root, digest)),
        "units": len(outcomes),
        "created": sum(o["action"] == "CREATE" for o in outcomes),
        "corroborated": sum(o["flavor"] == "CORROBORATE" for o in outcomes),
        "set_aside": len(report.get("set_aside", [])),
        "material_tokens": material_tokens, "digest_tokens": digest_tokens,
        "dream_s": dream_s, "dream_cpu_s": dream_cpu, "scores": scores,
        "user_scores": user_scores, "recall_s": latency, "root": str(root),
        "pairs": [(pairs[q.qid][0], pairs[q.qid][1], q.sessions) for q in qs if q.qid in pairs],
    }


GRID = [(k, w) for k in (1, 5, 20, 60) for w in (0.2, 0.35, 0.5, 1.0)]


def _scored(rows, rank) -> tuple[float, float]:
    """Pooled recall@5 and MRR (top 10) of `rank(raw, digest)` over (raw, digest, evidence)."""
    if not rows:
        return 0.0, 0.0
    ranked = [(rank(raw, dig), ev) for raw, dig, ev in rows]
    return (statistics.fmean(recall_at(r, ev, 5) for r, ev in ranked),
            statistics.fmean(reciprocal_rank(r[:10], ev) for r, ev in ranked))


def fusion_ceiling(runs: list[dict]) -> dict:
    """How far fusing the digest's session ranking into the raw logs' can go (step 5)."""
    rows = [row for r in runs for row in r["pairs"]]
    rest = [row for r in runs[1:] for row in r["pairs"]]
    raw = _scored(rows, lambda raw, dig: raw)
    grid = {(k, w): _scored(rows, lambda raw, dig, k=k, w=w: fuse_rrf(raw, dig, rrf_k=k, weight=w))
            for k, w in GRID}
    best = max(grid, key=lambda kw: grid[kw])
    first = max(GRID, key=lambda kw: _scored(runs[0]["pairs"], lambda raw, dig: fuse_rrf(
        raw, dig, rrf_k=kw[0], weight=kw[1])))
    missing = [(n, dig) for raw, dig, ev in rows for n in ev - set(raw[:5])]
    return {
        "raw": raw, "digest": _scored(rows, lambda raw, dig: dig),
        "top1_raw": statistics.fmean(bool(raw[:1]) and raw[0] in ev for raw, _, ev in rows),
        "top1_digest": statistics.fmean(bool(dig[:1]) and dig[0] in ev for _, dig, ev in rows),
        "missing": len(missing), "missing_in_digest5": sum(n in dig[:5] for n, dig in missing),
        "best": best, "best_scores": grid[best], "first_setting": first,
        "first_on_rest": _scored(rest, lambda raw, dig: fuse_rrf(
            raw, dig, rrf_k=first[0], weight=first[1])),
        "raw_on_rest": _scored(rest, lambda raw, dig: raw),
        "slot5": _scored(rows, lambda raw, dig: one_slot_for(raw, dig, slot=5)),
        "slot1": _scored(rows, lambda raw, dig: one_slot_for(raw, dig, slot=1)),
    }


def pooled(runs: list[dict], scope: str, group: str = "all",
           key: str = "scores") -> tuple[float, float, int]:
    """Pooled recall@5 and MRR of `scope` over the runs' questions (`key` "user_scores":
    the assistant form's questions about the user alone)."""
    rows = [row for r in runs if group in r[key].get(scope, {})
            for row in r[key][scope][group].per_question]
    if not rows:
        return 0.0, 0.0, 0
    return statistics.fmean(r[0] for r in rows), statistics.fmean(r[4] for r in rows), len(rows)


def pooled_voice(runs: list[dict]) -> NoteVoice:
    """The note measures of every run together, each name prefixed by its conversation."""
    out = NoteVoice()
    for r in runs:
        v: NoteVoice = r["voice"]
        out.notes += v.notes
        for what in VOICE_TARGETS:
            getattr(out, what).extend((f"{r['sample_id']}/{n}", why) for n, why in getattr(v, what))
    return out


def chosen_indices(spec: str) -> list[int]:
    if "-" in spec:
        a, b = spec.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in spec.split(",")]


def chosen_forms(form: str, users: str, seed: int) -> list[Form]:
    """The forms `--form` and `--assistant-user` ask for, in the order they run."""
    out = []
    if form in ("clean", "all"):
        out.append(Form("clean", "chat"))
    if form in ("texting", "all"):
        out.append(Form("texting", "texting", seed=seed))
    if form in ("assistant", "all"):
        for side in (("a", "b") if users == "both" else (users,)):
            out.append(Form(f"assistant-{side}", "assistant", user=side))
    return out


def headline(runs: list[dict], form: Form) -> float:
    """The recall@5 the issue's target applies to: digest over every question, or in the
    assistant form over the questions about the user (their evidence is the user's)."""
    return pooled(runs, "digest", key="user_scores" if form.user else "scores")[0]


def print_form(form: Form, runs: list[dict], show: int) -> dict:
    """One form's figures, printed; returned for the JSON and the comparison."""
    sessions = sum(r["sessions"] for r in runs)
    notes = sum(r["notes"] for r in runs)
    messages = sum(r["messages"] for r in runs)
    turns = sum(r["turns"] for r in runs)
    reactions = [n for r in runs for n in r["reaction_names"]]
    share = len(reactions) / notes if notes else 0.0
    dream_s = sum(r["dream_s"] for r in runs)
    dream_cpu = sum(r["dream_cpu_s"] for r in runs)
    print(f"\n== form {form.name} ({form.describe()}): {len(runs)} conversations, {sessions} "
          f"sessions, {messages:,} messages, {sum(r['questions'] for r in runs)} questions")
    print(f"{'scope':<10}{'recall@5':>10}{'MRR':>8}   {'recall@5 (1-4)':>15}")
    figures: dict = {}
    for scope in SCOPES:
        r5, mrr, _ = pooled(runs, scope)
        h5, hm, _ = pooled(runs, scope, HEADLINE)
        figures[scope] = {"recall@5": r5, "mrr": mrr, "recall@5 (1-4)": h5, "mrr (1-4)": hm}
        print(f"{scope:<10}{r5:>10.3f}{mrr:>8.3f}   {h5:>15.3f}")
    if form.user:
        u5, um, n = pooled(runs, "digest", key="user_scores")
        figures["digest (user's questions)"] = {"recall@5": u5, "mrr": um, "n": n}
        print(f"digest, the {n} questions whose evidence is all the user's (the target's): "
              f"recall@5 {u5:.3f} MRR {um:.3f}")
    material = sum(r["material_tokens"] for r in runs)
    digest = sum(r["digest_tokens"] for r in runs)
    print(f"notes written {notes} ({notes / sessions:.1f} per session), "
          f"units {sum(r['units'] for r in runs) / sessions:.1f} per session; "
          f"named from a reaction {len(reactions)} ({share:.1%})"
          + (f": {', '.join(reactions[:8])}" if reactions else ""))
    print(f"digest / material tokens {digest:,} / {material:,} = {digest / material:.2f}; "
          f"dream {dream_s:.0f} s, {dream_cpu:.0f} CPU s: per 1,000 messages "
          f"{1000 * dream_s / messages:.1f} s, {1000 * dream_cpu / messages:.1f} CPU s; per "
          f"1,000 of the dataset's turns ({turns:,}) {1000 * dream_cpu / turns:.1f} CPU s")
    twins = [f"{r['sample_id']}/{a} ~ {b}" for r in runs for a, b in r["near_duplicates"]]
    print(f"  pairs of a person's notes on one topic (dream/keys.py: a lemma, a spelling, a "
          f"phrase inside another with its head, a word cut short): {len(twins)}"
          + (f": {', '.join(twins[:6])}" if twins else ""))
    voice = pooled_voice(runs)
    for what, label in VOICE_LABELS.items():
        limit = VOICE_TARGETS[what]
        print(f"  {label:<38}{voice.rate(what):>7.1%}  ({len(getattr(voice, what))} of "
              f"{voice.notes}; target {'0' if limit == 0 else f'<= {limit:.0%}'})")
    for r in runs:
        if show:
            print(f"  {r['sample_id']}: " + ", ".join(r["names"][:show]))
    return {
        "form": form.name, "layout": form.layout, "user": form.user, "seed": form.seed,
        "figures": figures, "headline_recall5": headline(runs, form), "notes": notes,
        "sessions": sessions, "messages": messages, "reaction_names": reactions,
        "near_duplicates": twins,
        "units_per_session": sum(r["units"] for r in runs) / sessions,
        "digest_tokens": digest, "material_tokens": material, "dream_s": dream_s,
        "dream_cpu_s": dream_cpu, "dream_s_per_1k_messages": 1000 * dream_s / messages,
        "dream_cpu_s_per_1k_messages": 1000 * dream_cpu / messages, "turns": turns,
        "dream_cpu_s_per_1k_turns": 1000 * dream_cpu / turns,
        "voice": voice.to_json(), "_voice": voice,
        "per_conversation": [
            {k: v for k, v in r.items() if k not in ("scores", "user_scores", "names", "pairs", "voice")}
            | {"digest_recall5": pooled([r], "digest")[0],
               "digest_recall5_user": pooled([r], "digest", key="user_scores")[0] if form.user else None}
            for r in runs],
    }


def print_ceiling(runs: list[dict]) -> None:
    c = fusion_ceiling(runs)
    print("\nhow far the digest can lift the raw logs (clean form; 30 hits each, a digest hit "
          "traced to its matched lines' sessions; recall@5 / MRR):")
    print(f"  raw logs {c['raw'][0]:.3f} / {c['raw'][1]:.3f}; digest {c['digest'][0]:.3f} / "
          f"{c['digest'][1]:.3f}; top hit right: raw {c['top1_raw']:.3f}, digest "
          f"{c['top1_digest']:.3f}")
    print(f"  evidence sessions missing from the raw logs' top five: {c['missing']}, "
          f"of them in the digest's top five: {c['missing_in_digest5']}")
    print(f"  best weighted RRF of {len(GRID)} (k, weight) settings: {c['best']} "
          f"{c['best_scores'][0]:.3f} / {c['best_scores'][1]:.3f}")
    if len(runs) > 1:
        print(f"  the first conversation's best setting {c['first_setting']} on the others: "
              f"{c['first_on_rest'][0]:.3f} / {c['first_on_rest'][1]:.3f} (raw logs there "
              f"{c['raw_on_rest'][0]:.3f} / {c['raw_on_rest'][1]:.3f})")
    print(f"  raw top four + the digest's best new session fifth: {c['slot5'][0]:.3f} / "
          f"{c['slot5'][1]:.3f}; the digest's best session first: {c['slot1'][0]:.3f} / "
          f"{c['slot1'][1]:.3f}")


def write_flagged(path: Path, results: list[dict]) -> None:
    """Every note a measure flagged, per form and measure, for a person to review."""
    lines = ["# Notes the measures flagged (bench_dream_memory.py)", ""]
    for res in results:
        voice: NoteVoice = res["_voice"]
        lines += [f"## form {res['form']} ({voice.notes} notes)", ""]
        for what, label in VOICE_LABELS.items():
            flagged = getattr(voice, what)
            lines += [f"### {label}: {len(flagged)}", ""]
            lines += [f"- `{name}`: {why}" for name, why in flagged] or ["- none"]
            lines.append("")
    path.write_text("\n".join(lines), "utf-8")


def remeasure(work: Path, flagged: Path | None) -> int:
    """The note measures again over the vaults an earlier run kept in `work`
    (`<work>/<form>/<conversation>/digest/…`), without dreaming: for reviewing a measure
    or its flagged list. Exit status 1 when a measure misses its target."""
    results = []
    for form_dir in sorted(p for p in work.iterdir() if p.is_dir()):
        runs = [{"sample_id": vault.name,
                 "voice": measure_notes(read_notes(vault, sorted(
                     q.relative_to(vault).as_posix() for q in (vault / "digest").rglob("*.md"))))}
                for vault in sorted(form_dir.iterdir()) if (vault / "digest").is_dir()]
        if not runs:
            continue
        voice = pooled_voice(runs)
        print(f"form {form_dir.name}: {voice.notes} notes")
        for what, label in VOICE_LABELS.items():
            print(f"  {label:<38}{voice.rate(what):>7.1%}  ({len(getattr(voice, what))})")
        results.append({"form": form_dir.name, "_voice": voice})
    if not results:
        print(f"no vaults under {work}: give the --work folder of an earlier run.")
        return 2
    out = flagged or work / "flagged-notes.md"
    write_flagged(out, results)
    print(f"notes the measures flagged, for review: {out}")
    return 0 if all(all(r["_voice"].targets().values()) for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", default="0-4", help="indices, e.g. 0-4 or 0,2")
    ap.add_argument("--form", choices=("clean", "texting", "assistant", "all"), default="all",
                    help="which rendering of the conversations to dream (default: all three)")
    ap.add_argument("--assistant-user", choices=("a", "b", "both"), default="both",
                    help="in the assistant form, which speaker is the user (default: each once)")
    ap.add_argument("--seed", type=int, default=0, help="the texting form's seed")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--work", help="keep the vaults here (default: a temporary folder)")
    ap.add_argument("--json", dest="json_out", help="write the figures to this file")
    ap.add_argument("--flagged", help="write the notes the measures flag to this file "
                                      "(default: flagged-notes.md in the work folder)")
    ap.add_argument("--show", type=int, default=0, help="print N note names per conversation")
    ap.add_argument("--remeasure", metavar="WORK",
                    help="only measure the notes of the vaults an earlier run kept in WORK")
    args = ap.parse_args(argv)
    if args.remeasure:
        if not Path(args.remeasure).is_dir():
            ap.error(f"--remeasure {args.remeasure} is not a folder")
        return remeasure(Path(args.remeasure), Path(args.flagged) if args.flagged else None)
    if not DATA.is_file():
        print(f"LoCoMo data not found at {DATA}: nothing to measure.")
        return 0
    samples = load_conversations(DATA)
    chosen = chosen_indices(args.conversations)
    forms = chosen_forms(args.form, args.assistant_user, args.seed)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-dream-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"dream memory: LoCoMo conversations {args.conversations}, forms "
          f"{', '.join(f.name for f in forms)}, embedder {args.embedder}, vaults in {work}")
    results, clean_runs = [], []
    for form in forms:
        runs = []
        for i in chosen:
            r = conversation(samples[i], work, args.embedder, form, ceiling=form.name == "clean")
            runs.append(r)
            d5, dm, n = pooled([r], "digest")
            extra = ""
            if form.user:
                u5, _, un = pooled([r], "digest", key="user_scores")
                extra = f"; the user's {un} questions {u5:.3f}"
            print(f"[{form.name}] {r['sample_id']}: {r['sessions']} sessions, {r['messages']} "
                  f"messages, {r['notes']} notes ({r['created']} created, {r['corroborated']} "
                  f"corroborations, {r['units'] / r['sessions']:.1f} units/session), dream "
                  f"{r['dream_s']:.0f} s ({r['dream_cpu_s']:.0f} CPU s); digest recall@5 "
                  f"{d5:.3f} MRR {dm:.3f} ({n} questions{extra})", flush=True)
        results.append(print_form(form, runs, args.show))
        if form.name == "clean":
            clean_runs = runs
    if clean_runs:
        print_ceiling(clean_runs)
    print("\ndigest recall@5 per form (the assistant form: the user's questions; every "
          "question in brackets):")
    for res in results:
        every = res["figures"]["digest"]["recall@5"]
        print(f"  {res['form']:<13}{res['headline_recall5']:.3f}"
              + (f"  ({every:.3f})" if res["user"] else ""))
    heads = [res["headline_recall5"] for res in results]
    spread = max(heads) - min(heads) if heads else 0.0
    print(f"  spread between forms {spread:.3f}")
    ok = {
        "digest recall@5 >= 0.60 (clean)": all(
            res["figures"]["digest"]["recall@5"] >= TARGETS["digest_recall5"]
            for res in results if res["form"] == "clean"),
        "all above the raw logs (clean)": all(
            res["figures"]["all"]["recall@5"] > res["figures"]["sources"]["recall@5"]
            for res in results if res["form"] == "clean"),
        "no note named from a reaction": all(not res["reaction_names"] for res in results),
        f"digest recall@5 >= {TARGETS['form_recall5']} on each form": all(
            h >= TARGETS["form_recall5"] for h in heads),
        f"forms within {TARGETS['form_spread']} of each other": spread <= TARGETS["form_spread"],
    }
    for what, label in VOICE_LABELS.items():
        limit = VOICE_TARGETS[what]
        ok[f"{label} {'0' if limit == 0 else f'<= {limit:.0%}'} on each form"] = all(
            res["_voice"].rate(what) <= limit for res in results)
    for what, met in ok.items():
        print(f"  {'met ' if met else 'MISSED'}  {what}")
    flagged = Path(args.flagged) if args.flagged else work / "flagged-notes.md"
    write_flagged(flagged, results)
    print(f"notes the measures flagged, for review: {flagged}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "conversations": args.conversations, "embedder": args.embedder, "targets": ok,
            "spread": spread,
            "forms": [{k: v for k, v in res.items() if not k.startswith("_")} for res in results],
            "fusion_ceiling": {k: list(v) if isinstance(v, tuple) else v
                               for k, v in fusion_ceiling(clean_runs).items()} if clean_runs else None,
        }, indent=2), "utf-8")
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
