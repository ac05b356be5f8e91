"""GET /api/documents: the shared knowledge base, newest first, bounded pages, filters, constant queries."""

from __future__ import annotations

import pytest

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK
from tools.api import DocumentPagination
from tools.knowledge.ingest import prepare_documents, replace_scenario_documents

pytestmark = pytest.mark.django_db
URL = "/api/documents"


@pytest.fixture
def documents(ingest, owner, other_user):
    replace_scenario_documents("payment-db-pool", prepare_documents([("pool.md", DB_POOL_RUNBOOK)]))
    return {
        "owner": ingest(CACHE_RUNBOOK, filename="cache.md", uploaded_by=owner),
        "other": ingest("# Other's note\n\ntext\n", filename="note.md", uploaded_by=other_user),
    }


@pytest.mark.parametrize("user", ["owner", "other_user"])
def test_it_lists_every_document_to_every_signed_in_user(client_for, documents, request, user):
    response = client_for(request.getfixturevalue(user)).get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert [row["filename"] for row in body["results"]] == ["note.md", "cache.md", "pool.md"]
    assert body["results"][0]["uploaded_by"] == "other"
    assert body["results"][2]["uploaded_by"] is None
    assert "content" not in body["results"][0]


def test_it_refuses_anonymous_users(client_for, documents):
    response = client_for(None).get(URL)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"


def test_it_pages_with_limit_and_offset(client_for, owner, documents):
    body = client_for(owner).get(URL, {"limit": 1, "offset": 1}).json()
    assert body["count"] == 3
    assert [row["filename"] for row in body["results"]] == ["cache.md"]
    assert "offset=2" in body["next"] and "limit=1" in body["previous"]


def test_it_caps_the_page_size(client_for, owner, documents, monkeypatch):
    monkeypatch.setattr(DocumentPagination, "max_limit", 2)
    body = client_for(owner).get(URL, {"limit": 500}).json()
    assert (body["count"], len(body["results"])) == (3, 2)


def test_it_filters_by_source_and_scenario(client_for, owner, documents):
    client = client_for(owner)
    scenario = client.get(URL, {"source": "SCENARIO"}).json()["results"]
    assert [(row["filename"], row["scenario"]) for row in scenario] == [("pool.md", "payment-db-pool")]
    assert client.get(URL, {"scenario": "payment-db-pool"}).json()["count"] == 1
    assert client.get(URL, {"source": "UPLOAD"}).json()["count"] == 2


def test_it_refuses_an_unknown_source(client_for, owner, documents):
    response = client_for(owner).get(URL, {"source": "EMAIL"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert response.json()["error"]["message"].startswith("source: ")


def test_it_lists_in_a_constant_number_of_queries(client_for, owner, documents, ingest, django_assert_num_queries):
    client = client_for(owner)
    client.get(URL)  # the session and user lookups of the first request are cached afterwards
    for number in range(5):
        ingest(f"# Note {number}\n\ntext\n", uploaded_by=owner)
    with django_assert_num_queries(4):  # session, user, count, page with uploaders
        assert client.get(URL).json()["count"] == 8


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "abc"}, "limit"),
        ({"limit": "0"}, "limit"),
        ({"limit": "-1"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"offset": "-5"}, "offset"),
        ({"offset": "x"}, "offset"),
        ({"offset": "٣"}, "offset"),  # a digit to str.isdigit, not to a client reading the page
    ],
)
def test_it_refuses_a_page_it_was_not_asked_for(client_for, owner, documents, query, field):
    """DRF alone answers ``limit=abc`` with its default page: the client would read 50 rows as its own."""
    response = client_for(owner).get(URL, query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and error["message"].startswith(f"{field}: ")
