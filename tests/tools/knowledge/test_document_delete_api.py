"""DELETE /api/documents/{id}: the uploader or staff only (auditors never); gone from search at once."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from tests.tools.knowledge.conftest import DB_POOL_RUNBOOK
from tools.knowledge.ingest import prepare_documents, replace_scenario_documents
from tools.knowledge.search import search_knowledge
from tools.models import KnowledgeChunk, KnowledgeDocument

pytestmark = pytest.mark.django_db
QUERY = "HikariPool-1 connection not available"


@pytest.fixture
def document(ingest, owner):
    return ingest(DB_POOL_RUNBOOK, uploaded_by=owner)


def _searchable() -> bool:
    return search_knowledge(QUERY, top_k=3)["evidence_status"] == "ok"


def test_it_lets_the_uploader_delete_and_forgets_it_at_once(client_for, owner, document):
    assert _searchable()
    response = client_for(owner).delete(f"/api/documents/{document.id}")
    assert response.status_code == 204
    assert not KnowledgeDocument.objects.exists()
    assert not KnowledgeChunk.objects.exists()
    assert not _searchable()


def test_it_forbids_another_user(client_for, other_user, document):
    response = client_for(other_user).delete(f"/api/documents/{document.id}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert KnowledgeDocument.objects.filter(pk=document.pk).exists()
    assert _searchable()


def test_it_refuses_in_the_readers_language(client_for, other_user, document):
    response = client_for(other_user).delete(f"/api/documents/{document.id}", HTTP_ACCEPT_LANGUAGE="zh-CN")

    assert response.status_code == 403
    assert response.json()["error"]["message"] == "只有上传者或管理员可以删除此文档"


def test_it_lets_staff_delete_any_document(client_for, staff, document):
    assert client_for(staff).delete(f"/api/documents/{document.id}").status_code == 204
    assert not _searchable()


def test_it_forbids_an_auditor_though_staff(client_for, auditor, document):
    # docs/audit.md: the auditors group writes nothing; staff status (for the admin) does not change that.
    response = client_for(auditor).delete(f"/api/documents/{document.id}")

    assert response.status_code == 403
    assert response.json()["error"] == {"code": "read_only", "message": "auditors have read-only access"}
    assert KnowledgeDocument.objects.filter(pk=document.pk).exists()
    assert _searchable()


def test_it_lets_a_superuser_delete(client_for, document):
    superuser = get_user_model().objects.create_superuser("root", password="root-pass-123")

    assert client_for(superuser).delete(f"/api/documents/{document.id}").status_code == 204


def test_it_leaves_scenario_documents_to_staff(client_for, owner, staff):
    replace_scenario_documents("payment-db-pool", prepare_documents([("pool.md", DB_POOL_RUNBOOK)]))
    scenario_document = KnowledgeDocument.objects.get()
    assert client_for(owner).delete(f"/api/documents/{scenario_document.id}").status_code == 403
    assert client_for(staff).delete(f"/api/documents/{scenario_document.id}").status_code == 204


def test_it_refuses_anonymous_users(client_for, document):
    response = client_for(None).delete(f"/api/documents/{document.id}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"
    assert _searchable()


@pytest.mark.parametrize("document_id", [str(uuid.uuid4()), "42"])
def test_it_answers_404_in_json_for_an_unknown_id(client_for, owner, document, document_id):
    response = client_for(owner).delete(f"/api/documents/{document_id}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_of_two_deletes_of_one_document_only_the_one_that_deleted_it_answers_204(
    client_for, owner, document, monkeypatch
):
    """Both read it before either deleted it: the second finds nothing to delete, and says so (404)."""
    from tools import api

    real_get = api.document_get

    def read_then_deleted(document_id, **kwargs):
        read = real_get(document_id, **kwargs)
        KnowledgeDocument.objects.filter(pk=document_id).delete()  # the other request, in between
        return read

    monkeypatch.setattr(api, "document_get", read_then_deleted)

    response = client_for(owner).delete(f"/api/documents/{document.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
