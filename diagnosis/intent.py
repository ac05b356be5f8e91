"""The intent router: rules first, no model.

- SYSTEM_CHAT: a greeting, thanks or a help request, and nothing else (``hi``, ``help``, ``你好``,
  ``what can you do?``). Answered with a fixed text, no tools.
- KNOWLEDGE_QUERY: a how-to / what-is question about procedures (``how do I rotate the pool``,
  ``what is the runbook for``, ``如何``, ``什么是``) that reports no live symptom.
- DIAGNOSIS: everything else, and any message that reports a symptom (``why``, ``error``, ``latency``,
  ``down``, ``timeout``, ``为什么``, ``原因``, ``慢``, ``报错``, ``超时``, ``不可用``...), with or without a service
  name, because missing a real incident is worse than running the
  graph for a question that a runbook would have answered.
"""

from __future__ import annotations

import re
import unicodedata

from diagnosis.language import language_of
from diagnosis.models import Intent

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?|thx|help|\?|"
    r"what can you do|who are you|how do i use (this|you)|你好|您好|嗨|谢谢|帮助|你能做什么|你是谁)"
    r"[\s!.?,，。！？]*$",
    re.IGNORECASE,
)
# ASCII word boundaries: a Chinese character is a word character to Python's \b, so the "502" of "网关返回502"
# and the "timeout" of "支付服务timeout了" (Chinese written around English words without spaces) had no boundary
# and went unseen.
_KNOWLEDGE = re.compile(
    r"\b(how (do|can|should) (i|we|you)|how to|what is|what are|what does|explain|describe|runbook|"
    r"procedure|steps? to|best practice|documentation|docs? (for|on|about))\b|如何|怎么|怎样|什么是|是什么|步骤|手册",
    re.IGNORECASE | re.ASCII,
)
_SYMPTOM = re.compile(
    r"\b(why|fail(s|ed|ing|ure)?|error(s)?|exception|latency|slow(er)?|down|outage|incident|spik(e|ed|ing)|"
    r"timeouts?|tim(e|es|ed|ing) out|root[ -]causes?|broken|crash(ed|ing)?|degraded|alert(s|ing)?|p9[059]|5\d\d|since|"
    r"causing|driving|behind|stuck|backlog|piling up|lag(ging)?|dropp(ed|ing)|above|high(er)?)\b|"
    r"为什么|为何|怎么回事|原因|根因|报错|错误|出错|失败|故障|异常|超时|慢|延迟|卡顿|卡住|很卡|卡死|挂了|挂掉|宕机|"
    r"不可用|不可达|不通|打不开|崩溃|告警|报警|积压|堆积|飙升|暴涨|抖动|丢失|拒绝",
    re.IGNORECASE | re.ASCII,
)

SYSTEM_CHAT_ANSWER = (
    "Hi! I diagnose production incidents from evidence. Describe a symptom — for example "
    "*“payment-service p99 latency tripled since 10:05, why?”* — and I will plan, query runbooks, logs, "
    "metrics and the business database, verify every citation, and answer only with what the evidence "
    "supports. Ask *“how do I …”* to search the runbooks directly. Every run can be audited afterwards."
)
SYSTEM_CHAT_ANSWER_ZH = (
    "你好！我根据证据诊断生产故障。请描述一个症状，例如 *“支付服务从 10:05 开始变慢，是什么原因？”*，"
    "我会制定排查计划，查询运行手册、日志、指标和业务数据库，验证每一处引用，只回答证据支持的内容。"
    "以 *“如何……”* 提问可直接检索运行手册。每次运行事后都可以审计。"
)


def system_chat_answer(message: str) -> str:
    """The fixed greeting and help text, in the language of ``message``."""
    return SYSTEM_CHAT_ANSWER_ZH if language_of(message) == "zh" else SYSTEM_CHAT_ANSWER


def route_intent(message: str) -> Intent:
    # As a reader reads it: full-width "５０２" and "ｔｉｍｅｏｕｔ" (a Chinese input method's) are 502 and timeout.
    message = unicodedata.normalize("NFKC", message)
    if _GREETING.match(message):
        return Intent.SYSTEM_CHAT
    if _KNOWLEDGE.search(message) and not _SYMPTOM.search(message):
        return Intent.KNOWLEDGE_QUERY
    return Intent.DIAGNOSIS
