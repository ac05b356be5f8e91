"""Create (or reset) the demo login that ``make run`` prints."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create or reset the demo user and print its login."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="", help="Default: a new random password each time.")

    def handle(self, *args, username: str, password: str, **options) -> None:
        password = password or secrets.token_urlsafe(9)
        user, _ = get_user_model().objects.get_or_create(username=username)
        # The demo user is an administrator so that the admin's audit pages can be opened as well.
        user.is_staff = True
        user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(f"demo login: username={username} password={password}")
