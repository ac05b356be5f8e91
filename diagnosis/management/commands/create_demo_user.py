"""Create (or reset) the demo login that ``make run`` prints."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction

from config.commands import StderrMayFail, database_failures, require_migrated
from config.text import is_unicode_text
from diagnosis.management.commands.diagnose import CLI_USERNAME


class Command(StderrMayFail):
    help = "Create or reset the demo user and print its login."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument(
            "--password",
            default="",
            help="Default: a new random password each time. Checked by AUTH_PASSWORD_VALIDATORS.",
        )

    def handle(self, *args, username: str, password: str, **options) -> None:
        # As the login form reads what is typed (NFKC): stored otherwise, "ｆｕｌｌ" could never sign in, and
        # "ｃｌｉ" would pass for another name than the diagnose command's account.
        username = get_user_model().normalize_username(username)
        _check_username(username)
        require_migrated()
        if password:
            if not is_unicode_text(password):
                # A byte the terminal's encoding could not decode: it would be a lone surrogate, which cannot be
                # hashed (nor typed into the login form).
                raise CommandError("--password must be valid text in the terminal's encoding", returncode=2)
            _check_password(password, username)
        password = password or secrets.token_urlsafe(9)
        # One transaction: a user is never left created without its password (an interrupt between the two).
        with database_failures("no user was created or changed"), transaction.atomic():
            user, created = get_user_model().objects.select_for_update().get_or_create(username=username)
            promoted = not created and not user.is_superuser
            # The demo user is an administrator so that the admin's audit pages can be opened as well.
            user.is_active = True  # an existing, deactivated "demo" would print a login that cannot sign in
            user.is_staff = True
            user.is_superuser = True
            user.set_password(password)
            user.save()
        if promoted:
            self.stderr.write(f"note: the existing user {username!r} is now an administrator with this password")
        self.stdout.write(f"demo login: username={username} password={password}")


def _check_username(username: str) -> None:
    """A name the login form accepts, and not one of the service accounts that must never sign in: the one
    ``diagnose`` runs its questions as, the one that owns the runs alerts start."""
    longest = get_user_model()._meta.get_field("username").max_length or 150
    if not username or len(username) > longest:
        raise CommandError(f"--username must be 1 to {longest} characters", returncode=2)
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise CommandError("--username may hold letters, digits and @ . + - _ only", returncode=2) from None
    # Compared as MariaDB's collation compares them: ``Alertmanager`` would find the service account there.
    if username.casefold() == CLI_USERNAME.casefold():
        raise CommandError(f"--username {CLI_USERNAME!r} is the account the diagnose command runs as", returncode=2)
    if username.casefold() == settings.ALERT_SERVICE_USERNAME.casefold():
        raise CommandError(
            f"--username {username!r} is the account that owns the runs alerts start (ALERT_SERVICE_USERNAME)",
            returncode=2,
        )


def _check_password(password: str, username: str) -> None:
    """The project's password validators, as ``createsuperuser`` and the password forms apply them: the demo
    login is an administrator, and the same command resets a real user's password."""
    try:
        user_model = get_user_model()
        # The user whose password it would set (an existing one's names and email count), unsaved if new.
        validate_password(
            password, user_model.objects.filter(username=username).first() or user_model(username=username)
        )
    except ValidationError as error:
        raise CommandError(f"--password: {' '.join(error.messages)}", returncode=2) from None
