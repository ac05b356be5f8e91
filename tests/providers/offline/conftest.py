"""Fixtures of the offline provider tests: the models, a run with a harness, and packs loaded for real."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.providers.base import ProviderConfig, RoleModels, no_invocations
from diagnosis.providers.offline import build_models
from tools.catalog import environment
from tools.harness import ToolHarness
from tools.scenarios.loader import load_scenario

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BLOB_STORE_PACK = FIXTURES / "blob-store-full"


@pytest.fixture
def models() -> RoleModels:
    return build_models(ProviderConfig(name="offline"), resolve_invocation=no_invocations)


@pytest.fixture
def new_harness(owner) -> Callable[[str], ToolHarness]:
    """A fresh run (and its harness) per diagnosis, as the chat creates one per question."""

    def make(question: str) -> ToolHarness:
        session = ChatSession.objects.create(owner=owner, title=question[:40])
        return ToolHarness(DiagnosisRun.objects.create(session=session, query=question).id)

    return make


@pytest.fixture
def load_pack(db, settings, tmp_path) -> Callable[[Path], dict[str, Any]]:
    """Load a pack folder for real and return the environment the nodes would show the models.

    Each test builds its business database in its own folder, never in the shared VAR_DIR.
    """
    settings.BUSINESS_SQLITE_PATH = tmp_path / "business.sqlite3"
    settings.BUSINESS_DATABASE_URL = ""

    def load(path: Path) -> dict[str, Any]:
        load_scenario(path)
        return environment()

    return load
