"""The upload handler keeps a file to KNOWLEDGE_MAX_UPLOAD_BYTES as it arrives; the API answers 413 as before."""

from __future__ import annotations

import hashlib

import pytest

from tests.tools.knowledge.conftest import DB_POOL_RUNBOOK, markdown_file
from tools.knowledge import ingest
from tools.models import KnowledgeDocument

URL = "/api/documents/upload"
HANDLER = "tools.knowledge.upload_limit.LimitedMemoryUploadHandler"

pytestmark = pytest.mark.django_db


@pytest.fixture
def limited(settings, monkeypatch) -> None:
    """Only the limiting handler, and any spooling to a temporary file fails the request loudly."""
    settings.FILE_UPLOAD_HANDLERS = [HANDLER]
    settings.KNOWLEDGE_MAX_UPLOAD_BYTES = 1024
    # Django's default handlers would spool this much to disk; the limit handler must never need to.
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 0

    def no_disk(*args, **kwargs):
        raise AssertionError("an upload was spooled to a temporary file")

    monkeypatch.setattr("django.core.files.uploadedfile.tempfile.NamedTemporaryFile", no_disk)


def test_it_refuses_a_file_over_the_limit_without_storing_it(limited, client_for, owner):
    response = client_for(owner).post(URL, {"file": markdown_file("# Big\n\n" + "x" * 200_000)}, format="multipart")

    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "file_too_large",
        "message": "the file has 200007 bytes; the limit is 1024 bytes",
    }
    assert not KnowledgeDocument.objects.exists()


@pytest.mark.parametrize(("size", "status"), [(1024, 201), (1025, 413)])
def test_the_limit_is_inclusive(limited, client_for, owner, size, status):
    text = DB_POOL_RUNBOOK + "x" * (size - len(DB_POOL_RUNBOOK.encode()))

    response = client_for(owner).post(URL, {"file": markdown_file(text)}, format="multipart")

    assert response.status_code == status


def test_it_hands_over_a_file_of_many_chunks_whole(limited, settings, client_for, owner):
    settings.KNOWLEDGE_MAX_UPLOAD_BYTES = 1_000_000
    # Three 64 KiB chunks and a bit: what arrives must be exactly what was sent.
    text = DB_POOL_RUNBOOK + "".join(f"\nline {index} of the appendix" for index in range(8000))

    response = client_for(owner).post(URL, {"file": markdown_file(text)}, format="multipart")

    assert response.status_code == 201
    assert response.json()["content_sha256"] == hashlib.sha256(text.encode()).hexdigest()


def sections(count: int) -> str:
    return "# Runbook\n\n" + "".join(f"## Step {number}\n\nRestart worker {number}.\n\n" for number in range(count))


def test_a_document_of_more_sections_than_allowed_is_refused(settings, client_for, owner):
    settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS = 5

    response = client_for(owner).post(URL, {"file": markdown_file(sections(6))}, format="multipart")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_sections"
    assert not KnowledgeDocument.objects.exists()


def test_an_upload_past_the_bases_sections_is_refused_until_some_are_archived(settings, client_for, owner):
    settings.KNOWLEDGE_MAX_CHUNKS = 8
    client = client_for(owner)
    first = client.post(URL, {"file": markdown_file(sections(5))}, format="multipart").json()

    refused = client.post(URL, {"file": markdown_file(sections(4))}, format="multipart")
    client.patch(f"/api/documents/{first['id']}", {"status": "ARCHIVED"}, format="json")
    accepted = client.post(URL, {"file": markdown_file(sections(4))}, format="multipart")

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "knowledge_base_full"
    assert accepted.status_code == 201
    # Restoring the archived one would pass the bound as well.
    restored = client.patch(f"/api/documents/{first['id']}", {"status": "ACTIVE"}, format="json")
    assert (restored.status_code, restored.json()["error"]["code"]) == (409, "knowledge_base_full")
    assert KnowledgeDocument.objects.get(pk=first["id"]).status == "ARCHIVED"


def test_a_request_whose_first_file_has_too_many_sections_parses_no_other(settings, client_for, owner, monkeypatch):
    """Parsing a megabyte of headings takes seconds: a refused request must not pay for every file it holds."""
    settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS = 5
    parsed = []
    real = ingest._prepare
    monkeypatch.setattr(ingest, "_prepare", lambda filename, *args: parsed.append(filename) or real(filename, *args))
    files = [markdown_file(sections(6), "big.md"), markdown_file(sections(2), "small.md")]

    response = client_for(owner).post("/api/upload", {"file": files}, format="multipart")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_sections"
    assert parsed == ["big.md"]


def test_one_uploader_cannot_fill_the_base_for_everyone(settings, client_for, owner, other_user, admin_user):
    """A review filled the base from one account and every other upload was refused."""
    settings.KNOWLEDGE_MAX_CHUNKS_PER_UPLOADER = 8

    first = client_for(owner).post(URL, {"file": markdown_file(sections(5))}, format="multipart")
    refused = client_for(owner).post(URL, {"file": markdown_file(sections(4))}, format="multipart")
    someone_else = client_for(other_user).post(URL, {"file": markdown_file(sections(4))}, format="multipart")
    staff = client_for(admin_user).post(URL, {"file": markdown_file(sections(9))}, format="multipart")

    assert first.status_code == 201
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "uploader_quota_full")
    assert someone_else.status_code == 201 and staff.status_code == 201
    # Archived, then restored once another fills the room: still counted against whoever uploaded it.
    client = client_for(owner)
    client.patch(f"/api/documents/{first.json()['id']}", {"status": "ARCHIVED"}, format="json")
    assert client.post(URL, {"file": markdown_file(sections(4))}, format="multipart").status_code == 201
    restored = client.patch(f"/api/documents/{first.json()['id']}", {"status": "ACTIVE"}, format="json")
    assert (restored.status_code, restored.json()["error"]["code"]) == (409, "uploader_quota_full")
