"""The first-consolidate benchmark (benchmarks/bench_first_consolidate.py) on a small course
vault with the hashing embedder: it imports, indexes and consolidates through the real
program and reports every figure; and the course vault is built as public ones are."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

from reme_lab.course_vault import write_course_vault

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_first_consolidate", ROOT / "benchmarks" / "bench_first_consolidate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_course_vault_is_built_as_public_vaults_are(tmp_path):
    made = write_course_vault(tmp_path / "v", notes=120)
    files = {p.relative_to(tmp_path / "v").as_posix(): p for p in (tmp_path / "v").rglob("*.md")}
    assert made.notes == len(files) and 110 <= made.notes <= 130
    names = {Path(p).stem for p in files}
    for index in made.index_notes:  # an index note lists its course's notes by short link
        listed = re.findall(r"\[\[([^\]|#]+)", files[index].read_text(encoding="utf-8"))
        folder = index.rsplit("/", 1)[0]
        assert listed and all(f"{folder}/{name}.md" in files for name in listed)
    text = "".join(p.read_text(encoding="utf-8") for p in files.values())
    assert "$" in text and "```" in text and "![[" in text and "created-at:" in text
    unwritten = {t for t in re.findall(r"\[\[([^\]|#]+)", text) if t not in names
                 and not t.endswith(".png")}
    assert unwritten  # links to notes not yet written
    assert any(p.startswith("Templates/") for p in files)
    assert write_course_vault(tmp_path / "w", notes=120) == made  # deterministic


def test_the_benchmark_imports_indexes_consolidates_and_reports_the_cpu_beyond_embedding(
        tmp_path, capsys):
    out = tmp_path / "figures.json"
    code = _bench().main(["--notes", "40", "--embedder", "hashing", "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    for label in ("import", "index (embedding)", "consolidate", "merge", "of it embedding",
                  "CPU-s beyond embedding"):
        assert label in printed, label
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["notes"] == 40 and figures["consolidate_cpu_beyond_embedding_s"] > 0
    assert set(figures["steps"]["phases"]) >= {"communities", "merge", "health"}
