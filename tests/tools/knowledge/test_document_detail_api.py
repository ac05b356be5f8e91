"""GET /api/documents/{id}: any signed-in user reads a document with its chunks; JSON 404s."""

from __future__ import annotations

import uuid

import pytest

from tests.tools.knowledge.conftest import DB_POOL_RUNBOOK

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(ingest, owner):
    return ingest(DB_POOL_RUNBOOK, filename="db-pool.md", uploaded_by=owner)


@pytest.mark.parametrize("user", ["owner", "other_user"])
def test_it_shows_the_document_with_its_chunks(client_for, document, request, user):
    response = client_for(request.getfixturevalue(user)).get(f"/api/documents/{document.id}")
    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["uploaded_by"], body["chunk_count"]) == (str(document.id), "owner", 2)
    chunks = list(document.chunks.order_by("ordinal"))
    assert body["chunks"] == [
        {"id": str(chunk.id), "ordinal": chunk.ordinal, "heading": chunk.heading, "text": chunk.text}
        for chunk in chunks
    ]
    assert body["chunks"][0]["heading"] == "Runbook: payment-service DB connection pool exhausted > Symptoms"


def test_it_refuses_anonymous_users(client_for, document):
    response = client_for(None).get(f"/api/documents/{document.id}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("document_id", [str(uuid.uuid4()), "not-a-uuid"])
def test_it_answers_404_in_json_for_an_unknown_id(client_for, owner, document, document_id):
    response = client_for(owner).get(f"/api/documents/{document_id}")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "no such document"}}
