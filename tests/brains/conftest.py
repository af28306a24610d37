"""What the brain tests share: dreaming one chat as a user would, through the CLI, and
reading the digest notes it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def dream_chat_cli(tmp_path):
    """`dream_chat_cli(name, text)`: a new vault with `text` as `daily/2026-05-04/<name>.md`,
    dreamt by `reme-workbench dream --embedder hashing`; returns the vault's root."""
    from click.testing import CliRunner

    from reme_workbench.cli import cli

    def dream(name: str, text: str) -> Path:
        runner = CliRunner()
        root = tmp_path / "v"
        assert runner.invoke(cli, ["init", str(root), "--json"]).exit_code == 0
        (root / "daily/2026-05-04").mkdir(parents=True, exist_ok=True)
        (root / f"daily/2026-05-04/{name}.md").write_text(text, encoding="utf-8")
        result = runner.invoke(cli, ["--vault", str(root), "dream", "--embedder", "hashing",
                                     "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return root

    return dream


def digest_notes(root: Path) -> dict[str, str]:
    """Every digest note of the vault: its file stem -> its text."""
    return {p.stem: p.read_text("utf-8") for p in (root / "digest").rglob("*.md")}


def zh_topics(sentence: str, before: str = "", earlier: str = "") -> tuple[str, ...]:
    """The topics the Chinese reading gives a sentence (no names known), or () for none;
    `before`/`earlier` are the sentence before it and the speaker's turn before."""
    from reme_workbench.brains.offline_dream.zh_statements import read_chinese

    read = read_chinese(sentence, frozenset(), before=before, earlier=earlier)
    return read.topics if read is not None else ()
