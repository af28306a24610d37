"""Meaning survives naming (issue #30.7, docs/spec.md §5.3): a note's name and description
never drop a negation or qualifier their source states, never lean on a sentence they
were cut from, and say what the note is about.

Read as a user meets them: material dreamt through the CLI entry point, then the note the
offline brain wrote (its frontmatter name — the slug — and description, and its body).
The sample's four cases (`init --sample`), then pages and logs written for this test in
the phrasing of public documentation ("Features that are not supported", "Do not use X
with Y", "X only works when Y") and of people's rules ("Also …", 也…, 除非…), English and
Chinese. The checks are the test's own, not the code's: a negation is "not", "n't",
"never", "no", "without" (不, 别, 没, 无); a description leans back when it opens with
"Not", "Also", "That", "It", "This", "Either", "No" (也, 这, 那, 它, 还).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reme_workbench.cli import cli
from reme_workbench.vault.note import parse
from tests.conftest import _Home, _isolate

NEGATION = re.compile(r"\b(not|never|no|without|cannot)\b|n't|\bdon-t\b|[不别没无]", re.I)
LEANS_BACK = re.compile(r"^(not|also|that|it|this|either|no)\b|^[也这那它还]", re.I)


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def dream(vault: Path, *files: str) -> dict[str, tuple[str, str, str]]:
    """Every digest note after dreaming `files`: path -> (name, description, body)."""
    run("--vault", str(vault), "dream", *files, "--embedder", "hashing", "--json")
    notes = {}
    for path in sorted((vault / "digest").rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        note = parse(path.read_text(encoding="utf-8"), rel)
        notes[rel] = (str(note.frontmatter.get("name", "")),
                      str(note.frontmatter.get("description", "")), note.body)
    return notes


def note_with(notes: dict, text: str) -> tuple[str, str, str]:
    """The one note whose body holds `text`."""
    found = [n for n in notes.values() if text in n[2]]
    assert len(found) == 1, f"{len(found)} notes hold {text!r}: {[n[0] for n in notes.values()]}"
    return found[0]


# --- the bundled sample ----------------------------------------------------------------------

SAMPLE_FILES = ("resource/2026-10-15/pgbouncer-notes.md",
                "daily/2026-10-07/migration-0041-add-refund-reason.md",
                "resource/2026-10-16/pgbouncer-rollout-sync.txt",
                "daily/2026-10-08/rotate-staging-db-credential.md")


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, tuple[str, str, str]]:
    where = tmp_path_factory.mktemp("sample")
    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, _Home(where))
        vault = where / "vault"
        run("init", str(vault), "--sample", "--json")
        return dream(vault, *SAMPLE_FILES)


def test_a_heading_saying_what_does_not_work_keeps_the_negation(sample):
    name, description, body = note_with(sample, "`LISTEN` / `NOTIFY` listeners")
    assert NEGATION.search(name), name  # was transaction-mode
    assert NEGATION.search(description), description  # was "SET / RESET of session parameters …"
    lead = body.split("\n- ", 1)[0]
    assert NEGATION.search(lead), body  # the list is introduced as what does not work


def test_a_rules_description_does_not_start_with_the_sentence_after_it(sample):
    name, description, _ = note_with(sample, "Never run migrations without a backup.")
    assert not LEANS_BACK.search(description), description  # was "Not on staging either."
    assert "never run migrations without a backup" in description.lower()
    assert "Not on staging either" in description  # the qualifier is kept with its rule


def test_a_verbless_no_is_described_with_the_sentence_it_follows(sample):
    # "No code change, as long as the app doesn't use SET …": a verb only in its "as long as"
    _, description, _ = note_with(sample, "No code change, as long as the app")
    assert not LEANS_BACK.search(description), description
    assert description.startswith("Keybox payments/staging/db gets the new host and port.")


def test_a_date_answer_is_named_by_what_the_date_is_for(sample):
    name, description, _ = note_with(sample, "Staging Monday the 19th, 10:00.")
    assert "pgbouncer" in name, name  # was staging-monday-the-19th: a date, not the rollout
    assert "PgBouncer" in description, description
    assert "if staging is quiet for a week" in description  # the condition on the prod date


def test_the_corrected_order_is_said_where_it_is_referred_to(sample):
    name, description, body = note_with(sample, "Prod rotation is scheduled for the end of the month")
    # was "…; use the corrected order." and nothing else: which order?
    assert "Restart both consumers of the secret" in description, description
    assert "deployctl restart ledger-worker" in body, body
    assert body.index("use the corrected order") < body.index("deployctl restart ledger-worker")


# --- documentation and rules written in public phrasing -----------------------------------------

REPLICAS_EN = """\
# Read replicas

A read replica is a copy of the primary database that answers read-only queries. It
follows the primary through streaming replication and usually lags it by a few seconds.

## Features that are not supported on a replica

- Writes of any kind, including temporary tables and sequence updates.
- Logical replication slots created on the replica itself.
- Advisory locks that must survive a failover to another node.

## Standby feedback only works when a slot exists

Without a replication slot the primary cannot know which rows the replica still reads,
so vacuum removes them and long queries on the replica are cancelled with a conflict.
Create the slot first, then turn the setting on in the replica's configuration.

## Do not use synchronous commit with a remote replica

Every commit on the primary waits for the replica to confirm the write, so a replica in
another region adds its network round trip to every transaction the application runs.
"""

REPLICAS_ZH = """\
# 只读副本

只读副本是主库的一份完整拷贝，只处理只读查询，通过流复制跟随主库，延迟通常在几秒以内。

## 事务池模式：哪些会话级功能不能用

- 会话参数的 SET 和 RESET，请改用事务内的 SET LOCAL 语句。
- LISTEN 和 NOTIFY 监听，连接归还连接池以后通知就会丢失。
- 会话级的咨询锁，事务级的咨询锁可以照常使用，不受影响。

## 反馈功能只在副本上建好复制槽以后才会生效

没有复制槽的时候，主库不知道副本还在读哪些行，清理进程会把它们删掉，副本上的长查询会因为冲突被取消。先建好复制槽，再打开这个设置。
"""

RULES_EN = """\
# Release rules

Agreed with Mei today:

- Never force-push to main. Also not to release branches, even to fix a typo.
- Don't message the on-call engineer about releases unless a deploy is failing.
"""

RULES_ZH = """\
# 发布规矩

梅今天定的：

- 不要在周五发布。也不要在节假日的前一天发布，哪怕只是改个错别字。
- 除非主管批准，否则不要在生产库上直接恢复备份。
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, tuple[str, str, str]]:
    where = tmp_path_factory.mktemp("written")
    with pytest.MonkeyPatch.context() as patch:
        _isolate(patch, _Home(where))
        vault = where / "vault"
        run("init", str(vault), "--json")
        files = {"resource/2026-11-02/read-replicas.md": REPLICAS_EN,
                 "resource/2026-11-02/只读副本.md": REPLICAS_ZH,
                 "daily/2026-11-03/release-rules.md": RULES_EN,
                 "daily/2026-11-03/发布规矩.md": RULES_ZH}
        for rel, text in files.items():
            (vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (vault / rel).write_text(text, encoding="utf-8")
        return dream(vault, *files)


def test_features_that_are_not_supported_keep_their_negation(written):
    name, description, _ = note_with(written, "Logical replication slots created on the replica")
    assert NEGATION.search(name) and "supported" in name, name
    assert NEGATION.search(description), description


def test_x_only_works_when_y_keeps_only(written):
    name, description, _ = note_with(written, "Without a replication slot the primary")
    assert re.search(r"\bonly\b", name), name


def test_do_not_use_x_with_y_keeps_the_negation(written):
    name, _, _ = note_with(written, "Every commit on the primary waits")
    assert NEGATION.search(name), name


def test_a_rule_continued_with_also_is_described_with_its_rule(written):
    name, description, _ = note_with(written, "Never force-push to main.")
    assert not LEANS_BACK.search(description), description  # not "Also not to release branches…"
    assert "Also not to release branches" in description


def test_a_rule_with_unless_keeps_it_in_the_name(written):
    name, description, _ = note_with(written, "Don't message the on-call engineer")
    assert "unless" in name, name
    assert "unless a deploy is failing" in description


def test_chinese_heading_negation_survives_naming(written):
    name, description, body = note_with(written, "LISTEN 和 NOTIFY 监听")
    assert "不能" in name, name
    assert "不能" in description, description


def test_chinese_only_survives_naming(written):
    name, _, _ = note_with(written, "没有复制槽的时候")
    assert "只" in name and not name.endswith(("只", "仅", "才")), name  # not 反馈功能只


def test_chinese_rule_continued_with_ye_is_described_with_its_rule(written):
    _, description, _ = note_with(written, "不要在周五发布")
    assert not LEANS_BACK.search(description), description  # not "也不要在节假日的前一天发布…"
    assert "不要在周五发布" in description and "节假日" in description


def test_chinese_unless_survives_naming(written):
    name, _, _ = note_with(written, "除非主管批准")
    assert "除非" in name and "不要" in name, name
