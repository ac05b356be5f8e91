"""Generic operations vocabulary: the words on-call engineers use for faults, symptoms and fixes.

Nothing here names a product, a service or a scenario. The lists are what any runbook or log of any stack
uses ("exhausted", "timed out", "evict", "roll back"), so that the rules generalise to incidents the
provider has never seen; they only weigh evidence, they never decide an answer on their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

# Word stems that mark a message as describing a fault (matched on lower-case text, as prefixes of words).
FAULT_STEMS = (
    "abort",
    "alarm",
    "block",
    "broken",
    "cannot",
    "crash",
    "deadlock",
    "degrad",
    "denied",
    "drop",
    "error",
    "evict",
    "exceed",
    "exception",
    "exhaust",
    "expire",
    "fail",
    "fatal",
    "full",
    "insufficient",
    "invalid",
    "kill",
    "lag",
    "leak",
    "limit",
    "lost",
    "oom",
    "outofmemory",
    "overflow",
    "overload",
    "panic",
    "pending",
    "refus",
    "reject",
    "reset",
    "saturat",
    "slow",
    "stall",
    "stuck",
    "throttl",
    "timeout",
    "unavailable",
    "unreachable",
    "unhealthy",
)
# Multi-word fault phrases that no single stem captures.
FAULT_PHRASES = (
    "timed out",
    "not available",
    "no space",
    "out of memory",
    "too many",
    "low on",
    "back pressure",
    "backpressure",
    "circuit open",
    "connection reset",
    "max connections",
    "reached max",
)

# The same in Chinese logs ("写入失败", "连接超时", "WAF 拦截", "连接池耗尽"), matched anywhere: Chinese has no
# spaces between words.
FAULT_WORDS_ZH = (
    "失败",
    "错误",
    "超时",
    "拒绝",
    "拦截",
    "耗尽",
    "不可用",
    "异常",
    "已满",
    "写满",
    "丢弃",
    "丢包",
    "阻塞",
    "溢出",
    "过期",
    "泄漏",
    "泄露",
    "崩溃",
    "无法",
    "中断",
    "限流",
    "熔断",
    "积压",
    "不足",
)

# Verbs that open a remediation step in a runbook ("Roll back the deploy", "Stop the writer", "回滚部署").
MITIGATION_VERBS = (
    "add",
    "cap",
    "clean",
    "clear",
    "delete",
    "disable",
    "downgrade",
    "drain",
    "enable",
    "expand",
    "expire",
    "extend",
    "fail over",
    "failover",
    "fix",
    "flush",
    "grow",
    "increase",
    "kill",
    "lower",
    "move",
    "pause",
    "purge",
    "raise",
    "re-enable",
    "reduce",
    "remove",
    "replace",
    "resize",
    "restart",
    "restore",
    "revert",
    "roll back",
    "rollback",
    "rotate",
    "scale",
    "shed",
    "stop",
    "switch",
    "throttle",
    "turn off",
    "undo",
    "upgrade",
)
MITIGATION_VERBS_ZH = ("关闭", "删除", "清理", "回滚", "重启", "扩容", "恢复", "停止", "暂停", "禁用", "切换", "限流")
_MITIGATION_START = re.compile(
    r"^(?:\d+[.)]\s*)?(?:(?:"
    + "|".join(re.escape(verb) for verb in MITIGATION_VERBS)
    + r")\b|"
    + "|".join(MITIGATION_VERBS_ZH)
    + ")",
    re.IGNORECASE,
)
_FAULT_WORD = re.compile(r"\b(?:" + "|".join(FAULT_STEMS) + r")", re.IGNORECASE)
# An HTTP 5xx status standing alone ("POST /checkout 503 3609ms") is a server-side failure.
_SERVER_ERROR_STATUS = re.compile(r"(?<![\w.:/-])5\d\d(?![\w.:/-])")


def fault_score(text: str) -> int:
    """How many fault words and phrases ``text`` contains: a message that names a failure ranks higher."""
    lowered = text.lower()
    phrases = sum(lowered.count(phrase) for phrase in FAULT_PHRASES)
    chinese = 0 if lowered.isascii() else sum(lowered.count(word) for word in FAULT_WORDS_ZH)
    words = len(_FAULT_WORD.findall(lowered)) + phrases + chinese
    return words + len(_SERVER_ERROR_STATUS.findall(lowered))


# Section titles under which runbooks put their fixes.
REMEDIATION_TITLE = re.compile(
    r"mitigat|remediat|\bfix|resolution|workaround|recover|rollback|roll back|处理|解决|修复|止血|恢复", re.IGNORECASE
)


def is_mitigation(sentence: str) -> bool:
    """Whether ``sentence`` reads as a remediation step (it starts with a remediation verb)."""
    return _MITIGATION_START.match(sentence.strip()) is not None


@dataclass(frozen=True)
class Symptom:
    """A symptom family: the words that reveal it in a question and the causes worth checking first."""

    name: str
    cues: tuple[str, ...]
    hypotheses: tuple[str, ...]


# English and Chinese cues: questions arrive in both. Order is priority when several families match.
SYMPTOMS = (
    Symptom(
        "latency",
        ("latency", "slow", "p99", "p95", "timeout", "timed out", "time out", "hang", "延迟", "慢", "超时", "卡"),
        (
            "a saturated resource in the request path (connection or thread pool, CPU, memory, disk)",
            "a slow or blocked dependency (database, cache, message broker, downstream service)",
        ),
    ),
    Symptom(
        "errors",
        (
            "error",
            "fail",
            "5xx",
            "500",
            "502",
            "503",
            "504",
            "exception",
            "unavailable",
            "错误",
            "失败",
            "报错",
            "异常",
        ),
        ("a dependency failing or refusing requests (database, cache, broker, downstream service)",),
    ),
    Symptom(
        "backlog",
        ("backlog", "piling", "pile up", "queue", "lag", "stuck", "stopped receiving", "积压", "堆积", "阻塞", "卡住"),
        ("a blocked or stalled message pipeline (a broker refusing producers, slow or stopped consumers)",),
    ),
    Symptom(
        "load",
        ("cpu", "load", "qps", "traffic", "memory", "disk", "负载", "内存", "磁盘"),
        ("extra load pushed onto the component (retries, cache misses, expensive queries) or resource exhaustion",),
    ),
)
CHANGE_HYPOTHESIS = "a recent deploy or configuration change shortly before the onset"

# Words of table and column names that mark a change record: generic change-management vocabulary.
CHANGE_WORDS = frozenset(
    {
        "audit",
        "change",
        "changed",
        "changes",
        "config",
        "configuration",
        "deploy",
        "deployed",
        "deployment",
        "deployments",
        "migration",
        "migrations",
        "flag",
        "flags",
        "feature",
        "campaign",
        "campaigns",
        "job",
        "jobs",
        "renew",
        "renewal",
        "renewed",
        "expiry",
        "expires",
        "new",
        "old",
        "param",
        "previous",
        "release",
        "rollout",
        "setting",
        "settings",
        "version",
    }
)


# Words of a change record's column that name what it changed: the service, component or host it applies to.
SUBJECT_WORDS = frozenset({"service", "component", "target", "app", "application", "system", "host", "node", "cluster"})


# Words with which a log line announces a change to the running system: a deploy, a rollout, a migration, a
# configuration reload, a feature flag, a restart, a scaling action, a certificate, a failover ("starting
# version v4.2.0", "feature flag X enabled", "scaled to 0 replicas", "配置已重新加载"). Matched as prefixes of
# words, on any level: such lines are usually INFO, and they are the first thing to read before an onset.
CHANGE_ANNOUNCEMENT_STEMS = (
    "deploy",
    "rollout",
    "rolled out",
    "rolling out",
    "roll out",
    "rolling restart",
    "release",
    "migrat",
    "alter table",
    "schema change",
    "config",
    "reload",
    "feature flag",
    "flag ",
    "toggle",
    "restart",
    "scaled",
    "scaling",
    "scale down",
    "scale up",
    "certificat",
    "failover",
    "fail over",
    "switchover",
    "upgrad",
    "downgrad",
    "starting version",
    "new version",
    "campaign",
    "dns record",
    "record updated",
    "cron",
    "backfill",
    "reindex",
    "backup",
    "ntp",
    "time sync",
)
CHANGE_ANNOUNCEMENT_ZH = (  # patterns, joined as they are
    "部署",
    "发布",
    "上线",
    "变更",
    "迁移",
    "配置",
    "重启",
    "扩容",
    "缩容",
    "证书",
    "切换",
    "开关",
    "灰度",
    # An upgrade, not a ticket, an alert or a complaint escalated (to the second line, a priority, a team).
    r"(?<!工单|事件|告警|投诉|客诉|问题|等级|级别)(?<!工单已|事件已|告警已|投诉已|问题已|客服已)"
    r"(?<!工单已经|事件已经|告警已经|投诉已经|问题已经)升级"
    r"(?!(?:到|至|给|为)?\s*(?:[一二三]线|[LPS][0-4]|SEV\s*\d|P\d|值班|主管|组长|经理|专家|技术支持|DBA|SRE|on-?call"
    r"|重大|故障|团队|处理(?!器)|工单|运维(?!平台)|研发(?!平台)|[一二三四]级))",
    "回滚",
    "时间同步",
)
_CHANGE_ANNOUNCEMENT = re.compile(
    r"(?<![a-z])(?:"
    + "|".join(re.escape(stem) for stem in CHANGE_ANNOUNCEMENT_STEMS)
    + ")|"
    # A job or a batch starting ("job nightly-export started", "starting job reindex", "batch import scheduled")
    # brings new load; a batch processed ("processed batch records=157 in 15.5s") is routine work.
    + r"\b(?:job|batch)\b[^.;]{0,60}\b(?:start|schedul|launch)|\bstart\w*\s+(?:the\s+)?(?:job|batch)\b|"
    # A replica count ("scaled to 0 replicas", "max_replicas 10 -> 2"), not a ReplicaSet, whose controller
    # creates a pod for one evicted.
    + r"(?<![a-z])replicas(?!et)|"
    + "|".join(CHANGE_ANNOUNCEMENT_ZH),
    re.IGNORECASE,
)


# Log levels at which a service reports no problem: a record at one of them is no failure, whatever it says.
QUIET_LEVELS = frozenset({"TRACE", "DEBUG", "INFO", "NOTICE"})


# Words every component name carries ("payment-service", "auth-api", "image-worker"): sharing one says
# nothing about whether a change touches the failing component, so relatedness ignores them.
GENERIC_NAME_WORDS = frozenset(
    {"service", "services", "svc", "api", "app", "server", "worker", "internal", "prod", "production", "cluster"}
)


# Pure and asked again and again about the same texts (every turn re-reads the run's results so far).
@lru_cache(maxsize=4096)
def announces_change(message: str) -> bool:
    """Whether a log message announces a change to the system (a deploy, a flag, a restart, a migration...)."""
    return _CHANGE_ANNOUNCEMENT.search(message) is not None


_NAME_WORD = re.compile(r"[a-z]+")


# Words of a change record's column that hold what the change set (``new_value``, ``new_state``), and what it
# replaced (``old_value``, ``previous_version``).
NEW_STATE_WORDS = frozenset({"new", "current", "after"})
OLD_STATE_WORDS = frozenset({"old", "previous", "before"})


def name_words(name: str) -> set[str]:
    """The words of a table or column name (``changed_at`` gives ``changed`` and ``at``)."""
    return set(_NAME_WORD.findall(name.lower()))


def reads_like_change_record(columns: Iterable[str]) -> bool:
    """Whether a table's columns read like a change record (deploys, configuration, versions, flags...)."""
    return any(name_words(column) & CHANGE_WORDS for column in columns)


def symptoms_in(question: str) -> list[Symptom]:
    """The symptom families whose cues occur in ``question``, in priority order."""
    lowered = question.lower()
    return [symptom for symptom in SYMPTOMS if any(cue in lowered for cue in symptom.cues)]
