"""The generator of digest vaults with a planted truth: benchmarks and experiments.

One generator for every benchmark and experiment of consolidate:
`generate_vault(root, VaultSpec(notes=10_000, duplicates=500, near_misses=500, stale=300,
hubs=20, overloaded=10))` writes a vault of digest notes that look like the ones dream
writes — frontmatter `name` (= the slug) and `description`, a body of statements (a
runbook's When / Steps / Watch out, a rule with Why / How to apply, a definition with
bullets), a `**Related:**` list and typed links into the note's community, and
`derived_from:: [[daily/…]]` into a daily log that exists — and saves what was planted
beside the vault (`<root>.planted.json`, outside it so no scan sees it):

* **communities** — topical: each has a codename (`kovel`), a domain (`payments`) and
  its own services, stores, queues and people, so names never repeat across
  communities. Links stay inside the community but for `mixing` of them, so Leiden
  finds the communities; sizes are drawn from `[min_community, max_community]`.
* **notes** — each of one of 13 kinds (deploy, rotate a credential, restore, migrate,
  drain a queue; a tool preference, a merge freeze, a review style, an alert rule; a
  service overview, a decision, an incident, limits), filled with the community's
  entities and drawn values (ports, timeouts, tags …). A note's *facts* are its
  statements with their values (`deploy.canary` with service, env, tag, pct); no two
  notes of a community have the same kind and subject (kind.subject names the values
  that say what a note is about: one runbook per service or store, not one per env, so
  that no two distinct notes are one procedure with another parameter), and two notes of
  one kind share at most one statement.
* **duplicate pairs** (`duplicates`) — a *twin* of a note in the same community: the
  same kind, subject and values (so the same facts), paraphrased: another name and so
  another slug, another description wording, statements in the other phrasing and with
  synonyms swapped, bullets reordered, and (medium and heavy strength) an optional
  statement dropped or added (40 % of the twins light, 40 % medium, 20 % heavy); in a
  share `mixed_language` of them one or two statements are in the other language
  (Chinese in an English community, English in a Chinese one).
  The twin derives from another daily log, and keeps about half of the original's links.
  `notes` counts twins: the vault has `notes` files and `notes - duplicates` concepts.
* **near misses** (`near_misses`) — two distinct notes of one community, of one kind,
  in the same phrasing and with the same optional statements, but with every value
  drawn again and different (another service, env, person, tool, number …): the same
  topic words, no fact in common. What a merge must not propose.
* **time** — the vault is written as of `now` (default: the day after the `days`
  window): every note's file time is `now` minus an age drawn from `[0, days]` days, and
  half of them were recalled in the last two weeks (`meta/access_log.jsonl`). **Stale
  notes** (`stale`) are older — `stale_days` plus up to 100 days — and never used: what
  the archive should take.
* **hub notes** (`hubs`) — in as many communities (of 5 notes or more), one wiki note
  "<code> <domain> overview" that links every other member with a line each: the
  community has its hub, so abstract must not propose another.
* **forming communities** (`forming`) — in the k-th of them a share k / `forming` of
  the notes was written in the last week (they did not exist a week ago; the truth
  lists them): the communities the stability gate should keep from a hub until they
  settle.
* **overloaded notes** (`overloaded`) — a note of four sections, each the statements of
  six notes of one kind about another community's topic (its own, then three others in
  its language; so the sections are about different things), over 2,000 estimated
  tokens: what split should cut. (A handbook of one service family, four kinds about one
  topic, is one topic to the offline brain: its sections are 0.34–0.49 alike.)

`notes` counts every file: twins, hubs and overloaded notes included.
`plan_vault(spec)` makes the notes as values (`GeneratedNote`), `write_vault`
writes them, their logs, the access log and the truth; the same spec gives the same
bytes. `normalized_mutual_info` scores a found partition against the planted one.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from pathlib import Path

from ..errors import RemeError
from ..vault.meta import iso_utc
from ..vault.slug import slugify

__all__ = [
    "PREDICATES",
    "truth_path_for",
    "normalized_mutual_info",
    "VaultSpec",
    "GeneratedNote",
    "DuplicatePair",
    "NearMissPair",
    "GeneratedVault",
    "KINDS",
    "plan_vault",
    "write_vault",
    "generate_vault",
    "read_truth",
]

TRUTH_VERSION = 2  # 2: one generator (time, stale notes, hubs, overloaded notes)
PREDICATES = ("is_a", "part_of", "see_also", "depends_on", "related_to")
STRENGTHS = ("light", "medium", "heavy")
_STRENGTH_WEIGHTS = (0.4, 0.4, 0.2)


@dataclass(frozen=True)
class VaultSpec:
    notes: int = 1000  # digest files, twins included
    duplicates: int = 50  # planted duplicate pairs (each twin is one of `notes`)
    near_misses: int = 50  # planted pairs of distinct notes of one topic and kind
    min_community: int = 8
    max_community: int = 30
    mixing: float = 0.05  # share of links that leave the community
    links_per_note: int = 4  # mean outbound links to other digest notes
    typed_share: float = 0.25  # links written as `pred:: [[…]]`
    chinese_share: float = 0.1  # communities written in Chinese
    mixed_language: float = 0.15  # share of twins with a statement or two in the other language
    days: int = 28
    start: date = date(2026, 10, 1)
    seed: int = 7
    stale: int = 0  # notes old and never used (the archive's truth)
    stale_days: int = 150  # a stale note is at least this many days old
    hubs: int = 0  # communities that already have a hub note
    overloaded: int = 0  # notes over the split threshold, on several topics
    forming: int = 0  # communities still forming: part of their notes written this week
    now: date | None = None  # the day the vault is written as of; None: start + days + 1

    @property
    def today(self) -> date:
        return self.now or self.start + timedelta(days=self.days + 1)

    def check(self) -> None:
        for name, f in self.__dataclass_fields__.items():
            value, default = getattr(self, name), f.default
            if value is None:
                continue
            default = date(2026, 1, 1) if default is None else default  # `now`: a date too
            wanted = float if isinstance(default, float) else type(default)
            if isinstance(value, bool) or not isinstance(value, (int, float) if wanted is float else wanted):
                raise RemeError(f"{name} must be {'a number' if wanted is float else wanted.__name__}"
                                f" (like {default}), not {value!r}.")
        counts = ("notes", "duplicates", "near_misses", "stale", "hubs", "overloaded", "forming")
        if any(getattr(self, name) < 0 for name in counts):
            raise RemeError(f"{', '.join(counts)} must be 0 or more.")
        if not 2 <= self.min_community <= self.max_community:
            raise RemeError(
                "Community sizes need 2 <= min_community <= max_community "
                f"(got {self.min_community}, {self.max_community})."
            )
        for name in ("mixing", "typed_share", "chinese_share", "mixed_language"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise RemeError(f"{name} is a share between 0 and 1, not {getattr(self, name)}.")
        if self.links_per_note < 0 or self.days < 1:
            raise RemeError("links_per_note must be 0 or more and days at least 1.")

    def to_json(self) -> dict:
        doc = asdict(self)
        doc["start"] = self.start.isoformat()
        doc["now"] = self.today.isoformat()
        return doc


# --- what notes say ------------------------------------------------------------------------
# A phrasing line is "english 1 | english 2 | … | 中文": the variants containing CJK are
# the Chinese ones. Every variant of a statement uses the same values ("{task}" in English
# is "{task_zh}" in Chinese), and every statement names at least one value drawn per note,
# so two notes with all values different share no statement.


@dataclass(frozen=True)
class Fact:
    key: str
    role: str  # procedure: when / step / watch; personal: rule / why / how / note; wiki: head / bullet
    optional: bool
    text: str  # phrasings, " | "-separated
    code: str | None = None  # a command shown under a step


@dataclass(frozen=True)
class Kind:
    key: str
    bucket: str
    subject: tuple[str, ...]  # the values that say what the note is about
    names: str
    descriptions: str
    facts: tuple[Fact, ...]


def _f(key: str, role: str, text: str, code: str | None = None) -> Fact:
    return Fact(key, role, False, text, code)


def _o(key: str, role: str, text: str, code: str | None = None) -> Fact:
    return Fact(key, role, True, text, code)


KINDS: tuple[Kind, ...] = (
    Kind("deploy", "procedure", ("service",),
         "Deploy {service} to {env} | Release {service} on {env} | {env} rollout of {service} | 部署 {service} 到 {env} | {service} 在 {env} 的上线",
         "How to deploy {service} to {env}: build the image, a {pct}% canary, the watch and the rollback. | Steps to release {service} on {env} with a canary, a dashboard watch and a way back. | 把 {service} 发布到 {env} 的步骤：构建镜像、{pct}% 金丝雀、观察与回滚。 | {service} 上线 {env}：打镜像、{pct}% 灰度、看板观察，出错就回滚。",
         (_f("when", "when", "Use this for every new build of {service} that goes to {env}. | Whenever a release of {service} has to reach {env}. | 每次把 {service} 的新构建发布到 {env} 时照此操作。"),
          _f("build", "step", "Build the image from main and tag it {tag}. | Tag the image built from the main branch as {tag}. | 从 main 构建镜像，打标签 {tag}。", "make image TAG={tag}"),
          _f("canary", "step", "Start the rollout with a {pct}% canary. | Begin with {pct}% of the traffic on the canary. | 先用 {pct}% 流量的金丝雀开始发布。", "deployctl deploy {service} --env {env} --tag {tag} --canary {pct}"),
          _f("watch", "step", "Watch the {dashboard} dashboard for {minutes} minutes before going to 100%. | Keep an eye on the {dashboard} dashboard for {minutes} minutes, then promote to 100%. | 观察 {dashboard} 看板 {minutes} 分钟，再放到 100%。"),
          _o("announce", "step", "Post the tag {tag} in {channel} when the rollout is done. | Once it is at 100%, announce {tag} in {channel}. | 发布完成后在 {channel} 里贴出标签 {tag}。"),
          _o("secret", "watch", "{service} reads the {secret} secret at startup, so a rotation needs a restart. | A rotated {secret} secret only takes effect after {service} restarts. | {service} 只在启动时读取 {secret} 密钥，轮换后必须重启。"),
          _f("rollback", "watch", "Roll back when errors pass {limit} per minute. | If the error rate goes over {limit} a minute, roll back. | 错误超过每分钟 {limit} 次就回滚。", "deployctl rollback {service} --env {env}"))),
    Kind("rotate", "procedure", ("store",),
         "Rotate the {store} credential on {env} | {store} password rotation for {env} | Credential rotation of {store} in {env} | 轮换 {env} 的 {store} 凭据 | {store} 在 {env} 的密码轮换",
         "How to rotate the {env} credential of {store} between the roles {role_a} and {role_b} without downtime. | Switching {store} on {env} from {role_a} to {role_b}: new password, Keybox, restarts, old role off. | 在 {env} 上把 {store} 的凭据从 {role_a} 切到 {role_b} 的做法。 | {env} 环境 {store} 密码轮换：{role_a} 换成 {role_b}，更新 Keybox、重启服务、停用旧角色。",
         (_f("when", "when", "Quarterly, or at once when the {store} password may have leaked. | Every quarter, and right after a suspected leak of the {store} password. | 每季度一次；怀疑 {store} 密码泄露时立即执行。"),
          _f("password", "step", "Set a new password on the inactive role {role_b}; {person} runs the ALTER ROLE. | Give the inactive role {role_b} a new password (ask {person}, who runs the ALTER ROLE). | 给未启用的角色 {role_b} 设新密码，由 {person} 执行 ALTER ROLE。", "ALTER ROLE {role_b} LOGIN PASSWORD '<redacted>';"),
          _f("keybox", "step", "Store it in Keybox under {secret}. | Put the new credential into Keybox at {secret}. | 把新凭据写入 Keybox 的 {secret}。", "keybox put {secret} user={role_b} password=<redacted>"),
          _f("restart", "step", "Restart {service} and {service2}, which both read that secret. | Restart both readers of the secret: {service} and {service2}. | 重启读取该密钥的 {service} 和 {service2}。", "deployctl restart {service} --env {env}"),
          _f("disable", "step", "Disable the old role {role_a} once pg_stat_activity shows no session on it. | When no session of {role_a} is left in pg_stat_activity, switch that role off. | 等 pg_stat_activity 里没有 {role_a} 的会话后禁用旧角色。", "ALTER ROLE {role_a} NOLOGIN;"),
          _o("missed", "watch", "Forgetting {service2} once cost {minutes} minutes of worker errors. | Once {service2} was missed and threw errors for {minutes} minutes. | 有一次漏掉了 {service2}，报错持续了 {minutes} 分钟。"),
          _o("paste", "watch", "Never paste the {store} password into {channel}; {person} checks. | The {store} password never goes into {channel}, {person} watches for it. | 不要把 {store} 密码贴到 {channel}，{person} 会检查。"))),
    Kind("restore", "procedure", ("store",),
         "Restore {store} from a snapshot on {env} | Snapshot restore of {store} in {env} | Bring {store} back from a snapshot on {env} | 从快照恢复 {env} 的 {store} | {env} 上 {store} 的快照恢复",
         "How to restore {store} on {env} from a snapshot and replay {queue} afterwards. | Recovering {store} on {env}: stop the writers, restore a snapshot, replay the {queue} events. | 在 {env} 上从快照恢复 {store} 并重放 {queue} 的步骤。 | {store}（{env}）快照恢复：停写入、恢复快照、重放 {queue}。",
         (_f("when", "when", "After data loss or a bad migration on {store} in {env}. | When {store} on {env} lost data or a migration went wrong. | {env} 的 {store} 丢数据或迁移出错之后。"),
          _f("stop", "step", "Stop the writers: scale {service} to zero. | Scale {service} down to 0 so nothing writes. | 先停写入：把 {service} 缩到 0。", "kubectl scale deploy/{service} --replicas 0"),
          _f("pick", "step", "Pick the last snapshot before the incident, e.g. {snapshot}. | Choose the newest snapshot taken before the incident (such as {snapshot}). | 选事故前最近的快照，例如 {snapshot}。", "snapctl list {store} --env {env}"),
          _f("restore", "step", "Restore {snapshot} into {store}. | Run the restore of {snapshot} into {store}. | 把 {snapshot} 恢复到 {store}。", "snapctl restore {store} --snapshot {snapshot} --env {env}"),
          _f("replay", "step", "Replay {queue} from the snapshot time so no event is lost. | Consume {queue} again from the time of the snapshot. | 从快照时间点重放 {queue}，避免丢事件。"),
          _o("duration", "watch", "A restore takes about {minutes} minutes per {size} GB. | Count on roughly {minutes} minutes for every {size} GB. | 每 {size} GB 大约需要 {minutes} 分钟。"),
          _o("count", "watch", "Compare the row count of {table} with the snapshot report before {service} comes back. | Check that {table} has the row count the snapshot report gives before scaling {service} up. | 在恢复 {service} 前核对 {table} 的行数与快照报告一致。"))),
    Kind("migrate", "procedure", ("migration",),
         "Run migration {migration} on {store} | Apply {migration} to {store} | Schema migration {migration} for {store} | 在 {store} 上执行迁移 {migration} | {store} 的 {migration} 迁移",
         "How to apply migration {migration} to {store}: plan, apply, backfill {column} in batches. | Applying {migration} on {store} with a dry run, the migration itself and a batched backfill of {column}. | 在 {store} 上执行 {migration}：预演、执行、分批回填 {column}。 | {migration} 在 {store} 上的执行方法：先预演，再执行，最后分批回填 {column}。",
         (_f("when", "when", "For the schema change that adds {column} to {table}. | When {table} gets the new {column} column. | 用于给 {table} 加 {column} 列的变更。"),
          _f("plan", "step", "Dry-run {migration} first and read the plan. | Start with a dry run of {migration} and check the plan it prints. | 先预演 {migration} 并检查输出的计划。", "migrate plan --db {store} {migration}"),
          _f("apply", "step", "Apply the migration on {env}. | Run the migration against {env}. | 在 {env} 上执行迁移。", "migrate up --db {store} --env {env} {migration}"),
          _f("backfill", "step", "Backfill {column} in batches of {limit} rows. | Fill {column} for old rows, {limit} rows per batch. | 按每批 {limit} 行回填 {column}。", "migrate backfill {table}.{column} --batch {limit}"),
          _o("lock", "watch", "An ALTER on {table} takes a lock; run it outside the {day} peak. | {table} is locked during the ALTER, so avoid the {day} peak. | 对 {table} 的 ALTER 会锁表，避开 {day} 高峰。"),
          _o("review", "watch", "{person} reviews every migration of {store}. | Each {store} migration needs a review by {person}. | {store} 的每个迁移都要 {person} 审核。"))),
    Kind("drain", "procedure", ("queue", "service"),
         "Drain consumer lag on {queue} | Clear the {queue} backlog of {service} | Reduce the lag of {service} on {queue} | 处理 {service} 在 {queue} 上的积压 | 清理 {queue} 上 {service} 的消息积压",
         "What to do when {service} falls behind on {queue}: scale out, check the dead letters, scale back. | Clearing a {queue} backlog of {service}: more replicas, the dead-letter queue, then back to normal. | {service} 消费 {queue} 积压时的处理：扩容、检查死信、缩回。 | {queue} 积压时 {service} 怎么处理：加副本、看死信队列、再缩回。",
         (_f("when", "when", "When lag of {service} on {queue} goes over {lag} messages. | Once the {queue} consumer lag of {service} passes {lag} messages. | {service} 在 {queue} 的积压超过 {lag} 条消息时。"),
          _f("scale", "step", "Scale {service} to {replicas} replicas. | Raise {service} to {replicas} replicas. | 把 {service} 扩到 {replicas} 个副本。", "kubectl scale deploy/{service} --replicas {replicas}"),
          _f("dlq", "step", "Check {queue}.dlq for poison messages and park them. | Look in {queue}.dlq for messages that always fail and set them aside. | 检查 {queue}.dlq 中的毒消息并挪开。"),
          _f("back", "step", "Scale back to the usual count once lag is under {size}. | Return to the normal replica count when lag drops below {size}. | 积压降到 {size} 以下后恢复原副本数。"),
          _o("order", "watch", "Ordering on {queue} holds per key only, so never run two consumers of one partition. | {queue} keeps order only per key: one consumer per partition, always. | {queue} 只保证按键有序，一个分区不能有两个消费者。"),
          _o("tell", "watch", "Tell {person} in {channel} before scaling. | Let {person} know in {channel} first. | 扩容前在 {channel} 告诉 {person}。"))),
    Kind("prefer", "personal", ("person", "task"),
         "{person} prefers {tool} over {tool2} in {repo} | {tool} not {tool2} for {person} in {repo} | {person}'s choice of {tool} for {task} in {repo} | {person} 在 {repo} 偏好用 {tool} 而不是 {tool2} | {person} 在 {repo} 用 {tool} 不用 {tool2}",
         "{person} wants {tool} instead of {tool2} for {task} in {repo}. | For {task} in {repo}, {person} uses {tool} and not {tool2}. | {person} 在 {repo} 里做{task_zh}时要用 {tool}，不用 {tool2}。 | {repo} 中{task_zh}，{person} 选 {tool}，不选 {tool2}。",
         (_f("rule", "rule", "{person} prefers {tool} over {tool2} for {task}. | For {task}, {person} wants {tool}, not {tool2}. | {person} 做{task_zh}时偏好 {tool}，不用 {tool2}。"),
          _f("why", "why", "{tool2} took {minutes} minutes per CI run on {repo}. | On {repo}, a CI run with {tool2} needed {minutes} minutes. | 在 {repo} 上用 {tool2} 每次 CI 要 {minutes} 分钟。"),
          _f("how", "how", "Use {tool} in new scripts and CI jobs of {repo}. | New scripts and CI jobs in {repo} get {tool}. | {repo} 的新脚本和 CI 任务都用 {tool}。"),
          _o("pin", "note", "Keep the {tool} version pinned in {repo}. | The {tool} version stays pinned in {repo}. | 在 {repo} 里固定 {tool} 的版本。"),
          _o("said", "note", "{person} said so in the {month} retro. | This came up in the {month} retro, from {person}. | 这是 {person} 在 {month} 的复盘里说的。"))),
    Kind("freeze", "personal", ("day",),
         "No merges to {repo} on {day} | {day} merge freeze for {repo} | Hold {repo} merges on {day} | {day} 不合并 {repo} | {repo} 的 {day} 合并冻结",
         "{person}'s rule: nothing is merged into {repo} on {day}, hotfixes aside. | Merges into {repo} wait when it is {day}, except hotfixes, as {person} asks. | {person} 的规矩：{day} 不往 {repo} 合并，热修复除外。 | 按 {person} 的要求，{day} 不往 {repo} 合并代码，热修复例外。",
         (_f("rule", "rule", "Nothing is merged into {repo} on {day}. | {repo} takes no merges on {day}. | {day} 不往 {repo} 合并任何东西。"),
          _f("why", "why", "If a deploy breaks on {day}, nobody from {team} is around to fix it. | On {day} nobody of {team} is there when a deploy breaks. | {day} 部署出问题时 {team} 没人能处理。"),
          _f("how", "how", "Check the weekday before merging and hold the PR until {day2}. | Look at the day before any merge; a PR waits for {day2}. | 合并前先看星期几，PR 等到 {day2} 再合。"),
          _o("hotfix", "note", "Hotfixes still go in with {person}'s approval. | A hotfix may go in if {person} approves. | 热修复经 {person} 批准仍可合并。"),
          _o("bots", "note", "Dependabot PRs wait until {day2} too. | This holds for Dependabot PRs as well: they wait for {day2}. | Dependabot 的 PR 也要等到 {day2}。"))),
    Kind("review", "personal", ("person",),
         "How {person} wants review comments on {repo} | {person}'s review comment style in {repo} | Review comments for {person} on {repo} | {person} 对 {repo} 评审意见的要求 | {person} 在 {repo} 的评审意见风格",
         "{person} wants review comments as {format}, with the blocking ones marked. | Review notes for {person}: {format}, blocking points flagged. | {person} 希望评审意见写成{format_zh}，并标出阻塞项。 | 给 {person} 的评审意见要写成{format_zh}，阻塞项要标明。",
         (_f("rule", "rule", "{person} wants review comments as {format}. | Review comments for {person} come as {format}. | {person} 要求评审意见写成{format_zh}。"),
          _f("why", "why", "Long threads on {repo} PRs hid the blocking points from {person}. | In {repo} PRs the blocking points got lost in long threads, {person} said. | {repo} 的 PR 讨论太长，{person} 看不到阻塞问题。"),
          _f("how", "how", "Prefix blocking comments with 'blocking:' and keep the nits for {person} in one summary. | Mark blockers with 'blocking:' and collect the nits for {person} in a single summary. | 阻塞意见加 'blocking:' 前缀，给 {person} 的小问题合成一条总结。"),
          _o("answer", "note", "{person} answers reviews within {retries} working days. | Expect an answer from {person} in {retries} working days. | {person} 会在 {retries} 个工作日内回复评审。"))),
    Kind("alerts", "personal", ("person", "service"),
         "{person} wants {service} alerts in chat | Where {person} gets {service} alerts | {service} alerting for {person} | {person} 要在群里收 {service} 告警 | {service} 告警发给 {person} 的方式",
         "{person} wants alerts of {service} in {channel}, not by email, and a page only above {limit} errors. | {service} alerts go to {channel} for {person}; email is out, paging from {limit} errors. | {person} 要求 {service} 的告警发到 {channel}，不要邮件。 | {service} 的告警要发到 {channel} 给 {person}，不发邮件，错误超过 {limit} 次才呼叫。",
         (_f("rule", "rule", "{person} wants {service} alerts in {channel}, not by email. | Alerts of {service} should reach {person} in {channel} rather than email. | {person} 要在 {channel} 收到 {service} 告警，不要邮件。"),
          _f("why", "why", "Email alerts for {service} went unread for {minutes} minutes during an incident. | During one incident a {service} email alert sat unread for {minutes} minutes. | 有次事故里 {service} 的邮件告警 {minutes} 分钟没人看。"),
          _f("how", "how", "Page {person} only when errors pass {limit} per minute. | A page goes to {person} only above {limit} errors a minute. | 每分钟错误超过 {limit} 次才呼叫 {person}。"),
          _o("quiet", "note", "Quiet hours hold for {person} except for {env}. | Outside {env}, {person}'s quiet hours are kept. | 除了 {env}，{person} 的安静时段不打扰。"))),
    Kind("overview", "wiki", ("service",),
         "What {service} does | {service} overview | The {service} service | {service} 是什么 | {service} 服务概览",
         "{service} is the {role} of {code}: port {port}, state in {store}, events on {queue}. | Overview of {service}, the {code} {role}: listens on {port}, stores in {store}, publishes {queue}. | {service} 是 {code} 的 {role}：端口 {port}，数据在 {store}，事件发到 {queue}。 | {code} 的 {role} 服务 {service} 概览：端口 {port}、存储 {store}、发布 {queue}。",
         (_f("head", "head", "{service} is the {role} of {code} and listens on port {port}. | The {code} {role}, {service}, serves on port {port}. | {service} 是 {code} 的 {role}，监听 {port} 端口。"),
          _f("state", "bullet", "{service} keeps its state in {store}. | The state of {service} lives in {store}. | {service} 的状态保存在 {store}。"),
          _f("events", "bullet", "It publishes {queue} events. | Its events go out on {queue}. | 它向 {queue} 发布事件。"),
          _f("owner", "bullet", "Owner: {person} ({team}). | {person} of {team} owns it. | 负责人：{person}（{team}）。"),
          _o("timeout", "bullet", "Calls time out after {timeout} ms with {retries} retries. | Each call gets {timeout} ms and {retries} retries. | 调用超时 {timeout} 毫秒，重试 {retries} 次。"),
          _o("runbook", "bullet", "The runbook of {service} lives in the {repo} repository. | The {service} runbook is kept in {repo}. | {service} 的运行手册在 {repo} 仓库里。"))),
    Kind("decision", "wiki", ("service", "tool"),
         "Why {service} moved to {tool} | {service} switched from {tool2} to {tool} | Decision: {tool} for {service} | {service} 为什么改用 {tool} | {service} 从 {tool2} 改用 {tool} 的决定",
         "{team} moved {service} from {tool2} to {tool} because {reason}. | The decision to run {service} on {tool} instead of {tool2}, and why: {reason}. | {team} 把 {service} 从 {tool2} 换成 {tool}，原因是{reason_zh}。 | {service} 改用 {tool} 替代 {tool2} 的决定及原因：{reason_zh}。",
         (_f("head", "head", "{team} moved {service} from {tool2} to {tool} in {month}. | In {month}, {team} switched {service} from {tool2} over to {tool}. | {team} 在 {month} 把 {service} 从 {tool2} 迁到 {tool}。"),
          _f("reason", "bullet", "Reason: {reason}. | The reason was that {reason}. | 原因：{reason_zh}。"),
          _f("adr", "bullet", "{person} decided it in ADR-{adr}. | ADR-{adr}, by {person}, records the decision. | 由 {person} 在 ADR-{adr} 中决定。"),
          _o("old", "bullet", "The old {tool2} setup stays readable until the end of {month}. | {tool2} configs are kept, read-only, until the end of {month}. | 旧的 {tool2} 配置保留只读到 {month} 底。"),
          _o("ci", "bullet", "CI of {service} takes {size} seconds now. | A CI run of {service} is down to {size} seconds. | {service} 的 CI 现在只要 {size} 秒。"))),
    Kind("incident", "wiki", ("service", "env"),
         "{service} outage on {env} | The {env} incident of {service} | {service} down on {env}, what happened | {service} 在 {env} 的故障 | {env} 上 {service} 故障复盘",
         "{service} was down {minutes} minutes on {env} because {service2} kept the old role {role_a}; a restart fixed it. | Postmortem: {minutes} minutes of {service} errors on {env}, since {service2} still used {role_a}. | {service} 在 {env} 故障 {minutes} 分钟：{service2} 仍用旧角色 {role_a}。 | 故障复盘：{service} 在 {env} 出错 {minutes} 分钟，因为 {service2} 还在用 {role_a}。",
         (_f("head", "head", "{service} failed for {minutes} minutes on {env}. | On {env}, {service} was down for {minutes} minutes. | {service} 在 {env} 上故障了 {minutes} 分钟。"),
          _f("cause", "bullet", "Cause: {service2} still used the disabled role {role_a}. | {service2} was still connecting as {role_a}, which had been disabled. | 原因：{service2} 仍在用已禁用的角色 {role_a}。"),
          _f("lag", "bullet", "Consumer lag on {queue} reached {lag} messages. | The {queue} backlog grew to {lag} messages. | {queue} 的积压达到 {lag} 条。"),
          _f("fix", "bullet", "Fixed by restarting {service2}. | A restart of {service2} fixed it. | 重启 {service2} 后恢复。"),
          _o("runbook", "bullet", "The rotation runbook now restarts {service2} too. | Since then the rotation runbook includes {service2}. | 之后轮换手册加上了重启 {service2}。"),
          _o("lead", "bullet", "{person} led the postmortem. | The postmortem was run by {person}. | 复盘由 {person} 主持。"))),
    Kind("limits", "wiki", ("service",),
         "{service} limits on {env} | Rate limits and timeouts of {service} in {env} | {env} settings of {service} | {service} 在 {env} 的限额 | {service} 在 {env} 的限流与超时",
         "The limits {service} enforces on {env}: {limit} requests per second, a {timeout} ms timeout, {retries} retries. | {service} on {env} allows {limit} requests a second, times out at {timeout} ms and retries {retries} times. | {service} 在 {env} 的限额：每秒 {limit} 次请求、超时 {timeout} 毫秒、重试 {retries} 次。 | {service} 在 {env} 上：每秒 {limit} 次请求、{timeout} 毫秒超时、{retries} 次重试。",
         (_f("head", "head", "On {env}, {service} accepts {limit} requests per second per client. | {service} lets each client send {limit} requests a second on {env}. | {service} 在 {env} 上每个客户端每秒 {limit} 次请求。"),
          _f("timeout", "bullet", "Requests time out after {timeout} ms. | The timeout is {timeout} ms. | 请求超时为 {timeout} 毫秒。"),
          _f("retries", "bullet", "Failed calls are retried {retries} times with exponential backoff. | {retries} retries, with exponential backoff. | 失败调用以指数退避重试 {retries} 次。"),
          _o("payload", "bullet", "Payloads over {size} KB are refused. | The largest accepted payload is {size} KB. | 超过 {size} KB 的请求体会被拒绝。"),
          _o("signoff", "bullet", "Raising a limit needs {person}'s sign-off. | {person} signs off any higher limit. | 提高限额需要 {person} 批准。"))),
)
_KIND = {k.key: k for k in KINDS}

# Words a paraphrase may swap (outside the values). Lower case; the case of the
# replaced word's first letter is kept.
SYNONYMS = {
    "use": "apply", "every": "each", "start": "begin", "watch": "monitor", "check": "verify",
    "stop": "halt", "pick": "select", "choose": "select", "restart": "bounce", "set": "assign",
    "store": "save", "before": "prior to", "after": "following", "once": "as soon as",
    "new": "fresh", "old": "previous", "wants": "asks for", "prefers": "favours",
    "needs": "requires", "fixed": "resolved", "reached": "hit",
    "keeps": "holds", "lives": "sits", "refused": "rejected", "requests": "calls",
    "nothing": "no change", "nobody": "no one", "quarterly": "every quarter",
    "roll back": "revert", "raise": "increase", "scale": "resize",
    "replay": "re-run", "backfill": "fill in", "pass": "exceed", "go over": "exceed",
}
_SYNONYM_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, SYNONYMS), key=len, reverse=True))
                         + r")\b", re.IGNORECASE)
_SLOT_RE = re.compile(r"(\{[a-z_0-9]+\})")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_LABELS = {
    "en": {"when": "When", "steps": "Steps", "watch": "Watch out", "why": "Why",
           "how": "How to apply", "related": "Related"},
    "zh": {"when": "适用场景", "steps": "步骤", "watch": "注意", "why": "原因", "how": "做法",
           "related": "相关"},
}


@cache
def phrasings(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(English variants, Chinese variants) of a " | "-separated phrasing line."""
    parts = [p.strip() for p in text.split(" | ")]
    return (tuple(p for p in parts if not _CJK_RE.search(p)),
            tuple(p for p in parts if _CJK_RE.search(p)))


@cache
def slots_of(text: str) -> frozenset[str]:
    """The values a template names, the Chinese forms folded ("task_zh" -> "task")."""
    return frozenset(s[1:-1].removesuffix("_zh") for s in _SLOT_RE.findall(text))


# --- topics and values ---------------------------------------------------------------------

_SYLLABLES = ("ka lo mi ren tor vel sa qu zen bri dal fen gor hal ist jun kor lum mar nor "
              "oss pel rav sil tam ulm var wex yor zal").split()
_DOMAINS = ("payments billing search notifications auth inventory analytics shipping "
            "checkout catalog pricing ledger identity messaging reporting media").split()
_ROLES = "api worker gateway scheduler indexer ledger web sync proxy exporter".split()
_STORE_SUFFIX = "main ledger events cache audit".split()
_EVENTS = "settled created updated expired failed".split()
_PEOPLE = ("Mei Oskar Priya Lars Ana Tomas Yuki Ines Ravi Noor Felix Hana Jonas Leila "
           "Mateo Sofia Arjun Elif Kenji Marta").split()
_ENVS = "staging production sandbox eu-west us-east".split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday".split()
_MONTHS = "January February March April May June July August September October".split()
_TABLES = "refunds invoices accounts sessions orders payouts shipments".split()
_COLUMNS = "reason status region currency owner_id expires_at".split()
_TOOLS = (  # (task, task in Chinese, tools that do it)
    ("packaging", "打包", ("uv", "poetry", "pip-tools", "pdm")),
    ("linting", "代码检查", ("ruff", "flake8", "pylint")),
    ("testing", "测试", ("pytest", "nose2", "ward")),
    ("infrastructure", "基础设施", ("terraform", "pulumi", "opentofu")),
    ("deploy manifests", "部署清单", ("helm", "kustomize", "jsonnet")),
)
_FORMATS = (("one comment per point", "每个问题一条"), ("a single summary", "一条总结"),
            ("suggested diffs", "建议修改的 diff"), ("a checklist", "清单"))
_REASONS = (("builds took too long", "构建太慢"), ("the licence changed", "许可证变了"),
            ("nobody maintained the plugins", "插件没人维护"), ("it leaked memory", "内存泄漏"))


@dataclass(frozen=True)
class Topic:
    community: int
    code: str  # the codename: every entity name starts with it
    domain: str
    language: str  # "en" | "zh"
    services: tuple[str, ...]
    stores: tuple[str, ...]
    queues: tuple[str, ...]
    people: tuple[str, ...]

    def fixed(self) -> dict[str, str]:
        """The values every note of the community shares (its topic words)."""
        return {"code": self.code, "domain": self.domain, "repo": f"{self.code}-{self.domain}",
                "channel": f"#{self.code}-ops", "team": f"team-{self.code}"}


def _codenames(rng: random.Random, count: int) -> list[str]:
    pairs = [a + b for a in _SYLLABLES for b in _SYLLABLES if a != b]
    rng.shuffle(pairs)
    names = pairs[:count]
    taken = set(names)
    # beyond ~870 communities: three syllables, never a name already given
    for third in _SYLLABLES:
        for pair in pairs:
            if len(names) == count:
                return names
            if pair + third not in taken:
                taken.add(pair + third)
                names.append(pair + third)
    if len(names) < count:
        raise RemeError(f"{count} communities need more code names than the generator has; "
                        "ask for fewer notes or larger communities.")
    return names


def _topic(c: int, code: str, rng: random.Random, chinese_share: float) -> Topic:
    return Topic(
        community=c, code=code, domain=rng.choice(_DOMAINS),
        language="zh" if rng.random() < chinese_share else "en",
        services=tuple(f"{code}-{r}" for r in rng.sample(_ROLES, 4)),
        stores=tuple(f"{code}_{s}" for s in rng.sample(_STORE_SUFFIX, 2)),
        queues=tuple(f"{code}.{e}.v1" for e in rng.sample(_EVENTS, 2)),
        people=tuple(rng.sample(_PEOPLE, 3)),
    )


def _pools(topic: Topic) -> dict[str, tuple]:
    """Where each per-note value is drawn from (numbers as ranges' members)."""
    return {
        "service": topic.services, "service2": topic.services, "store": topic.stores,
        "queue": topic.queues, "person": topic.people, "env": _ENVS, "day": _DAYS,
        "month": _MONTHS, "table": _TABLES, "column": _COLUMNS,
        "format": _FORMATS, "reason": _REASONS, "pct": (5, 10, 20, 25, 50),
        "retries": (2, 3, 4, 5, 6),
    }


def _draw(rng: random.Random, topic: Topic, avoid: dict[str, str] | None = None) -> dict[str, str]:
    """One note's values; with `avoid`, every value differs from avoid's where it can."""
    avoid = avoid or {}
    pools = _pools(topic)

    def pick(name: str, pool, *, also: tuple = ()):
        banned = {avoid.get(name), *also}
        options = [v for v in pool if (v[0] if isinstance(v, tuple) else str(v)) not in banned]
        return rng.choice(options or list(pool))

    def number(name: str, low: int, high: int, step: int = 1, form: str = "{}") -> str:
        while True:
            value = form.format(rng.randrange(low, high, step))
            if value != avoid.get(name):
                return value

    s: dict[str, str] = {}
    s["service"] = pick("service", pools["service"])
    s["service2"] = pick("service2", pools["service2"], also=(s["service"],))
    for name in ("store", "queue", "person", "env", "day", "month", "table", "column"):
        s[name] = str(pick(name, pools[name]))
    s["day2"] = _DAYS[(_DAYS.index(s["day"]) + 1) % len(_DAYS)]
    task, task_zh, tools = rng.choice(_TOOLS)
    s["tool"] = pick("tool", tools)
    s["tool2"] = pick("tool2", tools, also=(s["tool"],))
    s["task"], s["task_zh"] = task, task_zh
    s["format"], s["format_zh"] = pick("format", pools["format"])
    s["reason"], s["reason_zh"] = pick("reason", pools["reason"])
    s["pct"], s["retries"] = str(pick("pct", pools["pct"])), str(pick("retries", pools["retries"]))
    s["tag"] = number("tag", 1000, 10000, form="build-{}")
    s["minutes"] = number("minutes", 12, 95)
    s["limit"] = number("limit", 100, 5000, 50)
    s["timeout"] = number("timeout", 200, 3000, 50)
    s["lag"] = number("lag", 1200, 60000, 100)
    s["replicas"] = number("replicas", 4, 24)
    s["size"] = number("size", 120, 900, 10)
    s["port"] = number("port", 3000, 9900)
    s["adr"] = number("adr", 100, 999)
    s["snapshot"] = number("snapshot", 100000, 999999, form="snap-{}")
    s["migration"] = number("migration", 1000, 9999, form="{}_add_" + s["column"])
    s["role"] = s["service"].split("-", 1)[1]
    s["role_a"], s["role_b"] = f"{s['store']}_app_a", f"{s['store']}_app_b"
    s["secret"] = f"{topic.code}/{s['env']}/{s['store']}"
    s["dashboard"] = f"{s['service']} {s['env']}"
    s.update(topic.fixed())
    return s


# --- planned notes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Content:
    """What a note says, before it is written: kind, values and how it is phrased."""

    kind: str
    values: tuple[tuple[str, str], ...]
    facts: tuple[str, ...]  # keys of the statements present, in the kind's order
    variants: tuple[tuple[str, int], ...]  # fact key -> English phrasing index
    name_variant: int
    description_variant: int
    language: str
    other_language: tuple[str, ...] = ()  # fact keys written in the other language
    synonyms: float = 0.0  # share of swappable words swapped
    shuffle: int | None = None  # a seed to reorder the bullets; None keeps the order


@dataclass(frozen=True)
class GeneratedNote:
    path: str
    community: int
    kind: str
    subject: tuple[str, ...]
    language: str
    facts: tuple[str, ...]  # canonical statements: "kind.fact key=values"
    name: str
    description: str
    body: str  # the statements, without links and provenance
    links: tuple[tuple[str, str | None], ...] = ()
    source: str = ""


@dataclass(frozen=True)
class DuplicatePair:
    a: str  # the original
    b: str  # its twin
    kind: str
    strength: str  # light / medium / heavy
    mixed_language: bool
    dropped: tuple[str, ...]  # fact keys the twin lacks
    added: tuple[str, ...]  # fact keys only the twin has


@dataclass(frozen=True)
class NearMissPair:
    a: str
    b: str
    kind: str


@dataclass(frozen=True)
class DailyLog:
    path: str
    community: int
    day: date


@dataclass(frozen=True)
class GeneratedVault:
    root: Path
    spec: VaultSpec
    notes: tuple[GeneratedNote, ...]
    duplicates: tuple[DuplicatePair, ...]
    near_misses: tuple[NearMissPair, ...]
    topics: tuple[Topic, ...] = ()
    logs: tuple[DailyLog, ...] = ()
    truth_path: Path | None = None
    ages: tuple[tuple[str, float], ...] = ()  # note path -> days before `now` it was written
    recalled: tuple[tuple[str, float], ...] = ()  # note path -> days before `now` it was recalled
    stale: tuple[str, ...] = ()
    hubs: tuple[tuple[int, str], ...] = ()  # community -> its hub note
    overloaded: tuple[str, ...] = ()
    forming: tuple[tuple[int, tuple[str, ...]], ...] = ()  # community -> its notes new this week

    def planted(self) -> dict[str, int]:
        """note path -> planted community number."""
        return {n.path: n.community for n in self.notes}


def _canonical(kind: Kind, content: Content) -> tuple[str, ...]:
    values = dict(content.values)
    out = []
    for fact in kind.facts:
        if fact.key in content.facts:
            names = sorted(slots_of(fact.text) | slots_of(fact.code or ""))
            out.append(f"{kind.key}.{fact.key}=" + ",".join(values[n] for n in names))
    return tuple(out)


def _swap(template: str, rate: float, rng: random.Random) -> str:
    if rate <= 0.0:
        return template

    def one(m: re.Match) -> str:
        word = m.group(0)
        if rng.random() >= rate:
            return word
        new = SYNONYMS[word.lower()]
        return new[:1].upper() + new[1:] if word[:1].isupper() else new

    return "".join(part if _SLOT_RE.fullmatch(part) else _SYNONYM_RE.sub(one, part)
                   for part in _SLOT_RE.split(template))


def _pool(text: str, language: str) -> tuple[str, ...]:
    """The phrasings of `text` in `language` (English when it has no Chinese one)."""
    english, chinese = phrasings(text)
    return chinese if language == "zh" and chinese else english


def _phrase(text: str, language: str, variant: int, values: dict, rate: float,
            rng: random.Random) -> str:
    pool = _pool(text, language)
    template = pool[variant % len(pool)]
    if not _CJK_RE.search(template):
        template = _swap(template, rate, rng)
    return template.format_map(values)


def _render_content(content: Content, rng: random.Random) -> tuple[str, str, str]:
    """(name, description, body) of `content`."""
    kind = _KIND[content.kind]
    values = dict(content.values)
    lang = content.language
    variants = dict(content.variants)
    name = _phrase(kind.names, lang, content.name_variant, values, 0.0, rng)
    description = _phrase(kind.descriptions, lang, content.description_variant, values, 0.0, rng)
    other = "en" if lang == "zh" else "zh"
    said: dict[str, list[tuple[Fact, str]]] = {}
    for fact in kind.facts:
        if fact.key in content.facts:
            fact_lang = other if fact.key in content.other_language else lang
            text = _phrase(fact.text, fact_lang, variants.get(fact.key, 0), values,
                           content.synonyms, rng)
            said.setdefault(fact.role, []).append((fact, text))
    labels = _LABELS[lang]
    colon = "：" if lang == "zh" else ":"
    lines: list[str] = []

    def bullets(role: str) -> list[str]:
        items = [f"- {text}" for _, text in said.get(role, [])]
        if content.shuffle is not None:
            random.Random(content.shuffle).shuffle(items)
        return items

    if kind.bucket == "procedure":
        lines += [f"## {labels['when']}", "", *(t for _, t in said.get("when", [])), "",
                  f"## {labels['steps']}", ""]
        for i, (fact, text) in enumerate(said.get("step", []), 1):
            lines.append(f"{i}. {text}")
            if fact.code:
                language = "sql" if fact.code.startswith("ALTER") else "bash"
                lines += [f"   ```{language}", f"   {fact.code.format_map(values)}", "   ```"]
        if said.get("watch"):
            lines += ["", f"## {labels['watch']}", "", *bullets("watch")]
    elif kind.bucket == "personal":
        lines += [t for _, t in said.get("rule", [])]
        lines += ["", *(f"**{labels['why']}{colon}** {t}" for _, t in said.get("why", []))]
        lines += ["", *(f"**{labels['how']}{colon}** {t}" for _, t in said.get("how", []))]
        if said.get("note"):
            lines += ["", *bullets("note")]
    else:
        lines += [t for _, t in said.get("head", [])]
        if said.get("bullet"):
            lines += ["", *bullets("bullet")]
    return name, description, "\n".join(lines) + "\n"


def _all_statements(kind: Kind, values: dict[str, str]) -> frozenset[str]:
    """Every statement the kind could make with `values` (canonical form)."""
    return frozenset(f"{kind.key}.{f.key}=" + ",".join(
        values[n] for n in sorted(slots_of(f.text) | slots_of(f.code or ""))) for f in kind.facts)


def _distinct(kind: Kind, values: dict[str, str], said: dict) -> bool:
    """A new subject that shares at most one statement with each note of its kind so far:
    two notes saying the same things under two subjects would be ambiguous truth."""
    subject = (kind.key, *(values[s] for s in kind.subject))
    if subject in said.setdefault("subjects", set()):
        return False
    mine = _all_statements(kind, values)
    if any(len(mine & other) > 1 for other in said.setdefault(kind.key, [])):
        return False
    said["subjects"].add(subject)
    said[kind.key].append(mine)
    return True


def _fresh(kind: Kind, topic: Topic, rng: random.Random, said: dict) -> Content | None:
    for _ in range(30):
        values = _draw(rng, topic)
        if _distinct(kind, values, said):
            names = _pool(kind.names, topic.language)
            descriptions = _pool(kind.descriptions, topic.language)
            return Content(
                kind=kind.key, values=tuple(sorted(values.items())),
                facts=tuple(f.key for f in kind.facts if not f.optional or rng.random() < 0.6),
                variants=tuple((f.key, rng.randrange(2)) for f in kind.facts),
                name_variant=rng.randrange(len(names)),
                description_variant=rng.randrange(len(descriptions)),
                language=topic.language,
            )
    return None


def _near_miss(original: Content, topic: Topic, rng: random.Random, said: dict) -> Content | None:
    """Another note of the same kind, phrasing and statements, every value different."""
    kind = _KIND[original.kind]
    for _ in range(30):
        values = _draw(rng, topic, avoid=dict(original.values))
        if _distinct(kind, values, said):
            return Content(**{**asdict(original), "values": tuple(sorted(values.items())),
                              "shuffle": None})
    return None


def _twin(original: Content, strength: str, mixed: bool, rng: random.Random) -> Content:
    """The same facts, paraphrased (see the module doc)."""
    kind = _KIND[original.kind]
    names = _pool(kind.names, original.language)
    descriptions = _pool(kind.descriptions, original.language)
    flip = {"light": 0.2, "medium": 0.6, "heavy": 1.0}[strength]
    facts = list(original.facts)
    if strength != "light":
        optional = [f.key for f in kind.facts if f.optional]
        present = [k for k in optional if k in facts]
        absent = [k for k in optional if k not in facts]
        if present and (strength == "heavy" or rng.random() < 0.5):
            facts.remove(rng.choice(present))
        if absent and (strength == "heavy" or rng.random() < 0.5):
            facts.append(rng.choice(absent))
    facts = [f.key for f in kind.facts if f.key in facts]  # the kind's order
    variants = tuple((k, 1 - v if rng.random() < flip else v) for k, v in original.variants)
    other = tuple(rng.sample(facts[1:], min(len(facts) - 1, rng.randint(1, 2)))) if mixed else ()
    return Content(
        kind=original.kind, values=original.values, facts=tuple(facts), variants=variants,
        name_variant=rng.choice([i for i in range(len(names)) if i != original.name_variant]),
        description_variant=(original.description_variant + 1) % len(descriptions),
        language=original.language, other_language=other,
        synonyms={"light": 0.3, "medium": 0.5, "heavy": 0.8}[strength],
        shuffle=rng.randrange(1 << 30),
    )


def _community_sizes(spec: VaultSpec, rng: random.Random) -> list[int]:
    sizes: list[int] = []
    left = spec.notes
    while left > 0:
        size = min(rng.randint(spec.min_community, spec.max_community), left)
        sizes.append(size)
        left -= size
    if len(sizes) > 1 and sizes[-1] < spec.min_community:  # a short tail joins its neighbour
        tail = sizes.pop()  # (not `sizes[-2] += sizes.pop()`: that adds to the wrong one)
        sizes[-1] += tail
    return sizes


HUB_MIN_COMMUNITY = 5
OVERLOADED_SECTIONS, OVERLOADED_PER_SECTION = 4, 6


def _special_slots(spec: VaultSpec, sizes: list[int], rng: random.Random) -> dict[int, list[str]]:
    """Which communities get a hub note and which an overloaded note (each takes one of
    the community's notes)."""
    out: dict[int, list[str]] = {}
    for what, count, least in (("hub", spec.hubs, HUB_MIN_COMMUNITY),
                               ("overloaded", spec.overloaded, HUB_MIN_COMMUNITY + 1)):
        fits = [c for c, n in enumerate(sizes) if n - len(out.get(c, ())) >= least]
        if count > len(fits):
            raise RemeError(f"{count} {what} notes need as many communities of {least} notes or "
                            f"more, and there are {len(fits)}; ask for fewer, or more notes.")
        for c in rng.sample(fits, count):
            out.setdefault(c, []).append(what)
    return out


def _overloaded_sections(topics: list[Topic], rng: random.Random, saids: list[dict]
                         ) -> list[tuple[str, list[Content]]] | None:
    """Four sections of six fresh contents, each section one kind about another topic (the
    note's own community's first, then three others'): a note about several things at
    once. Each content is fresh in its topic's community, so it says nothing a note there says."""
    sections = []
    kinds = rng.sample([k.key for k in KINDS], len(KINDS))
    for topic in topics:
        for key in list(kinds):
            found = []
            for _ in range(40):
                if len(found) == OVERLOADED_PER_SECTION:
                    break
                content = _fresh(_KIND[key], topic, rng, saids[topic.community])
                if content is not None:
                    found.append(content)
            if len(found) == OVERLOADED_PER_SECTION:
                sections.append((key, found))
                kinds.remove(key)
                break
        if len(sections) == OVERLOADED_SECTIONS:
            return sections
    return None


def plan_vault(spec: VaultSpec) -> GeneratedVault:
    """The notes, pairs and logs `spec` describes, as values (root not yet set)."""
    spec.check()
    rng = random.Random(spec.seed)
    sizes = _community_sizes(spec, rng)
    codes = _codenames(rng, len(sizes))
    topics = tuple(_topic(c, codes[c], rng, spec.chinese_share) for c in range(len(sizes)))
    # Pair slots: a community of s notes holds up to s // 2 planted pairs.
    slots = [c for c, s in enumerate(sizes) for _ in range(s // 2)]
    if spec.duplicates + spec.near_misses > len(slots):
        raise RemeError(
            f"{spec.duplicates} duplicate and {spec.near_misses} near-miss pairs need "
            f"{2 * (spec.duplicates + spec.near_misses)} notes in pairs, but {spec.notes} notes "
            f"in {len(sizes)} communities hold at most {len(slots)} pairs; ask for fewer pairs."
        )
    rng.shuffle(slots)
    specials = _special_slots(spec, sizes, rng)  # community -> ["hub", "overloaded", ...]
    pairs_in = [[0, 0] for _ in sizes]  # per community: duplicate pairs, near-miss pairs
    for k, c in enumerate(slots[: spec.duplicates + spec.near_misses]):
        pairs_in[c][0 if k < spec.duplicates else 1] += 1
    # Paraphrase strengths and mixed-language twins by quota, so that every vault of a
    # spec has the same shares (40 % light, 40 % medium, 20 % heavy), drawn independently.
    quota = [round(spec.duplicates * sum(_STRENGTH_WEIGHTS[: k + 1])) for k in range(3)]
    strengths = [STRENGTHS[next(k for k in range(3) if i < quota[k])] for i in range(spec.duplicates)]
    mixed_twins = [i < round(spec.duplicates * spec.mixed_language) for i in range(spec.duplicates)]
    rng.shuffle(strengths)
    rng.shuffle(mixed_twins)
    paraphrases = list(zip(strengths, mixed_twins, strict=True))
    contents: list[tuple[int, Content]] = []
    pairs: list[tuple[str, int, int, dict]] = []  # (type, index of a, index of b, extra)
    overloaded: list[tuple[int, list[tuple[str, list[Content]]]]] = []
    saids: list[dict] = []
    for c, topic in enumerate(topics):
        said: dict = {}  # the community's subjects, and every kind's statements
        saids.append(said)
        dups, misses = pairs_in[c]
        units = ["duplicate"] * dups + ["near_miss"] * misses
        units += ["plain"] * (sizes[c] - 2 * len(units) - len(specials.get(c, ())))
        rng.shuffle(units)
        for unit in units:
            for _ in range(200):
                content = _fresh(KINDS[rng.randrange(len(KINDS))], topic, rng, said)
                partner: Content | None = None
                extra: dict = {}
                if content is not None and unit == "near_miss":
                    partner = _near_miss(content, topic, rng, said)
                    if partner is None:  # this kind has no other subject left here
                        continue
                if content is not None:
                    break
            else:
                raise RemeError(f"Community {c} ran out of distinct subjects; use a smaller "
                                "max_community.")
            if unit == "duplicate":
                strength, mixed = paraphrases.pop()
                partner = _twin(content, strength, mixed, rng)
                extra = {"strength": strength, "mixed_language": mixed,
                         "dropped": tuple(f for f in content.facts if f not in partner.facts),
                         "added": tuple(f for f in partner.facts if f not in content.facts)}
            contents.append((c, content))
            if partner is not None:
                contents.append((c, partner))
                pairs.append((unit, len(contents) - 2, len(contents) - 1, extra))
    for c in sorted(c for c, what in specials.items() if "overloaded" in what):
        # three other topics in the same language (a note is written in one language)
        others = [t for t in topics if t.community != c and t.language == topics[c].language]
        if len(others) < OVERLOADED_SECTIONS - 1:
            raise RemeError(f"An overloaded note covers {OVERLOADED_SECTIONS} communities' topics, "
                            f"but only {len(others) + 1} are written in its language; ask for "
                            "more notes or fewer overloaded ones.")
        sections = _overloaded_sections([topics[c], *rng.sample(others, OVERLOADED_SECTIONS - 1)],
                                        rng, saids)
        if sections is None:
            raise RemeError(f"Community {c} has too few subjects left for an overloaded "
                            "note; ask for fewer overloaded notes or larger communities.")
        overloaded.append((c, sections))
    return _finish(spec, rng, topics, contents, pairs, specials, overloaded)


def _finish(spec: VaultSpec, rng: random.Random, topics: tuple[Topic, ...],
            contents: list[tuple[int, Content]], pairs: list[tuple[str, int, int, dict]],
            specials: dict[int, list[str]] | None = None,
            overloaded: list[tuple[int, list[tuple[str, list[Content]]]]] | None = None,
            ) -> GeneratedVault:
    """Paths, links and daily logs for the planned contents."""
    taken: set[str] = set()
    drafts = []  # (community, content, path, description, body)
    for c, content in contents:
        name, description, body = _render_content(content, rng)
        bucket = _KIND[content.kind].bucket
        slug = base = slugify(name)
        for k in range(2, 1000):  # as a create does (docs/spec.md §1.3.3); rare here
            if f"{bucket}/{slug}" not in taken:
                break
            slug = f"{base}-{k}"
        taken.add(f"{bucket}/{slug}")
        drafts.append((c, content, f"digest/{bucket}/{slug}.md", description, body))
    members: list[list[int]] = [[] for _ in topics]
    for i, (c, *_rest) in enumerate(drafts):
        members[c].append(i)
    twin_of = {b: a for kind, a, b, _ in pairs if kind == "duplicate"}
    n = len(drafts)
    low = max(1, spec.links_per_note // 2) if spec.links_per_note else 0
    high = spec.links_per_note + spec.links_per_note // 2
    targets: list[list[int]] = []
    for i, (c, *_rest) in enumerate(drafts):
        own = members[c]
        chosen: list[int] = []
        if i in twin_of:  # a twin keeps about half of its original's links
            chosen = [j for j in targets[twin_of[i]] if j != i and rng.random() < 0.5]
        want = rng.randint(low, high) if high else 0
        for _ in range(want * 3):
            if len(chosen) >= want:
                break
            if rng.random() < spec.mixing and len(own) < n:
                j = rng.randrange(n)
                if drafts[j][0] == c:
                    continue
            elif len(own) > 1:
                j = rng.choice(own)
            else:
                break
            if j != i and j not in chosen:
                chosen.append(j)
        targets.append(chosen)
    logs: list[DailyLog] = []
    logs_of: list[list[int]] = []
    for c, topic in enumerate(topics):
        count = max(2 if len(members[c]) > 1 else 1, math.ceil(len(members[c]) / 5))
        mine = []
        for k in range(count):
            day = spec.start + timedelta(days=rng.randrange(spec.days))
            mine.append(len(logs))
            logs.append(DailyLog(
                f"daily/{day.isoformat()}/{topic.code}-{topic.domain}-session-{k + 1}.md", c, day))
        logs_of.append(mine)
    sources: list[int] = []
    for i, (c, *_rest) in enumerate(drafts):
        options = logs_of[c]
        if i in twin_of:  # learned again, from another day's work
            options = [k for k in options if k != sources[twin_of[i]]] or options
        sources.append(rng.choice(options))
    notes = []
    for i, (c, content, path, description, body) in enumerate(drafts):
        kind = _KIND[content.kind]
        values = dict(content.values)
        links = tuple(
            (drafts[j][2], rng.choice(PREDICATES) if rng.random() < spec.typed_share else None)
            for j in targets[i]
        )
        notes.append(GeneratedNote(
            path=path, community=c, kind=kind.key,
            subject=tuple(values[s] for s in kind.subject), language=content.language,
            facts=_canonical(kind, content), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=description, body=body, links=links, source=logs[sources[i]].path,
        ))
    hubs, heavy = _special_notes(spec, rng, topics, notes, taken, specials or {}, overloaded or [],
                                 logs, logs_of)
    duplicates = tuple(
        DuplicatePair(notes[a].path, notes[b].path, notes[a].kind, extra["strength"],
                      extra["mixed_language"], extra["dropped"], extra["added"])
        for kind, a, b, extra in pairs if kind == "duplicate"
    )
    near = tuple(NearMissPair(notes[a].path, notes[b].path, notes[a].kind)
                 for kind, a, b, _ in pairs if kind == "near_miss")
    ages, recalled, stale = _times(spec, rng, notes, pairs, hubs, heavy)
    ages, recalled, forming = _forming(spec, notes, ages, recalled, stale, hubs, heavy)
    return GeneratedVault(Path(), spec, tuple(notes), duplicates, near, topics, tuple(logs),
                          ages=ages, recalled=recalled, stale=stale,
                          hubs=tuple(sorted(hubs.items())), overloaded=tuple(heavy),
                          forming=forming)


def _special_notes(spec: VaultSpec, rng: random.Random, topics: tuple[Topic, ...],
                   notes: list[GeneratedNote], taken: set[str], specials: dict[int, list[str]],
                   overloaded: list[tuple[int, list[tuple[str, list[Content]]]]],
                   logs: list[DailyLog], logs_of: list[list[int]]) -> tuple[dict[int, str], list[str]]:
    """Append the overloaded notes, then the hub notes (which link them too), to `notes`."""

    def free(bucket: str, name: str) -> str:
        slug = base = slugify(name)
        for k in range(2, 1000):
            if f"{bucket}/{slug}" not in taken:
                break
            slug = f"{base}-{k}"
        taken.add(f"{bucket}/{slug}")
        return f"digest/{bucket}/{slug}.md"

    heavy: list[str] = []
    for c, sections in overloaded:
        topic = topics[c]
        parts = []
        for key, items in sections:
            parts += [f"## {_KIND[key].key.replace('_', ' ').capitalize()}", ""]
            for content in items:
                name, _description, body = _render_content(content, rng)
                # A content's own headings sit one level under its name.
                demoted = "\n".join("##" + line if line.startswith("## ") else line
                                     for line in body.rstrip().splitlines())
                parts += [f"### {name}", "", demoted, ""]
        members = [n.path for n in notes if n.community == c]
        path = free("wiki", f"{topic.code} {topic.domain} handbook")
        notes.append(GeneratedNote(
            path=path, community=c, kind="overloaded", subject=(topic.code,), language=topic.language,
            facts=(), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=f"Everything about {topic.code} {topic.domain} in one place.",
            body="\n".join(parts).rstrip() + "\n",
            links=tuple((p, None) for p in rng.sample(members, min(3, len(members)))),
            source=logs[rng.choice(logs_of[c])].path))
        heavy.append(path)
    hubs: dict[int, str] = {}
    for c in sorted(c for c, what in specials.items() if "hub" in what):
        topic = topics[c]
        members = sorted(n.path for n in notes if n.community == c)
        path = free("wiki", f"{topic.code} {topic.domain} overview")
        notes.append(GeneratedNote(
            path=path, community=c, kind="hub", subject=(topic.code,), language=topic.language,
            facts=(), name=path.rsplit("/", 1)[1].removesuffix(".md"),
            description=f"Where to start with the {topic.code} {topic.domain} notes.",
            body=f"The {topic.code} {topic.domain} notes, one link each.\n",
            links=tuple((p, None) for p in members),
            source=logs[rng.choice(logs_of[c])].path))
        hubs[c] = path
    return hubs, heavy


def _times(spec: VaultSpec, rng: random.Random, notes: list[GeneratedNote], pairs: list,
           hubs: dict[int, str], heavy: list[str]
           ) -> tuple[tuple[tuple[str, float], ...], tuple[tuple[str, float], ...], tuple[str, ...]]:
    """Each note's age, the recent recalls, and the stale notes (plain notes only: never
    a note of a planted pair, a hub or an overloaded note)."""
    in_pairs = {notes[i].path for _, a, b, _ in pairs for i in (a, b)}
    special = set(hubs.values()) | set(heavy)
    plain = [n.path for n in notes if n.path not in in_pairs and n.path not in special]
    if spec.stale > len(plain):
        raise RemeError(f"{spec.stale} stale notes need as many plain notes (not in a planted "
                        f"pair, not a hub or overloaded note); there are {len(plain)}.")
    stale = set(rng.sample(plain, spec.stale))
    ages, recalled = [], []
    for n in notes:
        if n.path in stale:
            ages.append((n.path, round(spec.stale_days + rng.uniform(0, 100), 3)))
            continue
        ages.append((n.path, round(rng.uniform(0, spec.days), 3)))
        if rng.random() < 0.5:
            recalled.append((n.path, round(rng.uniform(0, 14), 3)))
    return tuple(ages), tuple(recalled), tuple(sorted(stale))


def _forming(spec: VaultSpec, notes: list[GeneratedNote], ages, recalled, stale,
             hubs: dict[int, str], heavy: list[str]):
    """Communities still forming: in the k-th of `spec.forming` (k = 1…), a share
    k / forming of the notes was written in the last week, so a week ago they did not
    exist (the stability gate's truth). Drawn from a generator of their own, so a vault
    with `forming` differs from one without only in these notes' times."""
    if not spec.forming:
        return ages, recalled, ()
    rng = random.Random(f"{spec.seed}-forming")
    heavy_paths = set(heavy)
    special = set(hubs) | {n.community for n in notes if n.path in heavy_paths}
    eligible = sorted({n.community for n in notes} - special)
    if spec.forming > len(eligible):
        raise RemeError(f"{spec.forming} forming communities need as many communities without a "
                        f"hub or an overloaded note; there are {len(eligible)}.")
    chosen = sorted(rng.sample(eligible, spec.forming))
    stale = set(stale)
    forming, new_age = [], {}
    for k, c in enumerate(chosen, start=1):
        members = sorted(n.path for n in notes if n.community == c and n.path not in stale)
        new = sorted(rng.sample(members, max(1, round(len(members) * k / spec.forming))))
        forming.append((c, tuple(new)))
        new_age.update((path, round(rng.uniform(0, 6.5), 3)) for path in new)
    ages = tuple((path, new_age.get(path, age)) for path, age in ages)
    # a new note was recalled, if at all, after it was written
    recalled = tuple((path, round(ago * new_age[path] / 14, 3) if path in new_age else ago)
                     for path, ago in recalled)
    return ages, recalled, tuple(forming)


def render_note(note: GeneratedNote, language: str = "en") -> str:
    """The Markdown file of `note`: frontmatter, statements, related links, provenance."""
    label = _LABELS[language]["related"]
    plain, typed = [], []
    for k, (target, predicate) in enumerate(note.links):
        if predicate:
            typed.append(f"{predicate}:: [[{target}]]")
        elif k % 4 == 3:  # now and then with an alias, as people write them
            plain.append(f"- [[{target}|{target.rsplit('/', 1)[1].removesuffix('.md')}]]")
        else:
            plain.append(f"- [[{target}]]")
    related = ("\n**" + label + ("：" if language == "zh" else ":") + "**\n"
               + "\n".join(plain) + "\n") if plain else ""
    tail = "".join(f"{line}\n" for line in typed)
    return (
        f"---\nname: {note.name}\ndescription: {json.dumps(note.description, ensure_ascii=False)}"
        f"\n---\n{note.body}{related}\n{tail}derived_from:: [[{note.source}]]\n"
    )


def _render_log(log: DailyLog, topic: Topic, notes: list[GeneratedNote]) -> str:
    name = log.path.rsplit("/", 1)[1].removesuffix(".md")
    did = "".join(f"- {n.description}\n" for n in notes) or "- Nothing worth keeping.\n"
    return (
        f"---\nname: {name}\ndescription: \"Work on {topic.code} {topic.domain}.\"\n"
        f"date: {log.day.isoformat()}\n---\n\n## Task\n\nWork on the {topic.code} "
        f"{topic.domain} services ({', '.join(topic.services)}).\n\n## What I did\n\n{did}"
    )


def write_vault(root: Path, plan: GeneratedVault, *, truth_path: Path | None = None
                     ) -> GeneratedVault:
    """Write the planned notes and their daily logs under `root`, and the truth as JSON."""
    root = Path(root)
    for layer in ("resource", "daily", "meta", "audit", "digest/procedure", "digest/personal",
                  "digest/wiki"):
        (root / layer).mkdir(parents=True, exist_ok=True)
    by_log: dict[str, list[GeneratedNote]] = {}
    for note in plan.notes:
        by_log.setdefault(note.source, []).append(note)
    for log in plan.logs:
        path = root / log.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_render_log(log, plan.topics[log.community], by_log.get(log.path, [])),
                        encoding="utf-8")
    for note in plan.notes:
        (root / note.path).write_text(render_note(note, note.language), encoding="utf-8")
    now = datetime.combine(plan.spec.today, time(12, 0), tzinfo=UTC)
    for path, age in plan.ages:  # the file time says when the note was last written
        stamp = (now - timedelta(days=age)).timestamp()
        os.utime(root / path, (stamp, stamp))
    for daily in plan.logs:  # a daily log was last written at the end of its day
        stamp = datetime.combine(daily.day, time(23, 0), tzinfo=UTC).timestamp()
        os.utime(root / daily.path, (stamp, stamp))
    log = root / "meta" / "access_log.jsonl"
    with log.open("w", encoding="utf-8") as fh:
        for path, ago in sorted(plan.recalled, key=lambda r: -r[1]):
            fh.write(json.dumps({"ts": iso_utc(now - timedelta(days=ago)), "path": path,
                                 "event": "recall", "query": "generated", "rank": 1}) + "\n")
    truth = Path(truth_path) if truth_path is not None else truth_path_for(root)
    sizes = Counter(n.community for n in plan.notes)
    doc = {
        "version": TRUTH_VERSION,
        "generator": __name__,
        "vault": root.name,
        "spec": plan.spec.to_json(),
        "planted": {
            "communities": {
                "notes": {n.path: n.community for n in sorted(plan.notes, key=lambda n: n.path)},
                "sizes": [sizes[t.community] for t in plan.topics],
                "topics": [{"community": t.community, "code": t.code, "domain": t.domain,
                            "language": t.language} for t in plan.topics],
            },
            "duplicates": [asdict(p) for p in plan.duplicates],
            "near_misses": [asdict(p) for p in plan.near_misses],
            "now": now.isoformat(),
            "stale": list(plan.stale),
            "hubs": {str(c): p for c, p in plan.hubs},
            "overloaded": list(plan.overloaded),
            "forming": {str(c): list(paths) for c, paths in plan.forming},
            "notes": {n.path: {"kind": n.kind, "subject": list(n.subject),
                               "language": n.language, "facts": list(n.facts)}
                      for n in sorted(plan.notes, key=lambda n: n.path)},
        },
    }
    tmp = truth.with_name(f".{truth.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, truth)
    return replace(plan, root=root, truth_path=truth)


def generate_vault(root: Path, spec: VaultSpec | None = None, *,
                        truth_path: Path | None = None) -> GeneratedVault:
    """Plan and write a vault with planted duplicate pairs (see the module doc)."""
    return write_vault(root, plan_vault(spec or VaultSpec()), truth_path=truth_path)


def read_truth(path: Path) -> dict:
    """The truth a `write_vault` saved; refuses another generator or version."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    if (not isinstance(doc, dict) or doc.get("version") != TRUTH_VERSION
            or doc.get("generator") != __name__):
        raise RemeError(
            f"{path} is not a version {TRUTH_VERSION} duplicate-pairs truth file; generate the "
            "vault again with reme_workbench.experiments.duplicates.generate_vault."
        )
    return doc


def truth_path_for(root: Path) -> Path:
    """Where the planted truth of the vault at `root` is kept: beside it, not inside."""
    root = Path(root)
    return root.parent / f"{root.name}.planted.json"


def normalized_mutual_info(
    truth: Mapping[Hashable, Hashable], found: Mapping[Hashable, Hashable]
) -> float:
    """NMI of two partitions (node -> label) over the nodes both hold, normalised by the
    arithmetic mean of the two entropies (scikit-learn's default): 1.0 for the same
    partition under any labels, about 0 for unrelated ones. Two single-block partitions
    are the same partition (1.0); no common node at all raises."""
    nodes = [node for node in truth if node in found]
    if not nodes:
        raise RemeError("The two partitions share no node; NMI needs the same nodes in both.")
    total = len(nodes)
    a = Counter(truth[v] for v in nodes)
    b = Counter(found[v] for v in nodes)
    joint = Counter((truth[v], found[v]) for v in nodes)

    def entropy(counts: Counter) -> float:
        return -sum(c / total * math.log(c / total) for c in counts.values())

    h_a, h_b = entropy(a), entropy(b)
    if h_a + h_b == 0.0:
        return 1.0
    mutual = sum(
        c / total * math.log(c * total / (a[x] * b[y])) for (x, y), c in joint.items()
    )
    return max(0.0, min(1.0, 2.0 * mutual / (h_a + h_b)))
