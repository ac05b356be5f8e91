"""The pages carry a Content-Security-Policy that allows no inline script; the admin keeps Django's own."""

from __future__ import annotations

import re

import pytest

from config.content_security import POLICY

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/knowledge/"])
def test_the_pages_allow_scripts_and_styles_from_this_site_only(client, owner, path):
    client.force_login(owner)

    response = client.get(path)

    assert response.status_code == 200
    assert response["Content-Security-Policy"] == POLICY
    assert "script-src 'self';" in POLICY and "'unsafe-inline'" not in POLICY
    # What the policy forbids is not in the page: no inline script (only JSON data blocks), no style attribute.
    html = response.content.decode()
    inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", html)
    assert inline == []
    assert " style=" not in html


def test_the_login_page_has_it_too(client):
    assert client.get("/accounts/login/")["Content-Security-Policy"] == POLICY


def test_the_admin_and_error_pages_keep_djangos_pages_as_they_are(admin_client, settings):
    assert "Content-Security-Policy" not in admin_client.get("/admin/")
    settings.DEBUG = True  # Django's technical 404 page, with its inline style
    assert "Content-Security-Policy" not in admin_client.get("/no-such-page/")
