"""The unrelated note sentences an embedder's chance level is measured on (docs/spec.md §7.9.1).

A cosine means different things per embedder: unrelated English notes score ~0.09 with
MiniLM and ~0.81 with e5. Ten mutually unrelated note sentences per language are embedded
once per embedder (`candidates.chance_level`); their mean pairwise cosine is what
"unrelated" scores, and merge candidates and the offline judges measure similarity above
it. Changing a sentence moves every similarity, so they change only with a new calibration.
"""

from __future__ import annotations

__all__ = ["REFERENCE"]

REFERENCE = {
    "en": (
        "Quarterly rotation of the staging database credential and the services that read it.",
        "The home router hands out addresses from 192.168.50.0/24 and runs the DNS forwarder.",
        "Mei wants the weekly report as three short bullet sections, sent on Friday afternoon.",
        "How to rebuild the Python virtual environment on the build box with uv.",
        "The incident on October 12: payments-api returned 502 for nine minutes after a deploy.",
        "Home Assistant backups run nightly to the NAS and are kept for thirty days.",
        "Canary deploys wait fifteen minutes and watch the error rate before promoting.",
        "Never run a schema migration in production without a fresh snapshot.",
        "The camera on the balcony needed a static lease before it would join the IoT network.",
        "PgBouncer runs in transaction mode, so session-level features are not available.",
    ),
    "zh": (
        "周报改到周五下午发，用三段要点列表写。",
        "家里的路由器是 OpenWrt，地址 192.168.50.1，负责拨号和 DNS 转发。",
        "生产环境的数据库迁移必须先做快照再执行。",
        "构建机上用 uv 重建 Python 虚拟环境的步骤。",
        "十月十二日的事故：发布之后支付接口返回 502 持续九分钟。",
        "Home Assistant 每晚备份到 NAS，保留三十天。",
        "金丝雀发布要观察十五分钟错误率再全量。",
        "跟我说话时请用中文回复，不用解释原理。",
        "阳台的摄像头要先在路由器上绑定固定地址才能接入 IoT 网段。",
        "PgBouncer 使用事务模式，会话级功能不可用。",
    ),
}
