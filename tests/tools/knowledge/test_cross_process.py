"""An upload through the web process is searchable by another process at once; a deletion is gone at once.

The "worker" is a real second process (``manage.py shell``) that keeps its in-memory index between searches,
as a Celery worker does, and reads queries line by line from its stdin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from rest_framework.test import APIClient

from tests.conftest import ROOT

WORKER = """
import json, sys
from tools.knowledge.search import search_knowledge
for line in sys.stdin:
    print(json.dumps(search_knowledge(line.strip(), top_k=3)), flush=True)
"""
QUERY = "zookeeper session expired tickTime"
DOCUMENT = b"# ZooKeeper sessions\n\nzookeeper session expired: raise tickTime and check GC pauses.\n"


def _test_database_url() -> str:
    """This test run's database, for a process that is not inside pytest."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    return f"mysql://{settings['USER']}{password}@{settings['HOST']}:{settings['PORT'] or 3306}/{settings['NAME']}"


@pytest.fixture
def worker(transactional_db) -> Iterator[subprocess.Popen]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "shell", "--no-imports", "-c", WORKER],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": _test_database_url()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    yield process
    process.stdin.close()
    process.wait(timeout=30)


def _search_in(worker: subprocess.Popen, query: str) -> dict:
    worker.stdin.write(query + "\n")
    worker.stdin.flush()
    line = worker.stdout.readline()
    assert line, f"the worker process exited with {worker.poll()}"
    return json.loads(line)


def test_it_shows_an_upload_and_a_deletion_to_another_process_at_once(worker, owner):
    # The worker builds its index before the upload, so only the revision check can make it see the upload.
    assert _search_in(worker, QUERY)["evidence_status"] == "no_evidence"
    client = APIClient()
    client.force_authenticate(owner)
    upload = SimpleUploadedFile("zk.md", DOCUMENT, content_type="text/markdown")
    response = client.post("/api/documents/upload", {"file": upload}, format="multipart")
    assert response.status_code == 201
    document_id = response.json()["id"]

    found = _search_in(worker, QUERY)
    assert found["evidence_status"] == "ok"
    assert [chunk["document_id"] for chunk in found["chunks"]] == [document_id]

    assert client.delete(f"/api/documents/{document_id}").status_code == 204
    assert _search_in(worker, QUERY) == {"evidence_status": "no_evidence", "chunks": []}
