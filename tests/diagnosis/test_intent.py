"""The intent router's rules: greetings and help, how-to questions, and everything that reports a symptom."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnosis.intent import SYSTEM_CHAT_ANSWER, SYSTEM_CHAT_ANSWER_ZH, route_intent, system_chat_answer
from diagnosis.language import language_of
from diagnosis.models import Intent

PACKS = Path(__file__).resolve().parents[2] / "tools" / "scenarios" / "packs"
SHIPPED_QUESTIONS = [
    q["text"] for f in sorted(PACKS.glob("*/scenario.json")) for q in json.loads(f.read_text())["questions"]
]


@pytest.mark.parametrize("message", ["hi", "Hello!", "help", "thanks", "what can you do?", "你好", "谢谢"])
def test_it_routes_greetings_and_help_to_system_chat(message):
    assert route_intent(message) == Intent.SYSTEM_CHAT


@pytest.mark.parametrize(
    "message",
    [
        "how do I rotate the db password?",
        "What is the runbook for cache eviction?",
        "how to restart rabbitmq",
        "如何扩容连接池",
        "什么是 allkeys-lru",
        "怎么配置连接池大小",
        "如何重启 rabbitmq",
        "回滚部署的步骤是什么",
    ],
)
def test_it_routes_how_to_questions_to_the_knowledge_base(message):
    assert route_intent(message) == Intent.KNOWLEDGE_QUERY


@pytest.mark.parametrize(
    "message",
    [
        "how do I fix the 503 errors on checkout?",
        "what is causing the latency spike?",
        "what is driving the load since 13:45?",
        "为什么支付超时",
        "支付服务最近很慢，帮我看看是什么原因",
        "结账接口一直报错",
        "订单服务挂了",
        "下单失败，怎么回事？",
        "网关延迟很高",
        "payment-service 不可用",
        "如何处理支付超时",
        "hi, payment-service is down",
        "checkout",
        # Chinese written around English words and numbers without spaces, as on-call engineers type it.
        "网关返回502怎么处理",
        "支付服务timeout了怎么办",
        "checkout的p99怎么突然变高了",
        "payment-service的error rate怎么这么高",
        "支付服务crash了怎么办",
        "网关返回５０２怎么处理",  # full-width digits, as a Chinese input method types them
        # "What is" with a symptom only "timing out" or "root cause" states: a diagnosis, not a how-to.
        "checkout-api started timing out when calling payment-gateway. What is the root cause?",
        "What is the root cause of the checkout incident?",
    ],
)
def test_it_routes_any_reported_symptom_to_diagnosis(message):
    assert route_intent(message) == Intent.DIAGNOSIS


@pytest.mark.parametrize(
    ("message", "language"),
    [("支付服务最近很慢", "zh"), ("payment-service 为什么慢", "zh"), ("payment-service is slow", "en"), ("", "en")],
)
def test_the_language_of_a_message_is_chinese_when_it_holds_han_characters(message, language):
    assert language_of(message) == language


def test_system_chat_answers_in_the_language_of_the_greeting():
    assert system_chat_answer("你好") == SYSTEM_CHAT_ANSWER_ZH
    assert system_chat_answer("hi") == SYSTEM_CHAT_ANSWER


@pytest.mark.parametrize("question", SHIPPED_QUESTIONS)
def test_it_diagnoses_every_shipped_pack_question(question):
    assert route_intent(question) == Intent.DIAGNOSIS


def test_it_has_shipped_questions_to_check():
    assert len(SHIPPED_QUESTIONS) >= 6
