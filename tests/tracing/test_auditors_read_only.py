"""Auditors read everything and write nothing (docs/audit.md): every write operation of the API — read from
the schema, so an endpoint added later is covered — and every model of the admin refuse them, by session
and by token, staff or not. Owners and superusers keep writing."""

from __future__ import annotations

import uuid

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from diagnosis.models import ChatSession, DiagnosisRun
from tests.tracing.factories import make_run, make_session
from tests.tracing.test_schema import generated_operations
from tools.knowledge.ingest import ingest_document
from tools.models import DocumentSource, KnowledgeDocument

pytestmark = pytest.mark.django_db
#: Writes no user's credentials reach: Alertmanager's intake takes its bearer token only, and answers a
#: signed-in user (auditor or not) 401 (tests/alerts/test_intake_api.py).
MACHINE_WRITES = {("/api/alerts/alertmanager", "post")}
WRITES = [
    (path, method)
    for path, method in generated_operations()
    if method not in {"get", "head", "options"} and (path, method) not in MACHINE_WRITES
]
ADMIN_MODELS = [model for model in apps.get_models() if admin.site.is_registered(model)]


@pytest.fixture
def rows(owner) -> dict[str, str]:
    """A run and a document of the owner: the ids a write operation's path may name."""
    run = make_run(make_session(owner))
    document = ingest_document(
        title_hint="", filename="pool.md", content="# Pool\n\nHikariPool-1 exhausted.\n", source=DocumentSource.UPLOAD
    )
    return {"session_id": str(run.session_id), "run_id": str(run.pk), "document_id": str(document.pk)}


def _counts() -> tuple[int, int, int]:
    return ChatSession.objects.count(), DiagnosisRun.objects.count(), KnowledgeDocument.objects.count()


def _client(user, by: str) -> APIClient:
    client = APIClient()
    if by == "token":
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    else:
        client.force_login(user)
    return client


def test_the_schema_has_write_operations_to_check():
    assert {
        ("/api/chat", "post"),
        ("/api/documents/upload", "post"),
        ("/api/documents/{document_id}", "delete"),
    } <= set(WRITES)


@pytest.mark.parametrize("by", ["session", "token"])
@pytest.mark.parametrize("who", ["auditor", "run_auditor"])
@pytest.mark.parametrize(("path", "method"), WRITES)
def test_it_refuses_every_write_to_an_auditor(request, rows, who, by, path, method):
    user = request.getfixturevalue(who)
    url = path.format_map({name: rows.get(name, str(uuid.uuid4())) for name in ("session_id", "run_id", "document_id")})
    before = _counts()

    response = getattr(_client(user, by), method)(url, {"message": "why is payment-service slow?"}, format="json")

    assert response.status_code == 403, response.content
    assert response.json()["error"] == {"code": "read_only", "message": "auditors have read-only access"}
    assert _counts() == before


def test_it_still_lets_an_auditor_read(auditor, rows):
    client = _client(auditor, "session")

    assert client.get("/api/documents").status_code == 200
    assert client.get(f"/api/documents/{rows['document_id']}").status_code == 200
    assert client.get(f"/api/diagnosis/{rows['session_id']}/trace?runId={rows['run_id']}").status_code == 200


def test_it_lets_a_superuser_write(rows):
    superuser = get_user_model().objects.create_superuser("root", password="root-pass-123")

    response = _client(superuser, "session").delete(f"/api/documents/{rows['document_id']}")

    assert response.status_code == 204


@pytest.mark.parametrize("model", ADMIN_MODELS, ids=lambda model: model._meta.label)
def test_the_admin_lets_an_auditor_change_nothing(client, auditor, model):
    request = RequestFactory().get("/admin/")
    request.user = auditor
    model_admin = admin.site.get_model_admin(model)
    add_url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/add/"
    client.force_login(auditor)

    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)
    assert client.post(add_url, {}).status_code == 403
