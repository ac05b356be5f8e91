"""The admin site: Django's, without its "view on site" redirect.

Django's admin answers ``admin/r/<content type>/<id>/`` for any staff member, whatever model permissions
they hold, to send them to an object's ``get_absolute_url``. No model here has one, but the route's
answers still differ for an object that exists and one that does not (and a malformed id was a 500): staff
who may not read sessions, runs, users or tokens could tell which ids exist. The route is dropped.
"""

from __future__ import annotations

from django.contrib.admin import AdminSite
from django.contrib.admin.apps import AdminConfig
from django.urls import URLPattern, URLResolver


class AuditAdminSite(AdminSite):
    def get_urls(self) -> list[URLResolver | URLPattern]:
        return [url for url in super().get_urls() if getattr(url, "name", None) != "view_on_site"]


class AuditAdminConfig(AdminConfig):
    default_site = "config.admin_site.AuditAdminSite"
