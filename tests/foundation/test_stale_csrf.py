"""A form posted with the CSRF token of a page rendered before the user signed in again (in another tab)
is refused with the site's own page, in the reader's language, which says what happened; not Django's
bare 403 that asks for DEBUG=True. (In the browser the page's forms send the cookie's current token and are
not refused at all: tests/integration/test_chat_page_ui_browser.py.)"""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def form_token(html: str, action: str) -> str:
    form = re.search(rf'<form[^>]*action="{re.escape(action)}".*?</form>', html, re.S)
    assert form is not None, action
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(0)).group(1)


@pytest.mark.parametrize(("language", "said"), [("en", "This page is out of date"), ("zh-hans", "此页面已过期")])
def test_a_stale_form_gets_the_sites_page_saying_to_reload(owner, language, said):
    tab = Client(enforce_csrf_checks=True)
    tab.force_login(owner)
    stale = form_token(tab.get("/").content.decode(), "/accounts/logout/")
    # Signed out and in again in another tab of the same browser: signing in rotates the token.
    tab.post("/accounts/logout/", {"csrfmiddlewaretoken": stale})
    login = form_token(tab.get("/accounts/login/").content.decode(), "/accounts/login/")
    tab.post("/accounts/login/", {"username": "owner", "password": "owner-pass-123", "csrfmiddlewaretoken": login})
    assert tab.get("/").status_code == 200

    response = tab.post("/accounts/logout/", {"csrfmiddlewaretoken": stale}, HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 403
    page = response.content.decode()
    assert said in page and "DEBUG" not in page and 'class="topbar"' in page
