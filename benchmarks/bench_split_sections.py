"""How alike the `##` sections of long notes are: the measurements behind the offline
split brain's rule (`[split] dispersed_under`, `split.DISJOINT_SHARE`; docs/experiments.md
"Sections of real notes").

    python benchmarks/bench_split_sections.py [--embedders hashing,minilm,e5]
                                              [--generated 4] [FILE ...]

For each note: its sections as the offline split brain reads them
(`brains/offline_consolidate/split.sections_outline`: the top heading level, or the
`##` under a single `# Title`), how many have the 40 tokens a section needs to count, and
the two measures the brain compares with its cuts, each the mean over every pair of
those sections:

* *alike* — `SplitPlanner.section_similarities`: the cosine of the sections' topic
  words (stopwords left out) above the chance level of unrelated note sentences read
  the same way, per embedder;
* *shared* — `split.shared_words`: the share of topic words two sections have in common
  (no embedder).

Beside them whether a person would split the note, and whether the brain does at the
defaults. Notes measured: the planted ones of `reme_lab.sectioned_notes`
(written as people write them), `--generated` overloaded notes and hubs of a generated
vault (`reme_lab.generator`), and the FILEs given — real notes a person keeps whole:
a package's README (a wheel's METADATA), a help or documentation page.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reme_lab.sectioned_notes import NOTES  # noqa: E402
from reme_workbench.brains.offline_consolidate.offline import OfflineConsolidateBrain  # noqa: E402
from reme_workbench.brains.offline_consolidate.split import (  # noqa: E402
    DISJOINT_SHARE,
    MIN_SECTION_TOKENS,
    sections_outline,
    shared_words,
)
from reme_workbench.config import Settings  # noqa: E402
from reme_workbench.index.factory import get_embedder  # noqa: E402
from reme_workbench.llm.consolidate import NoteView  # noqa: E402
from reme_workbench.vault.note import parse  # noqa: E402
from reme_workbench.vault.tokens import estimate_tokens  # noqa: E402


def _body(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.name == "METADATA":  # a wheel's metadata: the README follows the headers
        text = text.split("\n\n", 1)[1] if "\n\n" in text else text
    return parse(text, path.name).body


def _generated(count: int) -> dict[str, tuple[str, bool]]:
    """The generator's overloaded notes (four communities' statements: split) and its
    hub notes (overviews of one community: not split), `count` of each."""
    from reme_lab.generator import VaultSpec, generate_vault

    out: dict[str, tuple[str, bool]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        plan = generate_vault(root, VaultSpec(notes=400, duplicates=0, near_misses=0,
                                              hubs=count, overloaded=count),
                              truth_path=Path(tmp) / "truth.json")
        for k, path in enumerate(sorted(plan.overloaded)[:count]):
            out[f"generated overloaded {k + 1}"] = (_body(root / path), True)
        for k, (_, path) in enumerate(sorted(plan.hubs)[:count]):
            out[f"generated hub {k + 1}"] = (_body(root / path), False)
    return out


def measure(body: str, brain: OfflineConsolidateBrain
            ) -> tuple[int, int, float | None, float | None]:
    """(sections, sections of 40 tokens or more, their mean `alike`, their mean `shared`)."""
    sections = sections_outline(body).sections
    texts = [s.text for s in sections if estimate_tokens(s.text) >= MIN_SECTION_TOKENS]
    if len(texts) < 2:
        return len(sections), len(texts), None, None
    upper = np.triu_indices(len(texts), 1)
    alike = brain.splitter.section_similarities(texts, "en")[upper]
    return len(sections), len(texts), float(alike.mean()), float(shared_words(texts)[upper].mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--embedders", default="hashing,minilm,e5")
    parser.add_argument("--generated", type=int, default=4,
                        help="overloaded notes and hubs of a generated vault to measure too")
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    notes = dict(NOTES)
    if args.generated:
        notes.update(_generated(args.generated))
    for path in args.files:
        label = f"{path.parent.name.split('.dist-info')[0]} README" if path.name == "METADATA" else path.name
        notes[label] = (_body(path), False)
    embedders = [e.strip() for e in args.embedders.split(",") if e.strip()]
    brains = {e: OfflineConsolidateBrain(get_embedder(e), Settings()) for e in embedders}
    cut = Settings().split.dispersed_under
    print("| note | tokens | sections (≥ 40 tokens) | a person splits | shared | "
          + " | ".join(f"alike, {e}" for e in embedders) + " | "
          + " | ".join(f"brain splits, {e}" for e in embedders) + " |")
    print("|---" * (5 + 2 * len(embedders)) + "|")
    for name, (body, split) in notes.items():
        alike, decided, counted, shared = [], [], "", None
        for brain in brains.values():
            n, big, mean, shared = measure(body, brain)
            counted = f"{n} ({big})"
            alike.append("—" if mean is None else f"{mean:.2f}")
            note = NoteView(path="digest/wiki/note.md", name=name, description="", body=body)
            decided.append("yes" if brain.splitter.plan(note, "wiki", "en")["overloaded"] else "no")
        print(f"| {name} | {estimate_tokens(body)} | {counted} | {'yes' if split else 'no'} | "
              f"{'—' if shared is None else f'{shared:.2f}'} | " + " | ".join(alike) + " | "
              + " | ".join(decided) + " |")
    print(f"\nThe brain splits when alike < {cut:g} or shared < {cut * DISJOINT_SHARE:g}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
