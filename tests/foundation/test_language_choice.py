"""The reader's language: the switch's choice is kept past the browser session, and the JavaScript catalogue
in that language is never shared with a reader of another."""

from __future__ import annotations

import pytest

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
