"""``manage.py create_demo_user``: the login ``make run`` prints, for a name the login form accepts."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.core.management import CommandError, call_command
from django.db import OperationalError

pytestmark = pytest.mark.django_db


def test_it_creates_a_login_that_signs_in_and_resets_it_on_a_second_call(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = StringIO()

    call_command("create_demo_user", "--username", "alice", "--password", "first-pass-1", stdout=out)
    call_command("create_demo_user", "--username", "alice", "--password", "second-pass-2", stdout=out)

    assert out.getvalue().splitlines()[-1] == "demo login: username=alice password=second-pass-2"
    assert authenticate(username="alice", password="second-pass-2") is not None
    assert get_user_model().objects.filter(username="alice").count() == 1


def test_it_reactivates_a_deactivated_user_of_that_name(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_user("demo", password="old-pass-1", is_active=False)

    call_command("create_demo_user", "--password", "demo-pass-4711", stdout=StringIO(), stderr=StringIO())

    assert authenticate(username="demo", password="demo-pass-4711") is not None  # the login it printed works


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("", "--username must be 1 to 150 characters"),
        ("x" * 151, "--username must be 1 to 150 characters"),
        ("bad name!/", "--username may hold letters, digits and @ . + - _ only"),
        ("cli", "--username 'cli' is the account the diagnose command runs as"),
        ("CLI", "--username 'cli' is the account the diagnose command runs as"),
        (
            "alertmanager",
            "--username 'alertmanager' is the account that owns the runs alerts start (ALERT_SERVICE_USERNAME)",
        ),
        ("ｃｌｉ", "--username 'cli' is the account the diagnose command runs as"),  # what the login form reads
        # MariaDB's collation compares names case-insensitively: this one would find the service account.
        (
            "AlertManager",
            "--username 'AlertManager' is the account that owns the runs alerts start (ALERT_SERVICE_USERNAME)",
        ),
    ],
)
def test_it_refuses_a_name_no_one_could_sign_in_with(username, message):
    with pytest.raises(CommandError) as raised:
        call_command("create_demo_user", "--username", username, stdout=StringIO())

    assert raised.value.returncode == 2
    assert str(raised.value) == message
    assert not get_user_model().objects.filter(is_superuser=True).exists()


def test_it_says_so_when_it_makes_an_existing_user_an_administrator():
    get_user_model().objects.create_user(username="bob", password="old-pass-1")
    err = StringIO()

    call_command("create_demo_user", "--username", "bob", "--password", "new-pass-2", stdout=StringIO(), stderr=err)

    assert err.getvalue().strip() == "note: the existing user 'bob' is now an administrator with this password"


@pytest.mark.parametrize(
    ("password", "reason"),
    [("1", "This password is too short."), ("password123", "This password is too common."), ("carol-admin", "similar")],
)
def test_a_weak_password_is_refused_before_anything_is_written(password, reason):
    """The login is an administrator's: the project's password validators apply, as createsuperuser's do."""
    with pytest.raises(CommandError) as raised:
        call_command("create_demo_user", "--username", "carol-admin", "--password", password, stdout=StringIO())

    assert raised.value.returncode == 2
    assert str(raised.value).startswith("--password: ") and reason in str(raised.value)
    assert not get_user_model().objects.filter(username="carol-admin").exists()


def test_an_existing_users_own_details_count_against_the_new_password():
    """Resetting a real user's password: their email and names are what a guessable password is built from."""
    get_user_model().objects.create_user(username="mvb", email="margaretha.vandenberg@example.com", password="x")

    with pytest.raises(CommandError) as raised:
        call_command("create_demo_user", "--username", "mvb", "--password", "Vandenberg!2026", stdout=StringIO())

    assert raised.value.returncode == 2 and "too similar to the email address" in str(raised.value)
    assert not get_user_model().objects.get(username="mvb").is_superuser


def test_a_password_that_is_no_text_is_refused_before_anything_is_written():
    # A byte the terminal's encoding could not decode reaches the command as a lone surrogate.
    with pytest.raises(CommandError) as raised:
        call_command("create_demo_user", "--username", "newguy", "--password", "a\udcffbcdefgh12345", stdout=StringIO())

    assert raised.value.returncode == 2 and "--password must be valid text" in str(raised.value)
    assert not get_user_model().objects.filter(username="newguy").exists()


def test_a_user_is_never_left_without_its_password(monkeypatch):
    def interrupted(self, raw_password):
        raise KeyboardInterrupt

    monkeypatch.setattr(get_user_model(), "set_password", interrupted)

    with pytest.raises(KeyboardInterrupt):
        call_command("create_demo_user", "--username", "dana", "--password", "new-pass-2", stdout=StringIO())

    assert not get_user_model().objects.filter(username="dana").exists()


def test_a_name_in_compatibility_characters_is_stored_as_the_login_form_reads_it(settings):
    """The login form reads what is typed as NFKC: stored as typed, "ｆｕｌｌ" printed a login that could not sign in."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = StringIO()

    call_command("create_demo_user", "--username", "ｆｕｌｌ", "--password", "Xyzzy-12345-q", stdout=out)

    assert out.getvalue().strip() == "demo login: username=full password=Xyzzy-12345-q"
    form = AuthenticationForm(data={"username": "ｆｕｌｌ", "password": "Xyzzy-12345-q"})
    assert form.is_valid(), form.errors


def test_a_database_that_fails_is_a_message_and_nothing_written(monkeypatch):
    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(get_user_model(), "save", locked)

    with pytest.raises(CommandError) as raised:
        call_command("create_demo_user", "--password", "demo-pass-4711", stdout=StringIO())

    assert str(raised.value) == "the database failed: database is locked; no user was created or changed"
    assert raised.value.returncode == 1
    assert not get_user_model().objects.filter(username="demo").exists()
