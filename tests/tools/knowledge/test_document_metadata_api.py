"""Seed 003's document metadata: lists by status and by fault source, search, and archiving (PATCH), which
takes a document out of search at once; the uploader or staff change a document, auditors nothing."""

from __future__ import annotations

import pytest

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK
from tools.knowledge.ingest import update_document
from tools.knowledge.search import search_knowledge
from tools.models import DocumentStatus, KnowledgeDocument, KnowledgeIndexState

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(ingest, owner, other_user):
    pool = ingest(DB_POOL_RUNBOOK, filename="db-pool.md", uploaded_by=owner)
    cache = ingest(CACHE_RUNBOOK, filename="cache.md", uploaded_by=other_user)
    update_document(document=pool, fault_source="database", category="runbook")
    update_document(document=cache, fault_source="cache", status=DocumentStatus.ARCHIVED)
    return {"pool": pool, "cache": cache}


def titles(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [document["title"] for document in response.json()["results"]]


def test_it_lists_documents_by_status(client_for, owner, labelled):
    client = client_for(owner)

    assert titles(client.get("/api/documents/status/ACTIVE")) == [labelled["pool"].title]
    assert titles(client.get("/api/documents/status/ARCHIVED")) == [labelled["cache"].title]


@pytest.mark.parametrize("status", ["archived", "DELETED", "ACTIVE "])
def test_it_refuses_an_unknown_status(client_for, owner, labelled, status):
    response = client_for(owner).get(f"/api/documents/status/{status}")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and error["message"].startswith("status:")


def test_it_lists_documents_by_fault_source(client_for, owner, labelled):
    client = client_for(owner)

    assert titles(client.get("/api/documents/faultSource/database")) == [labelled["pool"].title]
    assert titles(client.get("/api/documents/faultSource/network")) == []


def test_it_refuses_a_fault_source_too_long(client_for, owner):
    response = client_for(owner).get("/api/documents/faultSource/" + "x" * 101)

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("faultSource:")


def test_the_list_searches_titles_and_labels_and_filters_by_status(client_for, owner, labelled):
    client = client_for(owner)

    assert titles(client.get("/api/documents", {"q": "REDIS"})) == [labelled["cache"].title]
    assert titles(client.get("/api/documents", {"q": "datab"})) == [labelled["pool"].title]
    assert titles(client.get("/api/documents", {"status": "ACTIVE"})) == [labelled["pool"].title]
    assert client.get("/api/documents", {"status": "GONE"}).status_code == 400


def test_an_archived_document_is_not_searched_and_a_restored_one_is(client_for, other_user, labelled):
    assert search_knowledge("evicted_keys cache hit ratio", top_k=3)["evidence_status"] == "no_evidence"

    response = client_for(other_user).patch(
        f"/api/documents/{labelled['cache'].id}", {"status": "ACTIVE"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["status"] == "ACTIVE"
    found = search_knowledge("evicted_keys cache hit ratio", top_k=3)
    assert found["chunks"][0]["document_id"] == str(labelled["cache"].id)


def test_the_uploader_relabels_and_archives(client_for, owner, labelled):
    response = client_for(owner).patch(
        f"/api/documents/{labelled['pool'].id}",
        {"status": "ARCHIVED", "category": "postmortem", "fault_source": ""},
        format="json",
    )

    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["category"], body["fault_source"]) == ("ARCHIVED", "postmortem", "")
    assert search_knowledge("HikariPool-1 connection not available", top_k=3)["evidence_status"] == "no_evidence"


def test_staff_may_change_anyones_document(client_for, staff, labelled):
    response = client_for(staff).patch(f"/api/documents/{labelled['pool'].id}", {"status": "ARCHIVED"}, format="json")

    assert response.status_code == 200


def test_another_user_may_not_change_a_document(client_for, other_user, labelled):
    response = client_for(other_user).patch(
        f"/api/documents/{labelled['pool'].id}", {"status": "ARCHIVED"}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    labelled["pool"].refresh_from_db()
    assert labelled["pool"].status == DocumentStatus.ACTIVE


def test_auditors_change_nothing(client_for, auditor, labelled):
    response = client_for(auditor).patch(f"/api/documents/{labelled['pool'].id}", {"status": "ARCHIVED"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "read_only"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"status": "DELETED"}, "status"),
        ({"category": "c" * 51}, "category"),
        ({"fault_source": 7}, "fault_source"),
        ({}, None),
    ],
)
def test_it_refuses_a_bad_change(client_for, owner, labelled, body, field):
    response = client_for(owner).patch(f"/api/documents/{labelled['pool'].id}", body, format="json")

    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith(f"{field}:") if field else "at least one" in message
    labelled["pool"].refresh_from_db()
    assert (labelled["pool"].status, labelled["pool"].category) == (DocumentStatus.ACTIVE, "runbook")


def test_an_unknown_document_is_a_404(client_for, owner):
    response = client_for(owner).patch("/api/documents/not-a-uuid", {"status": "ARCHIVED"}, format="json")

    assert response.status_code == 404


def test_a_restore_read_before_another_requests_archive_still_restores_search(labelled):
    """Request B read the document ACTIVE; request A archived it (and a search rebuilt the index); B then
    writes ACTIVE with a new label: search must take the document back, whatever B read."""
    pool = labelled["pool"]
    stale = KnowledgeDocument.objects.get(pk=pool.pk)  # B's read
    update_document(document=KnowledgeDocument.objects.get(pk=pool.pk), status=DocumentStatus.ARCHIVED)  # A
    assert search_knowledge("HikariPool-1 connection not available", top_k=3)["evidence_status"] == "no_evidence"

    update_document(document=stale, status=DocumentStatus.ACTIVE, category="postmortem")

    found = search_knowledge("HikariPool-1 connection not available", top_k=3)
    assert found["chunks"][0]["document_id"] == str(pool.id)


def test_a_change_to_a_document_deleted_meanwhile_is_a_json_404(client_for, owner, labelled, monkeypatch):
    from tools import api

    real_get = api.document_get

    def read_then_deleted(document_id, **kwargs):
        document = real_get(document_id, **kwargs)
        KnowledgeDocument.objects.filter(pk=document_id).delete()  # another request, in between
        return document

    monkeypatch.setattr(api, "document_get", read_then_deleted)

    response = client_for(owner).patch(f"/api/documents/{labelled['pool'].id}", {"status": "ARCHIVED"}, format="json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_relabel_read_before_another_requests_archive_answers_the_rows_status(labelled):
    """B read the document ACTIVE; A archived it; B changes only its category: B's answer says ARCHIVED, and
    search (which A already changed) is not rebuilt again for nothing."""
    pool = labelled["pool"]
    stale = KnowledgeDocument.objects.get(pk=pool.pk)
    update_document(document=KnowledgeDocument.objects.get(pk=pool.pk), status=DocumentStatus.ARCHIVED)
    revision_before = KnowledgeIndexState.objects.get().revision

    changed = update_document(document=stale, category="postmortem")

    assert (changed.status, changed.category) == (DocumentStatus.ARCHIVED, "postmortem")
    assert KnowledgeIndexState.objects.get().revision == revision_before
