"""Chinese operations words in English: a Chinese question finds an English runbook without embeddings.

Lexical retrieval matches words, and a Chinese question shares none with an English runbook: "连接池耗尽怎么处理？"
found nothing in the demo's English knowledge base, which its first users (Chinese-speaking on-call teams)
ask in their own language. Dense scores bridge languages, but only where an embedding model is configured.

So in a knowledge base that is mostly English (``Snapshot._words``), the words of this table found in a
question are read as their English equivalents: "连接池" as ``connection`` and ``pool``, "处理" as ``mitigation``
and ``fix``. The table is hand-kept and short, like the stopword lists, and its English words are single
words, so that no stray part ("out" of "timed out") matches. Its keys are found in the question's text, longest
first, not among jieba's terms: jieba cuts "不可用" and "重平衡" apart.

Once a word of what an incident is about (``SUBJECTS``: a connection pool, a certificate, a backlog) is read
in English, the question is read as an English one would be: a Chinese word the table does not read is a
word the base never saw, and weighs as one ("牛奶过期了" is about milk, not about expiry), unless it is one of
the words any question is made of (``FILLER``: "开始", "大量", "一直"). The words every incident question says
(``COMMON``: why, fix, failed, slow, deployed) decide nothing unless the question says nothing else: they rank
the runbooks that other words found, so "我家猫咪生病了怎么处理" (my cat is sick, how do I fix it) finds nothing,
while "发布失败怎么办" (a deploy failed, what now) finds the deploy procedure.

A base that is mostly Chinese reads the table the other way round (``chinese_words``): an alert's English
"message queue disk full" is matched by its runbook's 消息, 队列, 磁盘 and 写满, and an English word only
common words read ("fix", "error") decides nothing beside a word the base never saw.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from tools.knowledge.tokenize import is_han_character, tokenize

# What an incident is about.
SUBJECTS: dict[str, str] = {
    "连接池": "connection pool", "连接数": "connections", "线程池": "thread pool",
    "耗尽": "exhausted", "用尽": "exhausted", "不可用": "unavailable", "拒绝连接": "refused connection",
    "握手": "handshake", "积压": "backlog lag", "堆积": "backlog", "泄漏": "leak", "泄露": "leak",
    "元数据": "metadata", "表结构": "schema", "签名": "signing signature", "校验": "verify", "验证": "verify",
    "补丁": "patch", "推荐": "recommendation", "兜底": "fallback", "服务器": "server host", "风控": "fraud",
    "商户": "merchant", "提现": "payout withdrawal", "短信": "sms", "验证码": "otp", "运营商": "carrier",
    "切换": "failover switchover", "主备切换": "failover", "连接": "connection", "拒绝": "refused rejected",
    "调用": "call", "重传": "retransmit", "同步": "sync", "风暴": "storm", "查询": "query", "主机": "host",
    "任务": "job task", "凭据": "credential", "凭证": "credential", "行锁": "lock", "地址": "address",
    "上限": "limit max", "投影": "projection", "报表": "report", "打满": "saturated full", "全量": "full",
    "重建": "rebuild reindex", "向量": "vector", "副本": "replica", "主节点": "primary leader",
    "表满": "table full", "等待": "wait", "商品": "product item", "营销": "marketing", "活动": "campaign",
    "排期": "schedule",
    "溢出": "overflow", "写满": "full", "占满": "full", "磁盘满": "disk full", "死锁": "deadlock",
    "锁等待": "lock wait", "锁表": "lock table", "阻塞": "blocked", "僵死": "hung", "丢消息": "lost message",
    "时钟偏差": "clock skew", "时钟漂移": "clock drift", "误伤": "false positive", "拦截": "blocked",
    "数据库": "database", "主库": "primary", "从库": "replica", "主从复制": "replication", "主从": "replication",
    "复制延迟": "replication lag", "缓存": "cache", "命中率": "hit ratio", "缓存击穿": "cache stampede",
    "雪崩": "stampede", "淘汰": "eviction", "驱逐": "evicted", "过期": "expired", "证书": "certificate tls",
    "磁盘": "disk", "磁盘空间": "disk space", "索引节点": "inode", "内存": "memory", "内存溢出": "oom memory",
    "堆内存": "heap", "线程": "thread", "垃圾回收": "gc garbage", "队列": "queue", "消息队列": "queue broker",
    "消息": "message", "消费者": "consumer", "消费": "consumer consume", "生产者": "producer", "分区": "partition", "重平衡": "rebalance",
    "再均衡": "rebalance", "网关": "gateway", "负载均衡": "balancer lb", "域名": "dns domain",
    "域名解析": "dns", "时钟": "clock", "时间同步": "ntp clock", "节点": "node", "集群": "cluster",
    "容器": "container pod", "实例": "instance", "文件句柄": "descriptor", "慢查询": "slow query",
    "索引": "index", "事务": "transaction", "迁移": "migration", "令牌": "token", "会话": "session",
    "密钥": "key secret", "密码": "password credential", "认证": "authentication", "鉴权": "authentication",
    "防火墙": "firewall", "连接跟踪": "conntrack", "限流": "throttling", "熔断": "breaker",
    "降级": "degrade fallback", "重试": "retry", "阈值": "threshold", "功能开关": "flag",
    "开关": "flag", "灰度": "canary rollout", "轮换": "rotation", "扩容": "scale", "缩容": "scale",
    "定时任务": "cron schedule", "批处理": "batch", "回滚": "rollback", "支付": "payment", "订单": "order",
    "库存": "inventory stock", "结算": "checkout", "搜索": "search", "登录": "login", "通知": "notification",
    "邮件": "email", "账单": "billing invoice", "退款": "refund", "发货": "shipment", "物流": "shipping",
    "图片": "image", "上传": "upload", "网络": "network", "丢包": "packet loss", "负载": "load",
    "流量": "traffic", "配置": "configuration config",
}  # fmt: skip

# What every incident question says.
COMMON: dict[str, str] = {
    "处理": "mitigation fix", "解决": "fix resolve", "修复": "fix", "恢复": "recover restore",
    "止血": "mitigation", "排查": "troubleshoot diagnose", "定位": "diagnose", "确认": "confirm",
    "检查": "check", "清理": "cleanup purge", "重启": "restart", "原因": "cause", "根因": "cause",
    "步骤": "steps procedure", "症状": "symptom", "失败": "failed failure", "故障": "failure outage",
    "报错": "error", "错误": "error", "异常": "error", "宕机": "outage crash", "崩溃": "crash",
    "超时": "timeout", "延迟": "latency delay", "时延": "latency", "慢": "slow", "卡顿": "stall",
    "下降": "drop", "升高": "increase", "飙升": "spike", "抖动": "jitter", "发布": "deploy release",
    "部署": "deploy", "上线": "deploy release", "变更": "change", "升级": "upgrade", "接口": "api endpoint",
    "卡住": "stuck", "时间": "time",
    "请求": "request", "响应": "response", "日志": "log", "指标": "metric", "监控": "monitoring", "告警": "alert",
}  # fmt: skip

# Words any question is made of, and lone characters that say nothing by themselves: neither read nor weighed.
FILLER = frozenset({
    "开始", "左右", "大量", "一直", "突然", "频繁", "出现", "导致", "用户", "反馈", "今天", "刚才", "刚刚", "现在", "已经", "经常",
    "总是", "很多", "一些", "无法", "不能", "进行", "发生", "情况", "问题", "时候", "之后", "以后", "以前", "之前", "期间", "部分",
    "所有", "然后", "同时", "还是", "是不是", "一下", "服务", "系统", "提示", "返回", "显示", "页面", "打开", "一半", "多少",
    "最近", "刚", "还", "很", "太", "非常", "有点", "好像", "可能", "线上", "生产", "环境", "生产环境", "回事", "怎么回事", "看看",
    "老是", "偶尔", "之间", "自动", "增多", "新建", "达到", "结果", "出去", "越来越", "不是", "有些", "几个", "好多", "特别",
    "一点", "原来", "其他", "其它", "对应", "相关", "目前", "当前", "一次", "每次", "有时", "时不时", "帮忙", "帮我", "后", "上",
    "下", "里", "中", "前", "多", "少", "大", "小", "高", "低", "快", "新", "老", "再", "才", "又", "已", "没", "不",
    "想", "看", "用", "做", "跟", "只", "最", "更", "好", "差", "长", "短", "次", "个", "些", "点", "下来", "起来",
    "出来",
})  # fmt: skip

# A key that also starts a longer everyday word after a common one ("从库存" is "from the inventory").
_NOT_BEFORE = {"从库": "存"}
_KEYS = sorted([*SUBJECTS, *COMMON], key=len, reverse=True)
_KEY = re.compile("|".join(re.escape(key) + (f"(?!{_NOT_BEFORE[key]})" if key in _NOT_BEFORE else "") for key in _KEYS))


@dataclass(frozen=True)
class Gloss:
    """A question as the glossary reads it: its words of the table, and its other Chinese words."""

    readings: tuple[Reading, ...]
    unread: tuple[str, ...]
    """The question's Chinese words of two characters or more that the table does not read, filler aside, each
    the longest jieba cut (not "越来" beside "越来越", nor "池满" across "线程池满了")."""


@dataclass(frozen=True)
class Reading:
    """A word of the table found in a question, with its English terms (as the tokeniser makes them)."""

    word: str
    terms: tuple[str, ...]
    common: bool
    """A word every incident question says: it ranks, it does not decide (module docstring)."""


def gloss(query: str) -> Gloss:
    """The table's words in ``query`` (longest first where two overlap, in reading order), and the rest."""
    text = unicodedata.normalize("NFKC", query)
    found = tuple(_reading(match.group(0)) for match in _KEY.finditer(text))
    words = [term for term in tokenize(_KEY.sub(" ", text)) if len(term) > 1 and is_han_character(term[0])]
    longest = [word for word in words if not any(word != other and word in other for other in words)]
    return Gloss(found, tuple(dict.fromkeys(word for word in longest if word not in FILLER)))


@cache
def _reading(word: str) -> Reading:
    common = word in COMMON
    english = COMMON[word] if common else SUBJECTS[word]
    return Reading(word, tuple(dict.fromkeys(tokenize(english))), common)


@cache
def chinese_words(term: str) -> tuple[Reading, ...]:
    """The table's Chinese words that read as the English ``term`` (as the tokeniser makes it), longest first:
    an English question read against a Chinese base ("connection pool exhausted": 连接池, 耗尽)."""
    return tuple(reading for key in _KEYS if term in (reading := _reading(key)).terms)
