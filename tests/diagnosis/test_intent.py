"""The intent router's rules: greetings and help, how-to questions, and everything that reports a symptom."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diagnosis.intent import route_intent
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
        "hi, payment-service is down",
        "checkout",
    ],
)
def test_it_routes_any_reported_symptom_to_diagnosis(message):
    assert route_intent(message) == Intent.DIAGNOSIS


@pytest.mark.parametrize("question", SHIPPED_QUESTIONS)
def test_it_diagnoses_every_shipped_pack_question(question):
    assert route_intent(question) == Intent.DIAGNOSIS


def test_it_has_shipped_questions_to_check():
    assert len(SHIPPED_QUESTIONS) >= 6
