"""The intent router: rules first, no model.

- SYSTEM_CHAT: a greeting, thanks or a help request, and nothing else (``hi``, ``help``, ``你好``,
  ``what can you do?``). Answered with a fixed text, no tools.
- KNOWLEDGE_QUERY: a how-to / what-is question about procedures (``how do I rotate the pool``,
  ``what is the runbook for``, ``如何``, ``什么是``) that reports no live symptom.
- DIAGNOSIS: everything else, and any message that reports a symptom (``why``, ``error``, ``latency``,
  ``down``, ``timeout``, ``为什么``, ``报错``...), because missing a real incident is worse than running the
  graph for a question that a runbook would have answered.
"""

from __future__ import annotations

import re

from diagnosis.models import Intent

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?|thx|help|\?|"
    r"what can you do|who are you|how do i use (this|you)|你好|您好|嗨|谢谢|帮助|你能做什么|你是谁)"
    r"[\s!.?,，。！？]*$",
    re.IGNORECASE,
)
_KNOWLEDGE = re.compile(
    r"\b(how (do|can|should) (i|we|you)|how to|what is|what are|what does|explain|describe|runbook|"
    r"procedure|steps? to|best practice|documentation|docs? (for|on|about))\b|如何|怎么|怎样|什么是|是什么|步骤|手册",
    re.IGNORECASE,
)
_SYMPTOM = re.compile(
    r"\b(why|fail(s|ed|ing|ure)?|error(s)?|exception|latency|slow(er)?|down|outage|incident|spik(e|ed|ing)|"
    r"timeouts?|timed out|broken|crash(ed|ing)?|degraded|alert(s|ing)?|p9[059]|5\d\d|since|"
    r"causing|driving|behind|stuck|backlog|piling up|lag(ging)?|dropp(ed|ing)|above|high(er)?)\b|"
    r"为什么|报错|故障|异常|超时|变慢|宕机|告警|积压|根因",
    re.IGNORECASE,
)

SYSTEM_CHAT_ANSWER = (
    "Hi! I diagnose production incidents from evidence. Describe a symptom — for example "
    "*“payment-service p99 latency tripled since 10:05, why?”* — and I will plan, query runbooks, logs, "
    "metrics and the business database, verify every citation, and answer only with what the evidence "
    "supports. Ask *“how do I …”* to search the runbooks directly. Every run can be audited afterwards."
)


def route_intent(message: str) -> Intent:
    if _GREETING.match(message):
        return Intent.SYSTEM_CHAT
    if _KNOWLEDGE.search(message) and not _SYMPTOM.search(message):
        return Intent.KNOWLEDGE_QUERY
    return Intent.DIAGNOSIS
