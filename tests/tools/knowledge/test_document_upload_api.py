"""POST /api/documents/upload: indexed at once for any signed-in user; bad files refused, nothing written."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.tools.knowledge.conftest import CHINESE_RUNBOOK, DB_POOL_RUNBOOK, markdown_file
from tools.knowledge import revision
from tools.knowledge.search import search_knowledge
from tools.models import KnowledgeDocument

pytestmark = pytest.mark.django_db
URL = "/api/documents/upload"


def _upload(client: APIClient, file, **fields):
    return client.post(URL, {"file": file, **fields}, format="multipart")


def test_it_stores_and_indexes_an_upload_at_once(client_for, owner):
    response = _upload(client_for(owner), markdown_file(DB_POOL_RUNBOOK, "db-pool.md"))
    assert response.status_code == 201
    body = response.json()
    document = KnowledgeDocument.objects.get()
    assert response["Location"] == f"/api/documents/{document.id}"
    assert body == {
        "id": str(document.id),
        "title": "Runbook: payment-service DB connection pool exhausted",
        "filename": "db-pool.md",
        "source": "UPLOAD",
        "scenario": "",
        "category": "",
        "fault_source": "",
        "status": "ACTIVE",
        "size_bytes": len(DB_POOL_RUNBOOK.encode()),
        "chunk_count": 2,
        "content_sha256": document.content_sha256,
        "uploaded_by": "owner",
        "created_at": body["created_at"],
    }
    found = search_knowledge("HikariPool-1 connection not available", top_k=3)
    assert found["chunks"][0]["document_id"] == str(document.id)


def test_it_lets_another_user_upload_as_themselves(client_for, owner, other_user):
    response = _upload(client_for(other_user), markdown_file(CHINESE_RUNBOOK, "mq.markdown"))
    assert response.status_code == 201
    assert response.json()["uploaded_by"] == "other"
    assert KnowledgeDocument.objects.get().uploaded_by == other_user


def test_it_accepts_a_token(owner):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    assert _upload(client, markdown_file(DB_POOL_RUNBOOK)).status_code == 201


def test_it_refuses_anonymous_users(client_for):
    response = _upload(client_for(None), markdown_file(DB_POOL_RUNBOOK))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_authenticated"
    assert not KnowledgeDocument.objects.exists()


def test_a_wrong_token_is_refused_as_such(owner):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = _upload(client, markdown_file(DB_POOL_RUNBOOK))
    assert (response.status_code, response.json()["error"]["code"]) == (403, "authentication_failed")


def test_a_long_file_name_is_cut_keeping_its_extension(client_for, owner):
    response = _upload(client_for(owner), markdown_file(DB_POOL_RUNBOOK, "r" * 400 + ".md"))
    assert response.status_code == 201
    stored = KnowledgeDocument.objects.get().filename
    assert len(stored) == 255 and stored.endswith("r.md")


def test_it_titles_a_text_file_by_the_given_title(client_for, owner):
    response = _upload(client_for(owner), markdown_file("disk usage above 90%", "notes.txt"), title="Disk notes")
    assert (response.status_code, response.json()["title"]) == (201, "Disk notes")


def test_it_titles_a_text_file_by_its_name_when_the_title_is_blank(client_for, owner):
    response = _upload(client_for(owner), markdown_file("disk usage above 90%", "disk-notes.txt"), title="")
    assert (response.status_code, response.json()["title"]) == (201, "disk-notes")


def test_it_drops_a_utf8_byte_order_mark(client_for, owner):
    response = _upload(client_for(owner), markdown_file(b"\xef\xbb\xbf# BOM title\n\ntext\n"))
    assert (response.status_code, response.json()["title"]) == (201, "BOM title")


BAD_FILES = [
    ("empty.md", b"", 400, "empty_file"),
    ("blank.md", b" \n\t\n", 400, "empty_file"),
    ("image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 400, "binary_file"),
    ("control.md", b"# Title\n\nbell \x07 here\n", 400, "binary_file"),
    ("latin1.md", "# Café\n\ncrème brûlée\n".encode("latin-1"), 400, "not_utf8"),
    # Windows Notepad's "Unicode": text with NULs, in an encoding the knowledge base does not read.
    ("utf16.md", "# 标题\n\n内容 text\n".encode("utf-16"), 400, "not_utf8"),
    ("utf16be.md", "\ufeff# 标题\n\n内容\n".encode("utf-16-be"), 400, "not_utf8"),
    ("runbook.pdf", b"%PDF-1.7 text", 415, "unsupported_type"),
    ("runbook", b"# No extension\n\ntext\n", 415, "unsupported_type"),
    ("headings.md", b"# Title\n\n## Section\n", 400, "no_content"),
]


@pytest.mark.parametrize(("name", "data", "status", "code"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_it_refuses_a_bad_file_and_writes_nothing(client_for, owner, name, data, status, code):
    tag = revision.current_tag()
    response = _upload(client_for(owner), markdown_file(data, name))
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]
    assert not KnowledgeDocument.objects.exists()
    assert revision.current_tag() == tag


@override_settings(KNOWLEDGE_MAX_UPLOAD_BYTES=1024)
def test_it_refuses_a_file_over_the_size_limit(client_for, owner):
    response = _upload(client_for(owner), markdown_file("# Big\n\n" + "x" * 1100))
    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "file_too_large",
        "message": "the file has 1107 bytes; the limit is 1024 bytes",
    }
    assert not KnowledgeDocument.objects.exists()


def test_it_refuses_a_request_without_a_file(client_for, owner):
    response = client_for(owner).post(URL, {"title": "no file"}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert response.json()["error"]["message"].startswith("file: ")


def test_it_refuses_a_json_body(client_for, owner):
    response = client_for(owner).post(URL, {"file": "# not a file"}, format="json")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_it_allows_only_post(client_for, owner):
    response = client_for(owner).get(URL)
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_it_takes_one_file_and_points_to_the_upload_of_several(client_for, owner):
    files = [markdown_file(DB_POOL_RUNBOOK, "one.md"), markdown_file(DB_POOL_RUNBOOK, "two.md")]

    response = client_for(owner).post(URL, {"file": files}, format="multipart")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_files"
    assert "/api/upload" in response.json()["error"]["message"]
    assert not KnowledgeDocument.objects.exists()
