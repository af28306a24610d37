"""How many texts (and tokens) a refresh embeds, with and without the vector cache.

    python benchmarks/bench_embed_once.py [--before DIR] [--embedder hashing]
                                          [--only import] [--json FILE]

Four vaults, each indexed once, then changed and indexed again; what is counted is
every text passed to the embedder's `embed` (and its estimated tokens) by the refresh
after the change (the first index, for the import):

a. rename: a folder of 100 digest notes moved to another folder name;
b. import: a 200-note course vault (`reme_lab.course_vault`) brought in with
   `reme-workbench import` (its originals kept under resource/), then indexed;
c. schema: the index's tables rebuilt (its schema marked as an older one), chunk text
   the same;
d. template: 50 notes from one template (their own names, one template body) indexed.

"after" runs with this checkout; "before" runs the same steps with the code in
`--before DIR` (a checkout of the code to compare against, e.g. a worktree of main:
`git worktree add --detach ../old main`), in its own process. With `--embedder minilm`
the CPU seconds spent in `embed` are printed too (`--only import` for one figure).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
SCENARIOS = ("rename", "import", "schema", "template")


class CountingEmbedder:
    """The embedder, counted: texts and estimated tokens passed to `embed`, CPU seconds."""

    def __init__(self, inner, estimate) -> None:
        self.inner, self.estimate = inner, estimate
        self.name, self.dim = inner.name, inner.dim
        self.texts = self.tokens = 0
        self.seconds = 0.0

    def embed(self, texts):
        self.texts += len(texts)
        self.tokens += sum(self.estimate(t) for t in texts)
        start = time.process_time()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.process_time() - start

    def embed_query(self, text):
        return self.embed([text])[0]


def _lecture(i: int, words: list[str]) -> str:
    body = "\n\n".join(
        f"## Part {p}\n\n" + " ".join(words[(i * 7 + p * 13 + k) % len(words)] for k in range(60))
        for p in range(3)
    )
    return f"---\nname: lecture-{i:03d}\ndescription: Lecture {i} of the course.\n---\n{body}\n"


WORDS = ("derivative limit integral series vector matrix eigenvalue proof lemma theorem "
         "graph tree queue stack compiler parser token grammar automaton language kernel "
         "thread process memory cache page disk network socket packet router").split()


def _index(root: Path, embedder) -> None:
    from reme_workbench.index.store import VaultIndex

    with VaultIndex(root, embedder) as index:
        index.refresh()


def _counted(root: Path, make, estimate) -> CountingEmbedder:
    counting = CountingEmbedder(make(), estimate)
    _index(root, counting)
    return counting


def run_scenarios(spec: str, only: list[str]) -> dict:
    """Each scenario's counts, with the reme_workbench importable from sys.path."""
    from reme_workbench.index.factory import get_embedder
    from reme_workbench.vault.tokens import estimate_tokens

    def make():
        return get_embedder(spec)

    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in only:
            root = tmp / name
            for layer in ("resource", "daily", "digest/wiki", "digest/procedure",
                          "digest/personal", "meta", "audit"):
                (root / layer).mkdir(parents=True, exist_ok=True)
            if name == "rename":
                folder = root / "digest/wiki/course"
                folder.mkdir()
                for i in range(100):
                    (folder / f"lecture-{i:03d}.md").write_text(_lecture(i, WORDS), encoding="utf-8")
                _index(root, make())
                folder.rename(root / "digest/wiki/course-2025")
                counted = _counted(root, make, estimate_tokens)
            elif name == "import":
                from reme_lab.course_vault import write_course_vault

                source = tmp / "course"
                write_course_vault(source, notes=200)
                subprocess.run([sys.executable, "-m", "reme_workbench", "import", str(source),
                                "--vault", str(root), "--json"], check=True,
                               capture_output=True, env=dict(os.environ))
                counted = _counted(root, make, estimate_tokens)
            elif name == "schema":
                for i in range(100):
                    (root / f"digest/wiki/lecture-{i:03d}.md").write_text(
                        _lecture(i, WORDS), encoding="utf-8")
                _index(root, make())
                with sqlite3.connect(root / ".reme/index.db") as conn:  # as an older version left it
                    conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
                conn.close()
                counted = _counted(root, make, estimate_tokens)
            else:  # template
                template = ("## Summary\n\nWhat this project is for, in one paragraph.\n\n"
                            "## Checklist\n\n- [ ] owner named\n- [ ] budget agreed\n"
                            "- [ ] risks listed\n\n## Log\n\nNothing yet.\n")
                for i in range(50):
                    (root / f"digest/wiki/project-{i:02d}.md").write_text(
                        f"---\nname: project-{i:02d}\ndescription: A project.\n---\n{template}",
                        encoding="utf-8")
                counted = _counted(root, make, estimate_tokens)
            with sqlite3.connect(root / ".reme/index.db") as conn:
                chunks = conn.execute("SELECT count(*) FROM chunks WHERE embedded = 1").fetchone()[0]
            conn.close()
            out[name] = {"texts": counted.texts, "tokens": counted.tokens,
                         "embed_cpu_s": round(counted.seconds, 2), "chunks": chunks}
    return out


def _run_with(src: Path, spec: str, only: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.run([sys.executable, str(HERE), "--scenarios-only", "--embedder", spec,
                           "--only", ",".join(only)], capture_output=True, text=True, env=env,
                          cwd=src)
    if proc.returncode:
        sys.exit(f"the run with {src} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare against")
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--scenarios-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [s for s in args.only.split(",") if s]
    if unknown := set(only) - set(SCENARIOS):
        parser.error(f"unknown scenario(s) {', '.join(sorted(unknown))}; use {', '.join(SCENARIOS)}")
    if args.scenarios_only:
        print(json.dumps(run_scenarios(args.embedder, only)))
        return
    results = {"after": _run_with(HERE.parents[1], args.embedder, only)}
    if args.before is not None:
        results["before"] = _run_with(args.before.resolve(), args.embedder, only)
    print(f"texts (tokens) embedded by the refresh, embedder {args.embedder}:")
    for name in only:
        after = results["after"][name]
        line = f"  {name:9} after {after['texts']:>6,} ({after['tokens']:>8,} tokens"
        line += f", {after['embed_cpu_s']:.1f} CPU-s)" if args.embedder != "hashing" else ")"
        if "before" in results:
            before = results["before"][name]
            line += f"   before {before['texts']:>6,} ({before['tokens']:>8,} tokens"
            line += f", {before['embed_cpu_s']:.1f} CPU-s)" if args.embedder != "hashing" else ")"
        print(line + f"   [{after['chunks']:,} chunks with a vector]")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
