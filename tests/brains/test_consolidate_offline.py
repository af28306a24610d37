"""The offline consolidate brain on real Markdown (docs/spec.md §7.6–§7.8).

Notes are what dream and people write: headings, callouts, bullets, numbered steps with
commands, full and short [[links]], `derived_from::` provenance, English and Chinese.
Duplicates are paraphrases under other names (the same facts in other words and order);
distinct pairs are other notes on the same topic (often from the same material).
"""

from __future__ import annotations

import json
import re

import pytest

from reme_workbench import textrules
from reme_workbench.brains.offline_consolidate import Anchors, OfflineConsolidateBrain
from reme_workbench.brains.offline_consolidate import text as tx
from reme_workbench.config import Settings
from reme_workbench.index.embeddings import HashingEmbedder
from reme_workbench.llm.consolidate import (
    HubRequest,
    MergeRequest,
    NoteView,
    PairRequest,
    SplitRequest,
)
from reme_workbench.vault.links import outbound_keys, parse_links
from reme_workbench.vault.slug import note_path, slugify
from reme_workbench.vault.tokens import content_tokens, estimate_tokens


def note(path: str, name: str, description: str, body: str) -> NoteView:
    return NoteView(path=path, name=name, description=description, body=body.strip() + "\n")


# --- English: PgBouncer -------------------------------------------------------------------

POOL_MODES = note(
    "digest/wiki/pgbouncer-pool-modes.md",
    "PgBouncer pool modes",
    "PgBouncer's three pool modes (session, transaction, statement) and the one payments uses.",
    """
PgBouncer hands a server connection to a client in one of three pool modes.

## Modes

- **session**: the server connection is held until the client disconnects.
- **transaction**: the connection goes back to the pool at the end of each transaction.
- **statement**: the connection goes back after every statement; multi-statement transactions are refused.

> [!warning] What transaction mode breaks
> Session-level features do not survive: `SET`, advisory locks held across transactions and protocol-level prepared statements.

## Our choice

payments-api and ledger-worker run in transaction mode since [[digest/wiki/decision-pgbouncer-in-transaction-mode.md|the October decision]].
The pool listens on port 6432 ([[digest/wiki/pgbouncer-default-port-is-6432.md|default port]]).

derived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]
""",
)

# the same facts, other name, other words and order, other material
POOLING_DUP = note(
    "digest/wiki/connection-pooling-modes.md",
    "Connection pooling modes",
    "How PgBouncer's session, transaction and statement modes differ, and which mode payments runs in.",
    """
## Pool modes of PgBouncer

PgBouncer has three pool modes; they decide when a server connection goes back to the pool.

1. Session mode: the client keeps its server connection until it disconnects.
2. Transaction mode: the connection goes back to the pool at the end of each transaction.
3. Statement mode: the connection goes back after every statement, so multi-statement transactions are refused.

> [!note]
> Session-level features do not survive transaction mode: `SET`, advisory locks held across transactions and protocol-level prepared statements.

payments-api and ledger-worker use transaction mode (see [[digest/wiki/decision-pgbouncer-in-transaction-mode.md]]).
The pool listens on [[digest/wiki/pgbouncer-default-port-is-6432.md|port 6432]].

derived_from:: [[daily/2026-10-14/pgbouncer-staging-cutover.md]]
""",
)

# same topic, same material, shares a link: a distinct note
USERLIST = note(
    "digest/wiki/pgbouncer-userlist-txt.md",
    "PgBouncer userlist.txt",
    "How PgBouncer checks client passwords against userlist.txt and how to reload it after a password change.",
    """
PgBouncer checks client passwords against `userlist.txt` while `auth_query` is not set up.

## Format

Each line holds a quoted user name and its password hash: `"payments_app_a" "SCRAM-SHA-256$..."`.

## After a rotation

- Add the new role's line before switching the secret in Keybox.
- Run `RELOAD;` on the admin console; open client connections stay up.
- Remove the old role's line once [[digest/procedure/rotate-prod-db-credential.md]] is done.

> [!tip]
> `SHOW USERS;` lists what PgBouncer loaded.

**Related:**

- [[digest/wiki/pgbouncer-pool-modes.md]]
- [[digest/wiki/pgbouncer-default-port-is-6432.md]]

derived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]
""",
)

SIZING = note(
    "digest/wiki/pgbouncer-sizing-settings.md",
    "PgBouncer sizing settings",
    "default_pool_size, max_client_conn and reserve_pool_size as set for payments on staging.",
    """
The pool is sized per database and user pair, not globally.

- `default_pool_size = 20`: server connections per database/user pair.
- `max_client_conn = 400`: clients PgBouncer accepts before refusing new ones.
- `reserve_pool_size = 5` with `reserve_pool_timeout = 3`: extra connections after a client waited 3 s.

> [!warning]
> Pool size changes now need a ticket with Data Platform ([[digest/wiki/pool-size-changes-now-need-data-platform.md]]).

Postgres allows 100 connections on staging, so the pool may use at most 80 of them.

**Related:**

- [[digest/wiki/pgbouncer-pool-modes.md]]
- [[digest/wiki/pgbouncer-default-port-is-6432.md]]

derived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]
""",
)

# --- English: a runbook and its paraphrase -------------------------------------------------

ROTATE = note(
    "digest/procedure/rotate-staging-db-credential.md",
    "Rotate the staging DB credential",
    "Quarterly rotation of the staging application database credential.",
    """
## When

Quarterly, or at once when the credential may have leaked.

## Steps

1. Set a new password on the inactive role.
2. `keybox put payments/staging/db user=<new_role> password=<redacted>`.
3. Restart **both** consumers of the secret:
   ```
   deployctl restart payments-api --env staging
   deployctl restart ledger-worker --env staging
   ```
4. Check that nothing still uses the old role in `pg_stat_activity`.
5. Only then `ALTER ROLE <old_role> NOLOGIN;`

## Watch out

- ledger-worker reads the same Keybox secret; restarting only payments-api left it failing on reconnect.

derived_from:: [[daily/2026-10-08/rotate-staging-db-credential.md]]
""",
)

ROTATE_DUP = note(
    "digest/procedure/staging-database-password-rotation.md",
    "Staging database password rotation",
    "Rotating the staging app database password every quarter, step by step.",
    """
Quarterly, or at once when the credential may have leaked.

1. Set a new password on the inactive role.
2. Store it: `keybox put payments/staging/db user=<new_role> password=<redacted>`.
3. Restart both consumers of the secret, payments-api and ledger-worker (`deployctl restart <service> --env staging`).
4. Check that nothing still uses the old role in `pg_stat_activity`.
5. Only then disable the old role with `ALTER ROLE <old_role> NOLOGIN;`.

> [!warning]
> ledger-worker reads the same Keybox secret: restarting only payments-api leaves it failing on reconnect.

See [[digest/wiki/pgbouncer-userlist-txt.md]] for the PgBouncer side.

derived_from:: [[daily/2026-10-29/rotate-prod-db-credential.md]]
""",
)

# --- Chinese: weekly report ---------------------------------------------------------------

REPORT_FORMAT = note(
    "digest/personal/周报用要点列表.md",
    "周报用要点列表",
    "周报写成三段要点列表：本周完成、风险、下周计划，不写大段文字。",
    """
梅要求周报用要点列表写，不要大段文字。

## 格式

- 分三段：**本周完成**、**风险**、**下周计划**。
- 每段最多五条，每条一句话。
- 风险要写清楚影响和负责人，见 [[digest/wiki/周报里不写具体的人名责任.md|人名规则]]。

> [!note] 为什么
> 托马斯在手机上看周报，一屏能看完最好。

derived_from:: [[daily/2026-10-05/weekly-report-w40.md]]
""",
)

REPORT_FORMAT_DUP = note(
    "digest/personal/周报格式.md",
    "周报格式",
    "周报的格式：三段要点（本周完成、风险、下周计划），不要成段的文字。",
    """
## 周报怎么写

周报用要点列表写，不要成段的文字。

1. 周报分三段：本周完成、风险、下周计划。
2. 每段最多五条，每条只写一句话。
3. 风险要写清楚影响和负责人（规则见 [[digest/wiki/周报里不写具体的人名责任.md]]）。

> [!tip]
> 托马斯在手机上看周报，所以一屏能看完最好。

derived_from:: [[daily/2026-10-19/weekly-report-w43.md]]
""",
)

REPORT_TIME = note(
    "digest/personal/周报时间.md",
    "周报时间",
    "周报从周一上午改到周五下午发，节假日前一天提前发。",
    """
周报以前是周一上午发，从十月起改到周五下午五点前发。

## 例外

- 周五是节假日时，前一个工作日下午发。
- 出差时可以晚一天，但要先在群里说一声。

> [!warning]
> 周一上午不再写周报，见 [[digest/wiki/周一不再写周报.md]]。

**相关：**

- [[digest/personal/周报用要点列表.md]]

derived_from:: [[daily/2026-10-19/weekly-report-w43.md]]
""",
)

REPORT_NAMES = note(
    "digest/wiki/周报里不写具体的人名责任.md",
    "周报里不写具体的人名责任",
    "周报中的风险只写团队，不点名到个人。",
    """
周报里的风险和问题只写到团队，不写具体某个人的责任。

- 写「支付核心组」，不写「林某负责」。
- 需要点名时，私下沟通，不进周报。

derived_from:: [[daily/2026-10-05/weekly-report-w40.md]]
""",
)


@pytest.fixture(scope="module")
def brain() -> OfflineConsolidateBrain:
    return OfflineConsolidateBrain(HashingEmbedder(), Settings())


DUPLICATES = [(POOL_MODES, POOLING_DUP), (ROTATE, ROTATE_DUP), (REPORT_FORMAT, REPORT_FORMAT_DUP)]
DISTINCT = [
    (POOL_MODES, USERLIST),
    (POOL_MODES, SIZING),
    (USERLIST, SIZING),
    (ROTATE, USERLIST),
    (REPORT_FORMAT, REPORT_TIME),
    (REPORT_FORMAT, REPORT_NAMES),
    (REPORT_TIME, REPORT_NAMES),
]


def links_of(n: NoteView) -> tuple[str, ...]:
    return tuple(sorted({lk.target for lk in parse_links(n.body)}))


def votes(brain, a, b):
    return [
        brain.vote(PairRequest(a=a, b=b, judge=j, a_links=links_of(a), b_links=links_of(b))).value
        for j in range(3)
    ]


def agreeing(vs) -> int:
    return sum(1 for v in vs if v.is_same and v.confidence >= 0.8)


# --- notes for split ------------------------------------------------------------------------

# three topics under one roof: what a note becomes when dream keeps corroborating it
BUILD_BOX = note(
    "digest/wiki/build-box.md",
    "Build box",
    "build-02, the payments team's shared build machine: Python environments, backups and network access.",
    """
build-02 is the shared build machine of the payments team; it runs Ubuntu 24.04 since the October upgrade.

## Python environments

Every project on build-02 gets its own virtual environment made with [[digest/personal/always-use-uv-for-python-envs.md|uv]], never with `pip install --user`.

- `uv venv .venv --python 3.11` creates it; `uv sync` installs from the lock file.
- uv itself installs into `~/.local/bin` ([[digest/wiki/uv-installs-into-local-bin.md]]).
- After the Ubuntu upgrade the system Python moved to 3.12, so old environments pointing at `/usr/bin/python3.11` broke.

> [!tip] Rebuilding a broken environment
> Delete `.venv`, then run `uv venv --python 3.11 && uv sync`; it takes about a minute with a warm cache.

## Nightly backups

restic backs up `/srv/builds` and `/etc` to the NAS every night at 02:30.

1. The timer `restic-backup.timer` starts `restic-backup.service`.
2. The repository lives on `nas-01:/backups/build-02`; its password is in Keybox under `infra/build-02/restic`.
3. `restic forget --keep-daily 7 --keep-weekly 4 --prune` runs after each backup.

> [!warning]
> A restore drill in September found that `/var/lib/docker` is not backed up; images are rebuilt from the registry instead ([[digest/procedure/restore-drill-staging.md]]).

## Network access

build-02 sits in the office VLAN 20 and is reachable only through the jump host.

- SSH goes through `jump.internal.example.com` with `ProxyJump`; direct port 22 is closed at the firewall.
- Outbound traffic is allowed to the package mirrors and the container registry on 443 only.
- The CI runners reach build-02 on port 8443 for artifact uploads.

```
Host build-02
    ProxyJump jump.internal.example.com
    User builder
```

**Related:**

- [[digest/wiki/build-02-facts-changed-ubuntu-24-04.md]]

derived_from:: [[daily/2026-10-06/build-box-python-venv.md]]
derived_from:: [[daily/2026-10-20/build-box-venv-rebuild.md]]
""",
)

# one topic over several sections: long, but every section is about transaction mode
TRANSACTION_MODE = note(
    "digest/wiki/pgbouncer-transaction-mode.md",
    "PgBouncer transaction mode",
    "What PgBouncer's transaction pool mode does, what it breaks, and how payments-api copes with it.",
    """
In transaction mode PgBouncer gives a client a server connection only for the length of one transaction.

## What transaction mode does

- A server connection is assigned when a transaction begins and returned to the pool when it commits or rolls back.
- Many more clients than server connections can be served, because idle clients hold no server connection.
- Between two transactions a client may land on a different server connection.

## What transaction mode breaks

Anything that lives in a session rather than a transaction stops working in transaction mode.

- `SET` without `LOCAL` leaks to whichever client gets the server connection next.
- Session advisory locks (`pg_advisory_lock`) can be released by another client's connection; use `pg_advisory_xact_lock` inside a transaction.
- Protocol-level prepared statements fail unless PgBouncer 1.21+ runs with `max_prepared_statements`.
- `LISTEN`/`NOTIFY` does not work through a transaction-mode pool.

> [!warning]
> ledger-worker's settlement leader election used a session advisory lock; it had to move to a transaction-level lock before the cutover ([[digest/wiki/ledger-worker-uses-pg-advisory-lock-for-settlement-leader.md]]).

## How payments-api copes with transaction mode

- payments-api sets `statement_timeout` with `SET LOCAL` inside each transaction, never at session level.
- The connection pool in payments-api disables server-side prepared statements (`prepare_threshold = None`).
- Health checks run a plain `SELECT 1` outside a transaction, which transaction mode serves fine.

## Checking transaction mode on a pool

- `SHOW POOLS;` on the PgBouncer admin console lists `pool_mode` per database.
- `SHOW CONFIG;` shows the default `pool_mode`, which is `transaction` on staging since the cutover ([[digest/procedure/pgbouncer-staging-cutover.md]]).

derived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]
""",
)

HOME_NETWORK = note(
    "digest/wiki/家庭网络.md",
    "家庭网络",
    "家里的网络：路由器和地址、IoT 摄像头接入、Home Assistant 的备份。",
    """
家里的网络由梅维护，主路由是 OpenWrt。

## 路由器和地址

- 主路由 `gw-home`（OpenWrt 23.05），地址 192.168.50.1，光猫桥接，PPPoE 拨号在这台上。
- Pi-hole `dns-01` 在 192.168.50.2，是全家的 DNS，上游用 DoH。
- 地址段 192.168.50.0/24 的 .100 到 .199 由 DHCP 分配，固定地址写在 [[digest/wiki/设备一览.md|设备一览]] 里。

> [!note]
> 改路由器配置前先在 LuCI 里导出备份。

## IoT 摄像头接入

IoT 设备都在 VLAN 30，只能访问 Home Assistant，不能访问内网其他地址（见 [[digest/wiki/vlan-划分.md]]）。

1. 在路由器上为摄像头绑定固定地址，否则它拿不到地址就一直重连。
2. 把摄像头的 MAC 加进 VLAN 30 的白名单。
3. 在 Home Assistant 里添加摄像头的 RTSP 地址。

> [!warning] 阳台那台摄像头
> 它只支持 2.4GHz，要接 `iot-2g` 这个 SSID。

## Home Assistant 备份

Home Assistant 跑在 Proxmox 的 VM 105 上，每晚三点做一次完整备份到 NAS。

- 备份保留三十天，放在 `nas-01:/backups/ha`。
- 梅决定 Home Assistant 以后不自动升级，升级前先手动备份（[[digest/wiki/梅的决定-home-assistant-以后不自动升级.md]]）。
- 恢复步骤见 [[digest/procedure/家里恢复流程.md]]。

derived_from:: [[resource/2026-10-11/home-network-zh.md]]
""",
)


# --- hub members ----------------------------------------------------------------------------

DEFAULT_PORT = note(
    "digest/wiki/pgbouncer-default-port-is-6432.md",
    "PgBouncer default port is 6432",
    "PgBouncer listens on 6432; Postgres itself stays on 5432.",
    """
PgBouncer listens on port 6432 on every host; Postgres itself stays on 5432.

- Clients of payments connect to 6432, never to 5432 directly.

derived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]
""",
)

DECISION = note(
    "digest/wiki/decision-pgbouncer-in-transaction-mode.md",
    "Decision: PgBouncer in transaction mode",
    "Why payments moved PgBouncer to transaction mode in October, and who signed off.",
    """
On 10-14 the payments team moved PgBouncer on staging from session to transaction mode.

- Session mode needed one server connection per idle client; staging ran out at 100.
- Lin and Data Platform signed off; prod follows on 10-28.

> [!note]
> Session-level features do not survive: `SET`, advisory locks held across transactions and protocol-level prepared statements.

derived_from:: [[daily/2026-10-14/pgbouncer-staging-cutover.md]]
""",
)

WEEKLY_MONDAY = note(
    "digest/personal/周报每周一上午发.md",
    "周报每周一上午发",
    "以前的规矩：周报每周一上午发给托马斯。",
    """
周报每周一上午十点前发给托马斯，抄送梅。

derived_from:: [[daily/2026-10-05/weekly-report-w40.md]]
""",
)

NO_MONDAY_REPORT = note(
    "digest/wiki/周一不再写周报.md",
    "周一不再写周报",
    "从十月起周一上午不再写周报，改到周五。",
    """
从十月第三周起，周一上午不再写周报，周报改到周五下午写。

derived_from:: [[daily/2026-10-19/weekly-report-w43.md]]
""",
)

PGBOUNCER_COMMUNITY = (TRANSACTION_MODE, POOL_MODES, USERLIST, SIZING, DEFAULT_PORT, DECISION, POOLING_DUP)
WEEKLY_COMMUNITY = (REPORT_FORMAT, REPORT_TIME, REPORT_NAMES, WEEKLY_MONDAY, NO_MONDAY_REPORT)


# --- real embedders (the judges' anchors are set for them; hashing is a bag of words) ------


def _real_embedder(name: str):
    from reme_workbench.index.factory import get_embedder

    try:
        return get_embedder(name)
    except Exception as exc:  # the model package is an extra
        pytest.skip(f"{name} embedder not installed: {exc}")


@pytest.fixture(scope="module", params=["e5", "minilm"])
def real_brain(request) -> OfflineConsolidateBrain:
    return OfflineConsolidateBrain(_real_embedder(request.param), Settings())


# === text helpers ============================================================================


def test_normalize_reduces_links_markup_case_punctuation_and_cjk_spacing():
    assert tx.normalize("[[digest/wiki/pool-modes.md|Pool Modes]] are **three**!") == "pool modes are three"
    assert tx.normalize("See [[digest/wiki/pool-modes.md]].") == "see pool modes"
    assert tx.normalize("用 uv 管理 Python 环境。") == tx.normalize("用uv管理Python环境")
    assert tx.normalize("Ｆｕｌｌ－width") == "full width"


def test_statements_are_sentences_items_rows_and_code_never_structure():
    body = POOL_MODES.body + "\n| mode | returns |\n|---|---|\n| session | on disconnect |\n"
    sts = tx.statements(body)
    texts = [s.text for s in sts]
    assert "PgBouncer hands a server connection to a client in one of three pool modes." in texts
    assert not any(t.startswith("##") or "derived_from::" in t for t in texts)
    assert "What transaction mode breaks" not in texts  # a callout title labels its body
    assert "| session | on disconnect |" in texts and not any("---" in t for t in texts)
    code = [s for s in tx.statements(ROTATE.body) if s.kind == "code"]
    assert len(code) == 1 and "deployctl restart ledger-worker" in code[0].text
    assert not [s for s in tx.statements(USERLIST.body) if s.text == "[[digest/wiki/pgbouncer-pool-modes.md]]" and s.has_content]


def test_fact_tokens_hold_numbers_code_and_negations():
    st = tx.statements("- `default_pool_size = 20` is not global.")[0]
    assert {"20", "not"} <= st.facts and "default" in st.facts
    assert tx.statements("周报不写人名。")[0].negations == {"不"}


def test_outline_cuts_top_level_sections_not_code_and_keeps_the_related_tail_apart():
    body = BUILD_BOX.body.replace("## Network access", "```\n## not a heading\n```\n\n## Network access")
    out = tx.outline(body)
    assert [s.heading for s in out.sections] == ["Python environments", "Nightly backups", "Network access"]
    assert "build-02 is the shared build machine" in tx.render_blocks(out.intro)
    assert "build-02-facts-changed" in tx.render_blocks(out.tail)
    assert len(out.provenance) == 2
    assert "## not a heading" in out.sections[1].text  # the fence stayed in its section


def test_content_words_cut_chinese_into_words():
    assert {"周报", "要点", "列表"} <= textrules.content_words("周报用要点列表")
    assert "pgbouncer" in textrules.content_words("[[digest/wiki/x.md|PgBouncer]] pool modes")


# === votes ===================================================================================


def test_words_are_whole_in_any_script_and_other_languages_function_words_are_stopwords():
    """Issue #31: "Autômatos" was cut into "aut" and "mato", "funções" into "fun" and "es",
    and Portuguese "de" was a content word, so hubs were named `de.md` and `aut-mato.md`."""
    spans = textrules.word_spans("Autômatos Finitos de funções, Straße der Welt, l'hiver")
    assert [s for s, _ in spans] == ["Autômatos", "Finitos", "de", "funções", "Straße", "der",
                                     "Welt", "l", "hiver"]
    assert [s for s, c in spans if not c] == ["de", "der", "l"]
    words = textrules.content_words("Programação das Funções e os Tipos del sistema")
    assert not words & {"da", "das", "e", "os", "del"} and {"programação", "tipo"} <= words
    # decomposed accents (a file name from macOS) are the same word as composed ones
    assert textrules.content_words("Func\u0327o\u0303es") == textrules.content_words("Funções")


def test_anchors_map_a_measure_to_is_same_and_confidence():
    a = Anchors(0.3, 0.6)
    assert a.vote(1.0) == (True, 1.0)
    assert a.vote(0.6) == (True, pytest.approx(0.8))
    assert a.vote(0.45) == (True, pytest.approx(0.65))
    assert a.vote(0.0) == (False, 1.0)
    assert a.vote(0.15) == (False, pytest.approx(0.75))
    with pytest.raises(ValueError):
        Anchors(0.7, 0.6)


@pytest.mark.parametrize("a,b", DUPLICATES, ids=lambda n: n.name)
def test_statement_judge_finds_the_facts_of_a_paraphrased_duplicate(brain, a, b):
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert vote.is_same and vote.confidence >= 0.8, vote.reason


@pytest.mark.parametrize("a,b", DISTINCT, ids=lambda n: n.name)
def test_statement_judge_says_distinct_notes_on_one_topic_differ(brain, a, b):
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert not vote.is_same and vote.confidence >= 0.8, vote.reason


def test_statement_judge_is_not_fooled_by_a_shared_callout_and_context_line(brain):
    # the decision record repeats pool-modes' warning, but says other things
    vote = brain.vote(PairRequest(a=POOL_MODES, b=DECISION, judge=1)).value
    assert not vote.is_same, vote.reason
    assert "1 of 4 statements" in vote.reason


def test_statement_judge_is_never_sure_of_one_sentence(brain):
    a = note("digest/personal/reply-in-chinese.md", "reply-in-chinese", "", """
When she writes in Chinese, reply in Chinese.

derived_from:: [[daily/2026-10-05/weekly-report-w40.md]]
""")
    b = note("digest/personal/chinese-replies.md", "chinese-replies", "", """
When she writes in Chinese, always reply in Chinese.

derived_from:: [[daily/2026-10-11/home-network-iot-vlan.md]]
""")
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert vote.is_same and vote.confidence < 0.8
    assert vote.reason.endswith("(1.00); one statement is thin, so at most unsure")


def test_statement_reason_reads_with_its_figures(brain):
    vote = brain.vote(PairRequest(a=ROTATE, b=ROTATE_DUP, judge=1)).value
    # the restart step names the services in one note and `<service>` in the other: the
    # facts differ, so that statement is not counted as found
    assert vote.reason == (
        "6 of 8 statements of “Rotate the staging DB credential” appear in "
        "“Staging database password rotation” (0.75)"
    )
    zh = brain.vote(PairRequest(a=REPORT_FORMAT, b=REPORT_FORMAT_DUP, judge=1)).value
    assert zh.reason == "「周报用要点列表」的 5 条陈述中有 5 条出现在「周报格式」里（1.00）"


def test_structure_judge_agrees_on_the_same_links_from_other_material(brain):
    sizing = "\n\nPool sizes: [[digest/wiki/pgbouncer-sizing-settings.md]].\n"
    a = NoteView(POOL_MODES.path, POOL_MODES.name, POOL_MODES.description, POOL_MODES.body + sizing)
    b = NoteView(POOLING_DUP.path, POOLING_DUP.name, POOLING_DUP.description, POOLING_DUP.body + sizing)
    vote = brain.vote(PairRequest(a=a, b=b, judge=2)).value
    assert vote.is_same and vote.confidence == 1.0
    assert vote.reason == "3 of 3 outbound links shared (Jaccard 1.00); 0 of 2 sources shared"


def test_structure_judge_is_never_sure_of_two_shared_links(brain):
    # notes of one neighbourhood often link the same two notes
    vote = brain.vote(PairRequest(a=POOL_MODES, b=POOLING_DUP, judge=2)).value
    assert vote.is_same and vote.confidence < 0.8
    assert vote.reason == (
        "2 of 2 outbound links shared (Jaccard 1.00); 0 of 2 sources shared; "
        "fewer than 3 shared links, so at most unsure"
    )


def test_structure_judge_is_never_sure_of_two_notes_of_one_material(brain):
    vote = brain.vote(PairRequest(a=USERLIST, b=SIZING, judge=2)).value
    assert vote.confidence < 0.8
    assert "notes of one material are distinct units" in vote.reason


def test_structure_judge_cannot_tell_without_links(brain):
    vote = brain.vote(PairRequest(a=ROTATE, b=ROTATE_DUP, judge=2)).value
    assert (vote.is_same, vote.confidence) == (False, 0.5)
    assert "too few outbound links" in vote.reason


def test_structure_judge_reads_the_callers_links_too(brain):
    bare_a = NoteView(POOL_MODES.path, POOL_MODES.name, POOL_MODES.description, "Pool modes.")
    bare_b = NoteView(POOLING_DUP.path, POOLING_DUP.name, POOLING_DUP.description, "Pooling modes.")
    req = PairRequest(a=bare_a, b=bare_b, judge=2, a_links=links_of(POOL_MODES), b_links=links_of(POOLING_DUP))
    assert brain.vote(req).value.is_same


def test_description_judge_reads_cosine_against_the_embedders_unrelated_level(brain):
    vote = brain.vote(PairRequest(a=POOL_MODES, b=POOLING_DUP, judge=0)).value
    base = brain.baseline("en")
    assert 0.0 < base < 0.5
    assert f"unrelated notes score {base:.2f}" in vote.reason
    assert vote.reason.startswith("names and descriptions 0.")
    same = brain.vote(PairRequest(a=POOL_MODES, b=POOL_MODES, judge=0)).value
    assert same.is_same and same.confidence == 1.0


def test_description_judge_with_real_embedders(real_brain):
    for a, b in DUPLICATES:
        vote = real_brain.vote(PairRequest(a=a, b=b, judge=0)).value
        assert vote.is_same and vote.confidence >= 0.8, (a.name, vote.reason)
    for a, b in DISTINCT:
        vote = real_brain.vote(PairRequest(a=a, b=b, judge=0)).value
        assert vote.confidence < 0.8 or not vote.is_same, (a.name, b.name, vote.reason)


def test_duplicates_get_two_agreeing_votes_and_distinct_notes_at_most_one(real_brain):
    for a, b in DUPLICATES:
        assert agreeing(votes(real_brain, a, b)) >= 2, (a.name, b.name)
    for a, b in [*DISTINCT, (POOL_MODES, DECISION)]:
        assert agreeing(votes(real_brain, a, b)) <= 1, (a.name, b.name)


def test_even_a_bag_of_words_embedder_never_merges_distinct_notes(brain):
    for a, b in [*DISTINCT, (POOL_MODES, DECISION)]:
        assert agreeing(votes(brain, a, b)) <= 1, (a.name, b.name)


# Two review rules of one person for two repositories, in the same words but one value
# each: what whole-digest mining pairs across communities (docs/spec.md §7.9.2).
REVIEW_AUTH = note(
    "digest/personal/oskar-review-style-in-bripel-auth.md", "oskar-review-style-in-bripel-auth",
    "Oskar wants review comments as suggested diffs, with the blocking ones marked.", """
Review comments for Oskar come as suggested diffs.

**Why:** In bripel-auth PRs the blocking points got lost in long threads, Oskar said.

**How to apply:** Mark blockers with 'blocking:' and collect the nits for Oskar in a single summary.

derived_from:: [[daily/2026-10-12/bripel-auth-session-2.md]]
""")
REVIEW_ANALYTICS = note(
    "digest/personal/oskar-review-style-in-lofen-analytics.md",
    "oskar-review-style-in-lofen-analytics",
    "Oskar wants review comments as a checklist, with the blocking ones marked.", """
Review comments for Oskar come as a checklist.

**Why:** In lofen-analytics PRs the blocking points got lost in long threads, Oskar said.

**How to apply:** Mark blockers with 'blocking:' and collect the nits for Oskar in a single summary.

- Expect an answer from Oskar in 5 working days.

derived_from:: [[daily/2026-10-10/lofen-analytics-session-1.md]]
""")


def test_a_statement_said_of_another_instance_keeps_two_judges_unsure(brain):
    vs = votes(brain, REVIEW_AUTH, REVIEW_ANALYTICS)
    assert agreeing(vs) == 0, [v.reason for v in vs]
    for judge in (0, 1):  # alike descriptions and 2 of 3 statements, but bripel / lofen
        assert vs[judge].confidence < 0.8 and "bripel" in vs[judge].reason, vs[judge].reason
    # a paraphrase keeps its values: the duplicates' votes are untouched by the rule
    for a, b in DUPLICATES:
        assert "other instances" not in votes(brain, a, b)[1].reason


def test_vote_reply_is_validated_json_from_the_offline_model(brain):
    reply = brain.vote(PairRequest(a=POOL_MODES, b=USERLIST, judge=1))
    assert reply.model == "offline" and reply.usage.total_tokens == 0
    assert json.loads(reply.raw) == reply.value.model_dump(mode="json")
    with pytest.raises(ValueError, match="judge must be 0, 1 or 2"):
        brain.vote(PairRequest(a=POOL_MODES, b=USERLIST, judge=3))


# === merge ===================================================================================


def merged(brain, winner, loser):
    return brain.merge(MergeRequest(winner=winner, loser=loser)).value


def head_of(body: str) -> str:
    """The body without its closing provenance lines."""
    lines = body.rstrip().split("\n")
    while lines and (not lines[-1].strip() or lines[-1].startswith("derived_from::")):
        lines.pop()
    return "\n".join(lines)


def appended_part(body: str, marker: str) -> str:
    return body.split(marker, 1)[1] if marker in body else ""


@pytest.mark.parametrize("winner,loser", [*DUPLICATES, (REPORT_FORMAT_DUP, REPORT_FORMAT), (POOL_MODES, DECISION)],
                         ids=lambda n: n.name)
def test_merge_keeps_the_winner_word_for_word_and_every_link_and_source_of_both(brain, winner, loser):
    out = merged(brain, winner, loser)
    assert out.body.startswith(head_of(winner.body))  # the winner, unchanged
    pair = {winner.path, loser.path}
    want = {k for k in outbound_keys(winner.body) | outbound_keys(loser.body) if k[0] not in pair}
    assert outbound_keys(out.body) >= want
    # the loser's links into the pair would become self-links: written as their text
    # (the winner's own links to the loser stay: the merge phase rewrites those)
    assert not {k for k in outbound_keys(out.body[len(head_of(winner.body)):]) if k[0] in pair}
    prov = [ln for ln in out.body.split("\n") if ln.startswith("derived_from::")]
    assert len(prov) == len(set(prov))
    assert set(prov) == {ln.strip() for n in (winner, loser) for ln in n.body.split("\n") if ln.startswith("derived_from::")}
    assert out.description == winner.description


@pytest.mark.parametrize("winner,loser", [*DUPLICATES, (POOL_MODES, DECISION), (USERLIST, SIZING)],
                         ids=lambda n: n.name)
def test_merge_rewords_nothing_of_the_loser(brain, winner, loser):
    """Every line after `## From …` is a line of the loser (a heading one level down, a
    list marker with some of the item's sentences): nothing is written in other words."""
    out = merged(brain, winner, loser)
    marker = f"## 来自 {loser.name}\n" if textrules.cjk_share(winner.body) > 0.3 else f"## From {loser.name}\n"
    part = appended_part(out.body, marker)
    assert part
    loser_text = loser.body
    for line in part.strip().split("\n"):
        if not line.strip() or line.startswith("derived_from::"):
            continue
        if line.startswith("#"):
            assert line.lstrip("#").strip() in loser_text, line
            continue
        # a missing step comes with its place in the loser's list: "- **Step 2 of 5:** …"
        line = re.sub(r"^- \*\*Step \d+ of \d+:\*\* ", "", line)
        body = textrules.reader_text(line.lstrip("-*>0123456789. ").strip())
        assert all(s in textrules.reader_text(loser_text) for s in textrules.split_note_line(body)), line


def test_merge_adds_only_the_values_the_winner_says_in_other_words(brain):
    # the staging runbook says every step of the other one (one plain word aside), but
    # writes step 3's two commands as one placeholder (`deployctl restart <service> …`):
    # the commands are values (keeps_values, docs/spec.md §7.7.5), so that step comes
    # along, with its place in the list, and nothing else
    out = merged(brain, ROTATE_DUP, ROTATE).body
    assert out.startswith(head_of(ROTATE_DUP.body))
    part = appended_part(out, "## From Rotate the staging DB credential\n")
    said = [ln.strip() for ln in part.strip().split("\n") if ln.strip()]
    assert said[:2] == ["### Steps", "- **Step 3 of 5:** Restart **both** consumers of the secret:"]
    assert "deployctl restart payments-api --env staging" in said
    assert "deployctl restart ledger-worker --env staging" in said
    assert not [ln for ln in said if "Step 1" in ln or "Step 2" in ln or "Step 4" in ln]
    assert "derived_from:: [[daily/2026-10-08/rotate-staging-db-credential.md]]" in out


def test_merge_carries_each_statement_the_winner_lacks(brain):
    out = merged(brain, ROTATE, ROTATE_DUP).body
    part = appended_part(out, "## From Staging database password rotation\n")
    # the one step the winner says otherwise (in a code block) comes with its place in
    # the loser's list; the four the winner has (one plain word aside) do not
    assert ("- **Step 3 of 5:** Restart both consumers of the secret, payments-api and "
            "ledger-worker (`deployctl restart <service> --env staging`).") in part
    assert [s for s in ("Set a new password", "Store it", "pg_stat_activity", "Only then")
            if s in part] == []
    assert "See [[digest/wiki/pgbouncer-userlist-txt.md]] for the PgBouncer side." in part
    # the loser's "Quarterly, or at once …" is the winner's own sentence: not repeated
    assert "Quarterly" not in part


def test_merge_does_not_repeat_what_differs_by_one_plain_word(brain):
    out = merged(brain, REPORT_FORMAT_DUP, REPORT_FORMAT).body
    part = appended_part(out, "## 来自 周报用要点列表\n")
    assert "托马斯在手机上看周报" not in part  # the winner says it, with one more 所以
    assert "梅要求周报用要点列表写，不要大段文字。" in part  # who asked is not in the winner
    assert "### 格式" in part  # the loser's heading above what comes from under it


def test_merge_treats_a_changed_number_or_a_negation_as_lacking(brain):
    winner = note("digest/wiki/canary.md", "Canary window", "How long a canary runs.", """
The canary runs for 15 minutes before promotion.

Promote when the error rate stays under 1 %.

Do not restart ledger-worker during the settlement run.

derived_from:: [[daily/2026-10-05/deploy-payments-api.md]]
""")
    loser = note("digest/wiki/deploy-canary.md", "Deploy canary", "The canary step of a deploy.", """
The canary runs for 10 minutes before promotion.

Do not promote when the error rate stays under 1 %.

The canary runs for 15 minutes before the promotion.

Restart ledger-worker during the settlement run.

derived_from:: [[daily/2026-10-21/deploy.md]]
""")
    part = appended_part(merged(brain, winner, loser).body, "## From Deploy canary\n")
    assert "The canary runs for 10 minutes before promotion." in part
    assert "Do not promote when the error rate stays under 1 %." in part
    assert "Restart ledger-worker during the settlement run." in part  # the winner says not to
    assert "before the promotion" not in part  # one plain word more: the same statement


def test_merge_writes_links_into_the_pair_as_text(brain):
    loser = note("digest/wiki/pool-modes-short.md", "Pool modes (short)", "", """
Transaction mode is described in [[digest/wiki/pgbouncer-pool-modes.md|the pool modes note]]; see also [[digest/wiki/pool-modes-short.md]].

derived_from:: [[daily/2026-10-14/pgbouncer-staging-cutover.md]]
""")
    out = merged(brain, POOL_MODES, loser).body
    assert "Transaction mode is described in the pool modes note; see also PgBouncer pool modes." in out
    assert not any(lk.target in (POOL_MODES.path, loser.path) for lk in parse_links(out))


def test_merge_with_nothing_new_only_adds_the_losers_provenance(brain):
    twin = NoteView("digest/wiki/twin.md", "Twin", "", POOL_MODES.body.replace(
        "[[resource/2026-10-12/pgbouncer-notes.md]]", "[[daily/2026-10-30/pgbouncer.md]]"))
    out = merged(brain, POOL_MODES, twin).body
    assert "## From" not in out
    assert out == head_of(POOL_MODES.body) + (
        "\n\nderived_from:: [[resource/2026-10-12/pgbouncer-notes.md]]"
        "\nderived_from:: [[daily/2026-10-30/pgbouncer.md]]"
    )


def test_merge_takes_the_losers_description_when_the_winner_has_none(brain):
    bare = NoteView(POOL_MODES.path, POOL_MODES.name, "", POOL_MODES.body)
    assert merged(brain, bare, POOLING_DUP).description == POOLING_DUP.description


def test_merge_refuses_a_body_no_note_may_hold(brain):
    from reme_workbench.llm.base import BrainError

    huge = note("digest/wiki/huge.md", "Huge", "", "\n\n".join(f"Fact number {i} is {i * 7}." for i in range(1500)))
    with pytest.raises(BrainError, match="split .* first or merge them by hand"):
        brain.merge(MergeRequest(winner=POOL_MODES, loser=huge))


# === split ===================================================================================


def split(brain, n, bucket="wiki"):
    return brain.plan_split(SplitRequest(note=n, tokens=estimate_tokens(n.body), threshold=2000, bucket=bucket)).value


@pytest.mark.parametrize("n", [BUILD_BOX, HOME_NETWORK], ids=lambda n: n.name)
def test_a_dispersed_note_splits_by_its_sections_and_loses_no_link(brain, n):
    plan = split(brain, n)
    assert plan.overloaded and len(plan.children) == 3, plan.reason
    texts = [plan.parent_body] + [c.body for c in plan.children]
    # E-2: outbound(parent_new) ∪ ⋃ outbound(children) ⊇ outbound(parent_old)
    assert set().union(*(outbound_keys(t) for t in texts)) >= outbound_keys(n.body)
    provenance = [ln for ln in n.body.split("\n") if ln.startswith("derived_from::")]
    for child in plan.children:
        path = note_path("wiki", slugify(child.name))
        assert f"[[{path}|{child.name}]]" in plan.parent_body  # the parent links each child
        assert any(lk.target == n.path for lk in parse_links(child.body))  # and back
        assert all(p in child.body for p in provenance)
        assert child.description and "[[" not in child.description
    assert all(p in plan.parent_body for p in provenance)


def test_split_keeps_sections_whole_code_and_callouts_included(brain):
    plan = split(brain, BUILD_BOX)
    by_name = {c.name: c for c in plan.children}
    assert list(by_name) == ["Build box Python environments", "Build box nightly backups", "Build box network access"]
    network = by_name["Build box network access"].body
    assert "```\nHost build-02\n    ProxyJump jump.internal.example.com\n    User builder\n```" in network
    python = by_name["Build box Python environments"].body
    assert python.startswith("Every project on build-02 gets its own virtual environment")
    assert "> [!tip] Rebuilding a broken environment\n> Delete `.venv`" in python
    assert python.rstrip().endswith("derived_from:: [[daily/2026-10-20/build-box-venv-rebuild.md]]")
    assert "Part of [[digest/wiki/build-box.md|Build box]]." in python
    # the parent: its intro, a bullet per child, its Related list, its provenance
    assert plan.parent_body.startswith("build-02 is the shared build machine of the payments team")
    assert "- [[digest/wiki/build-box-nightly-backups.md|Build box nightly backups]] — restic backs up" in plan.parent_body
    assert "[[digest/wiki/build-02-facts-changed-ubuntu-24-04.md]]" in plan.parent_body
    assert plan.reason.startswith("its 3 sections are only 0.")


def test_chinese_children_are_named_in_chinese_and_link_back(brain):
    plan = split(brain, HOME_NETWORK)
    assert [c.name for c in plan.children] == ["家庭网络的路由器和地址", "IoT 摄像头接入", "Home Assistant 备份"]
    assert all("属于 [[digest/wiki/家庭网络.md|家庭网络]]。" in c.body for c in plan.children)
    assert "**组成部分：**" in plan.parent_body
    assert plan.reason.startswith("3 个章节彼此相似度平均只有")


def test_a_long_note_on_one_topic_is_not_split(real_brain):
    plan = split(real_brain, TRANSACTION_MODE)
    assert not plan.overloaded and plan.children == []
    assert "(split under 0.16, or under 3% shared): one topic" in plan.reason


def test_dispersed_notes_split_with_real_embedders_too(real_brain):
    for n in (BUILD_BOX, HOME_NETWORK):
        assert split(real_brain, n).overloaded, n.name


def test_a_note_without_two_sections_of_substance_is_not_split(brain):
    plan = split(brain, ROTATE)  # When / Steps / Watch out: one of them has 40 tokens
    assert not plan.overloaded
    assert plan.reason == "1 of its 3 sections have at least 40 tokens: nothing to split along"
    flat = split(brain, note("digest/wiki/flat.md", "Flat", "", "Just prose.\n\n" * 200))
    assert not flat.overloaded and "0 of its 0 sections" in flat.reason


EIGHT_TOPICS = {
    "Python environments": "Every project gets its own Python virtual environment made with uv; `uv sync` installs from the lock file and nobody runs pip install --user on the shared machine.",
    "Nightly backups": "restic copies /srv/builds and /etc to the NAS every night at 02:30 and forgets snapshots older than seven daily and four weekly ones.",
    "Network access": "SSH reaches the machine only through the jump host with ProxyJump; the firewall closes port 22 from the office VLAN and allows 443 outbound.",
    "Monitoring": "node_exporter publishes CPU, memory and disk metrics to Prometheus; an alert pages the on-call engineer when the disk is ninety percent full.",
    "Disk layout": "The system lives on a 200 GB NVMe drive while builds use a separate 2 TB volume mounted at /srv with the ext4 noatime option.",
    "User accounts": "Engineers log in with their own LDAP accounts; sudo is granted through the builders group and root login is disabled in sshd_config.",
    "Scheduled jobs": "A cron entry prunes old Docker images every Sunday at 04:00, and a systemd timer renews the artifact cache index hourly.",
    "TLS certificates": "certbot renews the Let's Encrypt certificate for artifacts.internal.example.com sixty days after issue and reloads nginx afterwards.",
}


def _section(title: str, text: str) -> str:
    return f"## {title}\n\n{text}\n\n- {text.split(';')[0].split(',')[0]}, as the team agreed."


def test_adjacent_alike_sections_make_one_child(brain):
    python = EIGHT_TOPICS["Python environments"]
    body = "The build machine of the payments team.\n\n" + "\n\n".join([
        _section("Python environments", python),
        _section("Python environments on CI", python.replace("Every project", "Every CI job")),
        _section("Nightly backups", EIGHT_TOPICS["Nightly backups"]),
        _section("Network access", EIGHT_TOPICS["Network access"]),
    ])
    plan = split(brain, note("digest/wiki/build-box.md", "Build box", "", body))
    assert plan.overloaded and len(plan.children) == 3, plan.reason
    first = plan.children[0]
    assert first.name == "Build box Python environments"
    assert "## Python environments on CI" in first.body  # the joined section keeps its heading


def test_a_note_of_eight_topics_splits_into_at_most_six_children(brain):
    body = "The build machine of the payments team.\n\n" + "\n\n".join(
        _section(t, x) for t, x in EIGHT_TOPICS.items())
    plan = split(brain, note("digest/wiki/build-box.md", "Build box", "", body))
    assert plan.overloaded and len(plan.children) == 6, plan.reason
    text = "\n\n".join(c.body for c in plan.children)
    assert all(x in text for x in EIGHT_TOPICS.values())  # every section went to a child
    assert len({c.name for c in plan.children}) == 6


# === hub =====================================================================================


def hub(brain, members, central=()):
    return brain.write_hub(HubRequest(community="c1", members=tuple(members), central=tuple(central)))


def test_hub_names_the_common_topic_links_its_pillars_and_keeps_the_provenance(brain):
    central = (TRANSACTION_MODE.path, POOL_MODES.path, USERLIST.path, SIZING.path)
    reply = hub(brain, PGBOUNCER_COMMUNITY, central)
    h = reply.value
    assert h.name == "PgBouncer" and h.bucket == "wiki"
    assert h.pillars == list(central)
    keys = {t for t, _ in outbound_keys(h.body)}
    assert set(h.pillars) <= keys
    members = {m.path for m in PGBOUNCER_COMMUNITY}
    assert len(keys & members) / len(members) >= 0.6
    assert content_tokens(h.body) < 1500
    sources = {t for n in PGBOUNCER_COMMUNITY for t in tx.provenance_targets(n.body)}
    assert tx.provenance_targets(h.body) == sources
    provenance = [lk.target for lk in parse_links(h.body) if lk.predicate == "derived_from"]
    assert sorted(provenance) == sorted(sources)  # each source once
    assert h.body.count("derived_from::") == 1  # several links on one line (§7.9.5)
    assert "- [[digest/wiki/pgbouncer-pool-modes.md|PgBouncer pool modes]] — PgBouncer's three pool modes" in h.body
    assert "## Details stay in\n\n- [[digest/wiki/pgbouncer-default-port-is-6432.md|PgBouncer default port is 6432]]" in h.body
    assert json.loads(reply.raw)["pillars"] == list(central)


def test_a_chinese_hub_is_named_and_written_in_chinese(brain):
    h = hub(brain, WEEKLY_COMMUNITY).value
    assert h.name == "周报" and h.bucket == "personal"
    assert h.pillars == [m.path for m in WEEKLY_COMMUNITY[:3]]  # no ranking: the members' order
    assert h.body.startswith("关于周报的 5 篇笔记。")
    assert "## 核心笔记" in h.body and "## 细节见" in h.body
    # the topic in words (what else the notes are about), not the pillars' file names
    assert h.description.startswith("周报总览（5 篇笔记）：") and "周报用要点列表" not in h.description


def test_hub_pillars_are_members_and_three_to_five(brain):
    stranger = "digest/wiki/not-a-member.md"
    h = hub(brain, PGBOUNCER_COMMUNITY, (stranger, *(m.path for m in PGBOUNCER_COMMUNITY))).value
    assert stranger not in h.pillars and len(h.pillars) == 5
    assert len(hub(brain, PGBOUNCER_COMMUNITY[:3]).value.pillars) == 3
    from reme_workbench.llm.base import BrainError

    with pytest.raises(BrainError, match="at least 3"):
        hub(brain, PGBOUNCER_COMMUNITY[:2])


def test_a_big_community_trims_the_details_never_the_pillars_nor_the_member_share(brain):
    many = [
        note(f"digest/wiki/pgbouncer-fact-{i}.md", f"PgBouncer fact {i} about connection limits and pool timeouts",
             f"One more PgBouncer fact, number {i}, about limits.",
             f"PgBouncer fact {i}.\n\nderived_from:: [[daily/2026-10-{1 + i % 12:02d}/pgbouncer.md]]")
        for i in range(400)
    ]
    members = [*PGBOUNCER_COMMUNITY, *many[:50]]
    h = hub(brain, members, [m.path for m in PGBOUNCER_COMMUNITY[:5]]).value
    assert content_tokens(h.body) < 1500
    linked = {t for t, _ in outbound_keys(h.body)}
    assert len(h.pillars) == 5 and set(h.pillars) <= linked
    assert "more notes of this community" in h.body  # trimmed, down to no less than
    assert len(linked & {m.path for m in members}) >= 0.6 * len(members)  # the share
    assert h.name == "PgBouncer"
    # 407 members: the 245 links the share needs are alone over the budget (provenance is
    # not counted, §4.9.1), so no hub the checks would refuse
    from reme_workbench.llm.base import BrainError

    with pytest.raises(BrainError, match="407 members cannot fit under 1500"):
        hub(brain, [*PGBOUNCER_COMMUNITY, *many], [m.path for m in PGBOUNCER_COMMUNITY[:5]])


def test_a_hub_of_slug_named_notes_spells_the_topic_as_the_descriptions_do(brain):
    members = [
        NoteView(m.path, m.path.rsplit("/", 1)[1][:-3], m.description, m.body)  # names as dream writes them
        for m in PGBOUNCER_COMMUNITY
    ]
    h = hub(brain, members).value
    assert h.name == "PgBouncer"
    assert "[[digest/wiki/pgbouncer-pool-modes.md|pgbouncer-pool-modes]] — " in h.body


def test_a_hub_is_not_named_like_one_of_its_members(brain):
    members = [note("digest/wiki/pgbouncer.md", "PgBouncer", "The PgBouncer connection pooler.", "PgBouncer."),
               *PGBOUNCER_COMMUNITY[:4]]
    assert hub(brain, members).value.name == "PgBouncer overview"


def test_a_hub_describes_a_pillar_without_description_by_its_first_sentence(brain):
    members = tuple(NoteView(m.path, m.name, "", m.body) for m in PGBOUNCER_COMMUNITY)
    h = hub(brain, members).value
    assert ("- [[digest/wiki/pgbouncer-transaction-mode.md|PgBouncer transaction mode]] — In transaction mode "
            "PgBouncer gives a client a server connection only for the length of one transaction.") in h.body


def test_a_crlf_note_reads_like_any_other(brain):
    crlf = NoteView(BUILD_BOX.path, BUILD_BOX.name, BUILD_BOX.description, BUILD_BOX.body.replace("\n", "\r\n"))
    assert [s.heading for s in tx.outline(crlf.body).sections] == ["Python environments", "Nightly backups", "Network access"]
    assert [c.name for c in split(brain, crlf).children] == [c.name for c in split(brain, BUILD_BOX).children]


def test_empty_notes_get_honest_votes_not_errors(brain):
    empty = NoteView("digest/wiki/empty.md", "Empty", "", "")
    vote = brain.vote(PairRequest(a=empty, b=POOL_MODES, judge=1)).value
    assert (vote.is_same, vote.confidence) == (False, 0.5) and "no statement" in vote.reason
    out = brain.merge(MergeRequest(winner=empty, loser=POOL_MODES)).value
    assert out.body.startswith("## From PgBouncer pool modes\n\nPgBouncer hands a server connection")


def test_a_hub_is_not_named_by_a_word_that_names_no_topic():
    from reme_workbench.brains.offline_consolidate.hub import common_topic
    from reme_workbench.llm.consolidate import NoteView

    members = [
        NoteView("digest/wiki/a.md", "payments-core-owns-payments-api", "Payments Core owns payments-api.", ""),
        NoteView("digest/wiki/b.md", "data-platform", "Owns: PostgreSQL clusters and backups.", ""),
        NoteView("digest/wiki/c.md", "treasury-platform", "Owns: fx-rates and reports.", ""),
        NoteView("digest/wiki/d.md", "sre-team", "Owns deployctl; the platform on-call.", ""),
    ]
    assert common_topic(members, "en") == "Platform"  # not "Owns", which three share


def test_statements_that_differ_only_in_their_facts_are_not_the_same(brain):
    """Distinct notes of one kind (another person, another day, another service) share
    their wording; the values are what tell them apart."""
    def view(path, name, body):
        return NoteView(path, name, name, body + "\n\nderived_from:: [[daily/2026-10-05/x.md]]\n")

    pairs = [
        ("Felix wants alerts for marbri-scheduler in the team chat.",
         "Oskar wants alerts for marbri-gateway in the team chat."),
        ("Merge freeze for osswex-pricing starts Friday at noon.",
         "Merge freeze for osswex-pricing starts Monday at noon."),
        ("Rate limit of the refunds endpoint is 1300 per minute.",
         "Rate limit of the refunds endpoint is 2050 per minute."),
    ]
    for left, right in pairs:
        a = view("digest/wiki/a.md", "a", "\n".join([left] * 1))
        b = view("digest/wiki/b.md", "b", "\n".join([right] * 1))
        vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
        assert vote.reason.startswith("0 of 1 statements"), (left, vote.reason)
    same = brain.vote(PairRequest(a=view("digest/wiki/a.md", "a", pairs[0][0]),
                                  b=view("digest/wiki/b.md", "b", pairs[0][0].replace("in the team chat", "in team chat")),
                                  judge=1)).value
    assert same.reason.startswith("1 of 1 statements")


def test_merge_brings_only_the_missing_steps_of_a_list_with_their_place(brain):
    """One step of five is missing from the winner: that step comes with its number, not
    the loser's whole list again (a reviewer would read four steps twice)."""
    winner = note("digest/procedure/rebuild-build-box-venv.md", "Rebuild the build box venv",
                  "Rebuild the migration tooling environment on build-02 with uv.", """
## Steps

1. Log in to build-02 with `ssh mei@build-02.internal.example.com`.
2. Install uv for the user with `curl -LsSf https://astral.sh/uv/install.sh | sh`.
3. Create the env with `uv venv --python 3.12 .venv`.
4. Sync it with `uv pip sync requirements.lock`.

derived_from:: [[daily/2026-10-06/build-box-python-venv.md]]
""")
    loser = note("digest/procedure/build-02-tooling-env.md", "Build-02 tooling env",
                 "Set the tooling environment up again on build-02 after a reimage.", """
## Steps

1. Log in to build-02 with `ssh mei@build-02.internal.example.com`.
2. Install uv for the user with `curl -LsSf https://astral.sh/uv/install.sh | sh`.
3. Remove the stale environment:
   ```bash
   rm -rf .venv
   ```
4. Create the env with `uv venv --python 3.12 .venv`.
5. Sync it with `uv pip sync requirements.lock`.

derived_from:: [[daily/2026-10-27/build-box-venv-rebuild.md]]
""")
    out = merged(brain, winner, loser).body
    part = appended_part(out, "## From Build-02 tooling env\n")
    assert "- **Step 3 of 5:** Remove the stale environment:\n  ```bash\n  rm -rf .venv\n  ```" in part
    assert "Log in" not in part and "uv pip sync" not in part  # the winner has those steps
    assert "### Steps" in part  # the loser's heading, for context


# --- values: what tells two notes of one kind apart ----------------------------------------

def _pair(kind: str, a_text: str, b_text: str, a_desc: str = "", b_desc: str = ""):
    a = note(f"digest/{kind}/a.md", "a", a_desc, a_text + "\n\nderived_from:: [[daily/2026-10-05/a.md]]")
    b = note(f"digest/{kind}/b.md", "b", b_desc, b_text + "\n\nderived_from:: [[daily/2026-10-12/b.md]]")
    return a, b


def test_identifiers_joined_by_underscores_slashes_and_dots_are_values():
    assert tx.fact_tokens("Give the inactive role junlo_audit_app_b a new password.") >= {"junlo", "audit", "app"}
    assert tx.fact_tokens("Store it under junlo/production/db.") >= {"junlo", "production", "db"}
    assert tx.fact_tokens("Check orders.settled.v1.dlq for poison messages.") >= {"order", "settl", "v1", "dlq"}
    assert "e" not in tx.fact_tokens("Park them, e.g. in a file.")  # an abbreviation is no name


def test_latin_words_in_a_chinese_statement_are_values():
    facts = tx.fact_tokens("梅在 ledger 项目里用 helm，不用 jsonnet。")
    assert {"helm", "jsonnet", "ledger"} <= facts
    assert not {"helm", "jsonnet"} & tx.fact_tokens("We use helm here, not jsonnet.")  # English prose


def test_statements_about_two_roles_are_not_found_in_each_other(brain):
    a, b = _pair("procedure",
                 "1. Every quarter, and right after a suspected leak of the junlo_audit password.\n"
                 "2. Disable the old role junlo_audit_app_a once no session is left on it.",
                 "1. Every quarter, and right after a suspected leak of the junlo_main password.\n"
                 "2. Disable the old role junlo_main_app_a once no session is left on it.")
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert not vote.is_same, vote.reason
    assert vote.reason.startswith("0 of 2 statements")


def test_a_name_at_the_start_of_a_sentence_is_a_value_when_the_pair_names_that_person(brain):
    """"Priya wants …" and "Sofia wants …" differ only by the first word; the notes name
    Priya and Sofia inside other sentences, so those first words are people, not verbs."""
    a, b = _pair("personal",
                 "Priya wants review comments as a checklist.\n\nAsk Priya before merging.",
                 "Sofia wants review comments as a checklist.\n\nAsk Sofia before merging.")
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert "0 of 2 statements" in vote.reason and not vote.is_same
    # a capitalised first word that is no one's name stays a plain word: "Restart" / "Reboot"
    c, d = _pair("procedure", "Restart ledger-worker after the rotation.\n\nThen check the logs of ledger-worker.",
                 "Reboot ledger-worker after the rotation.\n\nThen check the logs of ledger-worker again.")
    vote = brain.vote(PairRequest(a=c, b=d, judge=1)).value
    assert "2 of 2 statements" in vote.reason and vote.confidence >= 0.8


def test_rival_identifiers_make_the_statement_judge_at_most_unsure(brain):
    a, b = _pair("personal",
                 "Review comments for Ana come as one comment per point.\n\n"
                 "**How to apply:** Prefix blocking comments with 'blocking:'.\n\n"
                 "Long threads on yorren-notifications PRs hid the blocking points.",
                 "Review comments for Ana come as one comment per point.\n\n"
                 "**How to apply:** Prefix blocking comments with 'blocking:'.\n\n"
                 "In renmi-notifications PRs the blocking points got lost.")
    assert tx.rival_identifiers(tx.identifiers(a.body), tx.identifiers(b.body)) == (
        "yorren-notifications", "renmi-notifications")
    vote = brain.vote(PairRequest(a=a, b=b, judge=1)).value
    assert vote.is_same and vote.confidence < 0.8
    assert vote.reason.endswith("but they name other instances of one thing "
                                "(yorren-notifications / renmi-notifications), so at most unsure")
    # identifiers of other kinds are no rivals: a pod name and a chat channel
    assert tx.rival_identifiers(frozenset({"ledger-worker", "ledger-worker-7f9c4"}),
                                frozenset({"ledger-worker", "payments-oncall"})) is None
    # links name other notes, not what the note is about
    assert tx.identifiers("See [[digest/wiki/payments-api.md]].\nrelated_to:: [[digest/wiki/x-y.md]]\n") == frozenset()


def test_description_judge_is_at_most_unsure_when_the_descriptions_name_other_things(brain):
    a, b = _pair("personal", "Alerts go to the pager.", "Alerts go to the pager.",
                 "Where Hana gets the halsa-api alerts: the pager, not email.",
                 "Where Leila gets the halsa-sync alerts: the pager, not email.")
    vote = brain.vote(PairRequest(a=a, b=b, judge=0)).value
    assert vote.confidence < 0.8, vote.reason
    assert "but they name other things (" in vote.reason and "so at most unsure" in vote.reason
    # one description naming less than the other is no conflict: a paraphrase may drop one
    c, d = _pair("personal", "Alerts go to the pager.", "Alerts go to the pager.",
                 "Where Hana gets the halsa-api alerts: the pager, not email.",
                 "Hana's halsa-api alerts go to the pager.")
    assert "other things" not in brain.vote(PairRequest(a=c, b=d, judge=0)).value.reason


# --- split: phases of a long procedure -------------------------------------------------------

LAPTOP_STEPS = [
    ("Base tools", "Installed Homebrew and the packages the repositories expect: jq, gh and libpq.",
     "brew install jq gh libpq"),
    ("SSH key and GitHub", "Made a new ed25519 key with a passphrase and added it to GitHub for signing.",
     "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519"),
    ("Repositories", "Cloned payments-api and ledger-worker into ~/src, the layout of build-02.",
     "gh repo clone quayside/payments-api"),
    ("Python with uv", "Built each repository's environment with uv on Python 3.12, never pip.",
     "uv venv --python 3.12 .venv"),
    ("Keybox", "Installed the Keybox CLI from the SRE tap and logged in through SSO.",
     "keybox login --sso"),
    ("VPN", "Brought up the WireGuard profile; internal names resolve through it.",
     "wg-quick up quayside"),
    ("Home Wi-Fi", "Reserved the laptop's address on the home router, on the main VLAN.",
     "uci set dhcp.@host[-1].ip='192.168.50.32'"),
    ("Old laptop", "Revoked the old machine's SSH keys, Keybox session and deployctl token.",
     "gh ssh-key delete 8812345"),
]


def laptop_note(steps=LAPTOP_STEPS, path="digest/procedure/new-laptop-dev-setup.md") -> NoteView:
    items = "\n".join(
        f"{i}. **{title}.** {text} See [[digest/wiki/tool-{i}.md]].\n   ```\n   {code}\n   ```"
        for i, (title, text, code) in enumerate(steps, 1))
    return note(path, "new-laptop-dev-setup", "Set up a replacement laptop for development.", f"""
## When

The old laptop's battery swelled, so IT swapped it for a bare machine.

## Steps

{items}

## Watch out

- Never copy `~/.ssh` from the old laptop: keys are per machine.

derived_from:: [[daily/2026-10-26/new-laptop-dev-setup.md]]
""")


def test_a_long_step_list_splits_into_phases_and_loses_no_link(brain):
    n = laptop_note()
    plan = split(brain, n, bucket="procedure")
    assert plan.overloaded, plan.reason
    assert plan.reason.startswith("its 8 steps (") and "phases" in plan.reason
    assert 2 <= len(plan.children) <= 4
    texts = [plan.parent_body] + [c.body for c in plan.children]
    assert set().union(*(outbound_keys(t) for t in texts)) >= outbound_keys(n.body)  # E-2
    # every step lands in exactly one child, verbatim, in order, with its own number
    numbers = [int(m) for c in plan.children for m in re.findall(r"(?m)^(\d+)\. \*\*", c.body)]
    assert numbers == list(range(1, 9))
    first = plan.children[0]
    assert first.name.startswith("New laptop dev setup, steps 1–")  # the slug name as words
    last = len(re.findall(r"(?m)^\d+\. \*\*", first.body))
    assert first.name == f"New laptop dev setup, steps 1–{last}"
    assert first.description.startswith(
        f"Steps 1–{last} of New laptop dev setup: Base tools; SSH key and GitHub")
    assert first.body.startswith("Part of [[digest/procedure/new-laptop-dev-setup.md|new-laptop-dev-setup]].")
    assert "1. **Base tools.** Installed Homebrew" in first.body and "   brew install jq gh libpq" in first.body
    assert all("derived_from:: [[daily/2026-10-26/new-laptop-dev-setup.md]]" in c.body for c in plan.children)
    # the parent keeps When and Watch out, and a bullet per phase where the list was
    parent = plan.parent_body
    assert parent.startswith("## When\n\nThe old laptop's battery swelled")
    assert "## Steps\n\n- [[digest/procedure/new-laptop-dev-setup-steps-1-" in parent
    assert "Never copy `~/.ssh`" in parent and "brew install" not in parent
    assert parent.index("## Steps") < parent.index("## Watch out")


def test_a_long_step_list_on_one_task_is_not_cut(brain):
    same = [(f"Restore part {i}", f"Restore the payments database dump part {i} into pg-staging-01 "
             "with pg_restore and check the payments database row counts.", "pg_restore -d payments dump")
            for i in range(1, 9)]
    plan = split(brain, laptop_note(same), bucket="procedure")
    assert not plan.overloaded and "one task" in plan.reason, plan.reason


def test_a_hub_is_not_named_by_a_number():
    from reme_workbench.brains.offline_consolidate.hub import common_topic
    from reme_workbench.llm.consolidate import NoteView

    members = [
        NoteView("digest/wiki/a.md", "6432", "The pooler listens on 6432.", ""),
        NoteView("digest/wiki/b.md", "staging-6432", "Staging PgBouncer is on 6432.", ""),
        NoteView("digest/wiki/c.md", "pgbouncer-on-6432", "PgBouncer 1.22 on 6432.", ""),
    ]
    assert common_topic(members, "en") == "PgBouncer"  # not "6432", which all three share


def test_a_heading_a_template_gave_many_notes_names_no_hub():
    """Public vaults build author pages from one template: every page has "## Plugins".
    Counted over the vault that heading is a template's, not what a community is about."""
    from collections import Counter

    from reme_workbench.brains.offline_consolidate.hub import common_topic
    from reme_workbench.consolidate.hub_rules import heading_key, template_headings
    from reme_workbench.llm.consolidate import NoteView

    members = [
        NoteView(f"digest/wiki/{who}.md", who, f"{who}, an author.",
                 f"## Plugins\n\n- [[{who}-{kind}]]\n\n## Calendar {kind}\n\nA calendar {kind}.\n")
        for who, kind in (("ana", "view"), ("ben", "sync"), ("cleo", "export"))
    ]
    # 200 author pages, all with the heading: it is a template's
    template = template_headings(Counter({heading_key("Plugins"): 200, "calendar view": 1}), 400)
    assert template == frozenset({"plugins"})
    assert common_topic(members, "en") == "Plugins"  # what the mistake looked like
    assert common_topic(members, "en", template=template) == "Calendar"


def test_a_heading_few_notes_hold_is_a_topic_not_a_template():
    from collections import Counter

    from reme_workbench.consolidate.hub_rules import template_headings

    # 9 notes of 100: under the 10-note floor; 15 of 2,000: under the 2 % share
    assert template_headings(Counter({"plugins": 9}), 100) == frozenset()
    assert template_headings(Counter({"plugins": 15}), 2000) == frozenset()
    assert template_headings(Counter({"plugins": 40}), 2000) == frozenset({"plugins"})
