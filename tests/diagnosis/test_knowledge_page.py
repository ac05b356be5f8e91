"""The knowledge page renders the shared documents with search, status and uploader; upload and the
archive/delete buttons appear only where the signed-in user may use them (never for auditors)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import make_staff
from tests.tools.knowledge.conftest import CACHE_RUNBOOK, DB_POOL_RUNBOOK, ORACLE_RUNBOOK
from tools.knowledge.ingest import ingest_document, update_document
from tools.models import DocumentSource, DocumentStatus

pytestmark = pytest.mark.django_db
PAGE = "/knowledge/"


@pytest.fixture
def documents(owner, other_user):
    def add(content: str, filename: str, user, **labels):
        return ingest_document(
            title_hint="", filename=filename, content=content, source=DocumentSource.UPLOAD, uploaded_by=user, **labels
        )

    mine = add(DB_POOL_RUNBOOK, "db-pool.md", owner, category="runbook", fault_source="database")
    theirs = add(CACHE_RUNBOOK, "cache.md", other_user, fault_source="cache")
    update_document(document=theirs, status=DocumentStatus.ARCHIVED)
    pack = ingest_document(
        title_hint="", filename="oracle.md", content=ORACLE_RUNBOOK, source=DocumentSource.SCENARIO, scenario="demo"
    )
    return {"mine": mine, "theirs": theirs, "pack": pack}


def row(page: str, document) -> str:
    start = page.index(f'<tr data-document="{document.pk}">')
    return page[start : page.index("</tr>", start)]


def test_it_lists_every_document_with_its_labels_status_and_uploader(client, owner, documents):
    client.force_login(owner)

    page = client.get(PAGE).content.decode()

    assert "database" in row(page, documents["mine"]) and "runbook" in row(page, documents["mine"])
    assert ">Active<" in row(page, documents["mine"]) and ">owner<" in row(page, documents["mine"])
    assert ">Archived<" in row(page, documents["theirs"]) and ">other<" in row(page, documents["theirs"])
    assert "scenario pack demo" in row(page, documents["pack"])
    assert 'id="upload-form"' in page and "multiple" in page and "js/knowledge.js" in page


def test_it_offers_archive_and_delete_only_on_the_users_own_documents(client, owner, documents):
    client.force_login(owner)

    page = client.get(PAGE).content.decode()

    assert 'value="ARCHIVED">Archive<' in row(page, documents["mine"]) and "doc-delete" in row(page, documents["mine"])
    assert "<button" not in row(page, documents["theirs"]) and "<button" not in row(page, documents["pack"])


def test_staff_may_restore_anyones_document(client, documents):
    client.force_login(make_staff("staff"))

    page = client.get(PAGE).content.decode()

    assert 'value="ACTIVE">Restore<' in row(page, documents["theirs"])


def test_auditors_read_the_list_and_get_no_upload_or_buttons(client, auditor, documents):
    client.force_login(auditor)

    page = client.get(PAGE).content.decode()

    assert all(f'data-document="{document.pk}"' in page for document in documents.values())
    assert 'id="upload-form"' not in page
    assert '<button type="button"' not in page


def test_it_searches_and_filters_by_status(client, owner, documents):
    client.force_login(owner)

    found = client.get(PAGE, {"q": "redis"}).content.decode()
    archived = client.get(PAGE, {"status": "ARCHIVED"}).content.decode()
    nothing = client.get(PAGE, {"q": "kafka"}).content.decode()

    assert f'data-document="{documents["theirs"].pk}"' in found
    assert f'data-document="{documents["mine"].pk}"' not in found
    assert [
        f'data-document="{documents["theirs"].pk}"' in archived,
        f'data-document="{documents["mine"].pk}"' in archived,
    ] == [True, False]
    assert "No documents match." in nothing


def test_a_bad_status_filter_is_shown_as_an_error_and_the_search_still_applies(client, owner, documents):
    """The page said nothing and dropped every filter, the good ones too."""
    client.force_login(owner)

    page = client.get(PAGE, {"q": "redis", "status": "GONE"}).content.decode()

    assert f'data-document="{documents["theirs"].pk}"' in page
    assert f'data-document="{documents["mine"].pk}"' not in page
    assert '<p class="error" role="alert">Status: Select a valid choice.' in page


def test_anonymous_users_are_sent_to_sign_in(client):
    response = client.get(PAGE)

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_page_costs_the_same_queries_for_3_and_13_documents(client, owner, documents, django_assert_num_queries):
    client.force_login(owner)
    client.get(PAGE)
    with CaptureQueriesContext(connection) as few:
        client.get(PAGE)
    for number in range(10):
        ingest_document(
            title_hint="",
            filename=f"{number}.md",
            content=CACHE_RUNBOOK,
            source=DocumentSource.UPLOAD,
            uploaded_by=owner,
        )

    with django_assert_num_queries(len(few)):
        client.get(PAGE)


def test_the_header_links_to_the_page(client, owner):
    client.force_login(owner)

    assert 'href="/knowledge/"' in client.get("/").content.decode()


def test_it_pages_the_list_keeping_the_search(client, owner, documents, monkeypatch):
    monkeypatch.setattr("diagnosis.knowledge_page.DOCUMENTS_PER_PAGE", 1)
    client.force_login(owner)

    first = client.get(PAGE, {"q": "runbook"}).content.decode()
    second = client.get(PAGE, {"q": "runbook", "page": 2}).content.decode()

    assert "Page 1 of 2" in first and 'href="?q=runbook&amp;page=2"' in first
    assert "Page 2 of 2" in second and 'href="?q=runbook&amp;page=1"' in second
    assert (f'data-document="{documents["theirs"].pk}"' in first) != (
        f'data-document="{documents["theirs"].pk}"' in second
    )
