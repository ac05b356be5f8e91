"""The reader's language: the switch's choice is kept past the browser session, and the JavaScript catalogue
in that language is never shared with a reader of another."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.views.defaults import server_error

pytestmark = pytest.mark.django_db


def test_the_chosen_language_is_kept_for_a_year(client, settings):
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    cookie = response.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "zh-hans"
    assert int(cookie["max-age"]) == 365 * 24 * 3600


def test_the_javascript_catalogue_varies_with_the_cookie_and_is_private(client):
    response = client.get("/jsi18n/")

    assert response.status_code == 200
    assert "Cookie" in response["Vary"]
    assert "private" in response["Cache-Control"]


def test_a_missing_page_is_in_the_readers_language(client):
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="zh-CN")

    assert response.status_code == 404
    page = response.content.decode()
    assert '<html lang="zh-hans">' in page and "页面不存在" in page and "返回对话" in page


def test_a_server_error_page_is_in_the_readers_language(rf):
    with translation.override("zh-hans"):
        response = server_error(rf.get("/"))

    assert response.status_code == 500
    page = response.content.decode()
    assert '<html lang="zh-hans">' in page and "服务器错误" in page
