"""Fixtures of the knowledge tests: a small corpus of runbooks and a way to add documents to it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tools.knowledge.ingest import ingest_document
from tools.models import DocumentSource, KnowledgeDocument

DB_POOL_RUNBOOK = """# Runbook: payment-service DB connection pool exhausted

## Symptoms

HikariPool-1 - Connection is not available, request timed out after 30000ms. p99 latency triples.

## Mitigation

Roll back the deploy that lowered maximumPoolSize, then watch db_pool_pending fall to 0.
"""

CACHE_RUNBOOK = """# Runbook: Redis eviction storm

## Symptoms

evicted_keys climbs, the cache hit ratio drops and the catalog database takes the load.

## Mitigation

Raise maxmemory or lower the TTL of large keys.
"""

ORACLE_RUNBOOK = """# Oracle session limit

ORA-00020: maximum number of processes exceeded. Raise the processes parameter.
"""

CHINESE_RUNBOOK = """# 消息队列磁盘写满处理手册

## 现象

RabbitMQ 磁盘告警触发，生产者被阻塞，消息堆积。

## 处理

清理过期队列，扩容磁盘，确认磁盘告警解除。
"""

Ingest = Callable[..., KnowledgeDocument]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """The users of these tests need no real password hashing (the default costs about a second a user)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ingest(db) -> Ingest:
    """Ingest a markdown document as an upload; returns the document."""

    def run(content: str, *, filename: str = "runbook.md", uploaded_by=None) -> KnowledgeDocument:
        return ingest_document(
            title_hint="", filename=filename, content=content, source=DocumentSource.UPLOAD, uploaded_by=uploaded_by
        )

    return run


@pytest.fixture
def corpus(ingest) -> dict[str, KnowledgeDocument]:
    return {
        "db_pool": ingest(DB_POOL_RUNBOOK, filename="db-pool.md"),
        "cache": ingest(CACHE_RUNBOOK, filename="cache.md"),
        "oracle": ingest(ORACLE_RUNBOOK, filename="oracle.md"),
        "chinese": ingest(CHINESE_RUNBOOK, filename="mq-disk-zh.md"),
    }


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("staff", password="staff-pass-123", is_staff=True)


@pytest.fixture
def client_for() -> Callable[..., APIClient]:
    """An API client signed in as ``user`` (by session), or anonymous for None."""

    def make(user) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_login(user)
        return client

    return make


def markdown_file(content: bytes | str, name: str = "runbook.md") -> SimpleUploadedFile:
    data = content.encode() if isinstance(content, str) else content
    return SimpleUploadedFile(name, data, content_type="text/markdown")
