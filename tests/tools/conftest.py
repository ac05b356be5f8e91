"""Fixtures of the tool tests: a run to call tools for, and the tiny scenario pack loaded or not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from diagnosis.models import ChatSession, DiagnosisRun
from tools.harness import ToolHarness
from tools.scenarios.loader import LoadSummary, load_scenario

TINY_PACK = Path(__file__).resolve().parent / "fixtures" / "tiny_pack"
# The tiny pack's incident window.
WINDOW = {"start": "2024-05-01T10:00:00Z", "end": "2024-05-01T11:00:00Z"}


def make_run(username: str, query: str) -> DiagnosisRun:
    # No password: hashing one costs a third of a second, and these users never log in.
    user = get_user_model().objects.create(username=username)
    session = ChatSession.objects.create(owner=user)
    return DiagnosisRun.objects.create(session=session, query=query)


@pytest.fixture
def run(db) -> DiagnosisRun:
    return make_run("on-call", "why do checkouts time out?")


@pytest.fixture
def other_run(db) -> DiagnosisRun:
    return make_run("someone-else", "something else")


@pytest.fixture
def harness(run) -> ToolHarness:
    return ToolHarness(run.id)


@pytest.fixture
def business_sqlite(settings, tmp_path) -> Path:
    """Every test builds its business database in its own folder, never in the shared VAR_DIR."""
    settings.BUSINESS_SQLITE_PATH = tmp_path / "business.sqlite3"
    settings.BUSINESS_DATABASE_URL = ""
    return settings.BUSINESS_SQLITE_PATH


@pytest.fixture
def tiny_pack(tmp_path) -> Path:
    """A writable copy of the tiny pack, for tests that break one of its files."""
    copy = tmp_path / "pack"
    shutil.copytree(TINY_PACK, copy)
    return copy


@pytest.fixture
def loaded(db, business_sqlite) -> LoadSummary:
    return load_scenario(TINY_PACK)
