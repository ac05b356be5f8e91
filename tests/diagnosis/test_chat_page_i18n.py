"""The interface in English and Chinese: the language comes from Accept-Language, or from the header's
switch (Django's set_language), and reaches the templates, the JavaScript catalogue and API messages."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.utils import timezone

from diagnosis.models import ChatSession, DiagnosisRun, RunStatus

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9,en;q=0.8"}


def language(html: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', html)
    assert match
    return match.group(1)


def test_it_speaks_chinese_to_a_chinese_browser(client, owner):
    session = ChatSession.objects.create(owner=owner, title="t")
    DiagnosisRun.objects.create(session=session, query="why?", status=RunStatus.SUCCESS, finished_at=timezone.now())
    client.force_login(owner)

    body = client.get(f"/?session={session.pk}", **ZH).content.decode()

    assert language(body) == "zh-hans"
    for text in ("你的会话", "+ 新对话", "发送", "退出登录", "成功", "轨迹"):
        assert text in body, text
    assert 'placeholder="问问服务为什么出故障，例如：支付服务最近很慢，帮我看看是什么原因"' in body
    assert "Your sessions" not in body


def test_it_speaks_english_by_default(client, owner):
    client.force_login(owner)

    body = client.get("/").content.decode()

    assert language(body) == "en"
    assert "Your sessions" in body
    assert (
        'placeholder="Ask why a service is failing, e.g. payment-service p99 latency tripled since 10:05, why?"' in body
    )
    assert "Describe a symptom, e.g. <em>payment-service p99 latency tripled since 10:05, why?</em>" in body


def test_the_login_page_is_translated_too(client):
    body = client.get("/accounts/login/", **ZH).content.decode()

    assert "用户名" in body and "密码" in body and "登录" in body


def test_the_header_switch_keeps_the_chosen_language_over_the_browsers(client, owner):
    client.force_login(owner)

    body = client.get("/", **ZH).content.decode()
    assert 'action="/i18n/setlang/"' in body and 'value="zh-hans" selected' in body

    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"}, **ZH)

    assert response.status_code == 302 and response["Location"] == "/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert language(client.get("/", **ZH).content.decode()) == "en"


def test_an_unknown_language_is_not_switched_to(client, owner):
    client.force_login(owner)

    response = client.post("/i18n/setlang/", {"language": "xx", "next": "/"})

    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert language(client.get("/").content.decode()) == "en"


def catalogue(client, **headers) -> dict[str, object]:
    """The translations /jsi18n/ hands the page's gettext, keyed as the catalogue keys them (none: {})."""
    script = client.get("/jsi18n/", **headers).content.decode()
    match = re.search(r"const newcatalog = (\{.*?\});", script, re.S)
    return json.loads(match.group(1)) if match else {}


def test_the_javascript_catalogue_carries_the_pages_strings(client):
    chinese = catalogue(client, **ZH)

    assert chinese["Cancel"] == "取消"
    assert chinese["Evidence (%s verified excerpt)"] == ["证据（%s 条已验证摘录）"]
    assert chinese["run outcome\x04SUCCESS"] == "成功"
    assert "Cancel" not in catalogue(client)  # English needs no translation


def test_the_chat_apis_messages_follow_the_language(client, owner):
    client.force_login(owner)

    response = client.post("/api/chat", {"message": "  "}, content_type="application/json", **ZH)

    assert response.status_code == 400
    assert response.json()["error"] == {"code": "empty_message", "message": "消息不能为空"}
