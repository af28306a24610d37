"""What the generated notes say: note kinds, their phrasings, and the topics' values.

The text tables of `reme_lab.generator` (its module doc describes the
vault): the 13 note kinds (`KINDS`, each a `Kind` of `Fact` statements in " | "-separated
English and Chinese phrasings), the synonyms a paraphrase may swap, the section labels,
the helpers that pick and fill a phrasing (`phrasings`, `slots_of`, `_phrase`), and the
vocabulary of a community's topic (`Topic`: codename, domain, services, stores, queues,
people) with the draw of one note's values (`_draw`).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from reme_workbench.errors import RemeError
from reme_workbench.textrules import HAN_CHARS

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
_CJK_RE = re.compile(f"[{HAN_CHARS}]")
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

