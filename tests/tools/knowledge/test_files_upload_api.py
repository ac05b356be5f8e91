"""POST /api/upload (seed 003's simple upload): several files with the same labels, all stored or none."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.tools.knowledge.conftest import CACHE_RUNBOOK, CHINESE_RUNBOOK, DB_POOL_RUNBOOK, markdown_file
from tools.knowledge import revision
from tools.knowledge.search import search_knowledge
from tools.models import KnowledgeDocument

pytestmark = pytest.mark.django_db
URL = "/api/upload"


def upload(client, *files, **fields):
    return client.post(URL, {"file": list(files), **fields}, format="multipart")


def test_it_stores_several_files_with_their_labels_searchable_at_once(client_for, owner):
    response = upload(
        client_for(owner),
        markdown_file(DB_POOL_RUNBOOK, "db-pool.md"),
        markdown_file(CHINESE_RUNBOOK, "mq-disk.md"),
        category="runbook",
        fault_source="database",
    )

    assert response.status_code == 201
    documents = response.json()["documents"]
    assert [document["filename"] for document in documents] == ["db-pool.md", "mq-disk.md"]
    assert all(
        (document["category"], document["fault_source"], document["status"], document["uploaded_by"])
        == ("runbook", "database", "ACTIVE", "owner")
        for document in documents
    )
    assert KnowledgeDocument.objects.count() == 2
    assert search_knowledge("RabbitMQ 磁盘告警", top_k=1)["chunks"][0]["title"].startswith("消息队列磁盘写满处理手册")


def test_one_file_is_enough_and_labels_are_optional(client_for, owner):
    response = upload(client_for(owner), markdown_file(CACHE_RUNBOOK, "cache.md"))

    assert response.status_code == 201
    [document] = response.json()["documents"]
    assert (document["category"], document["fault_source"]) == ("", "")


@pytest.mark.parametrize(
    "bad, status, code",
    [
        (markdown_file(b"%PDF-1.7 binary", "postmortem.pdf"), 415, "unsupported_type"),
        (markdown_file(b"", "empty.md"), 400, "empty_file"),
        (markdown_file(b"\xff\xfe not utf-8", "latin.md"), 400, "not_utf8"),
        (markdown_file("# Only a heading\n", "heading.md"), 400, "no_content"),
    ],
)
def test_one_bad_file_refuses_the_whole_request_naming_it(client_for, owner, bad, status, code):
    before = revision.current_tag()

    response = upload(client_for(owner), markdown_file(DB_POOL_RUNBOOK, "db-pool.md"), bad)

    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"].startswith(f"{bad.name}: ")
    assert not KnowledgeDocument.objects.exists()
    assert revision.current_tag() == before


def test_a_refusal_speaks_the_readers_language_and_names_the_file_once(client_for, owner):
    files = {"file": [markdown_file(b"%PDF-1.7", "slides.pdf")]}
    response = client_for(owner).post(URL, files, format="multipart", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")

    assert response.status_code == 415
    assert response.json()["error"]["message"] == "slides.pdf: 不是 .md, .markdown, .txt 文件；只接受这些类型"


@override_settings(KNOWLEDGE_MAX_UPLOAD_BYTES=64)
def test_it_refuses_a_file_over_the_size_limit(client_for, owner):
    response = upload(client_for(owner), markdown_file("# t\n\n" + "x" * 100, "big.md"))

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "file_too_large"
    assert not KnowledgeDocument.objects.exists()


@pytest.mark.parametrize(
    "fields, field", [({"category": "c" * 51}, "category"), ({"fault_source": "f" * 101}, "fault_source")]
)
def test_it_refuses_labels_too_long(client_for, owner, fields, field):
    response = upload(client_for(owner), markdown_file(DB_POOL_RUNBOOK), **fields)

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith(f"{field}:")
    assert not KnowledgeDocument.objects.exists()


def test_it_refuses_a_request_without_files(client_for, owner):
    response = client_for(owner).post(URL, {"category": "runbook"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("file:")


def test_auditors_upload_nothing(client_for, auditor):
    response = upload(client_for(auditor), markdown_file(DB_POOL_RUNBOOK))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "read_only"
    assert not KnowledgeDocument.objects.exists()


def test_anonymous_callers_must_sign_in(client_for):
    assert upload(client_for(None), markdown_file(DB_POOL_RUNBOOK)).status_code == 403
