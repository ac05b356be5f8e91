"""The OpenAPI schema and its docs page, and a schemathesis run over every operation of the schema.

schemathesis drives the WSGI application in-process (no server, no network), signed in by token: reads as
an auditor who may read everything, so the Trace and reasoning endpoints run past their permission checks;
writes as the owner, since auditors may write nothing.
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from tests.tracing.factories import make_run, make_session

SCHEMA_URL = "/api/schema/?format=json"
#: The operations that must be documented; other apps may add more, and the schemathesis run covers all.
API_OPERATIONS = {
    ("/api/chat", "post"),
    ("/api/runs/{run_id}/cancel", "post"),
    ("/api/runs/{run_id}/feedback", "put"),
    ("/api/documents", "get"),
    ("/api/documents/upload", "post"),
    ("/api/documents/{document_id}", "get"),
    ("/api/documents/{document_id}", "delete"),
    ("/api/documents/{document_id}", "patch"),
    ("/api/documents/status/{status}", "get"),
    ("/api/documents/faultSource/{fault_source}", "get"),
    ("/api/upload", "post"),
    ("/api/diagnosis/{session_id}/trace", "get"),
    ("/api/diagnosis/{session_id}/trace/reasoning", "get"),
    ("/healthz", "get"),
}


def schema_operations(schema: dict) -> set[tuple[str, str]]:
    return {(path, method) for path, operations in schema["paths"].items() for method in operations}


def generated_operations() -> list[tuple[str, str]]:
    """Every operation the views declare, read at collection so that a new endpoint is fuzzed too."""
    return sorted(schema_operations(SchemaGenerator().get_schema(request=None, public=True)))


@pytest.mark.django_db
def test_it_serves_every_api_operation_in_the_schema(client):
    response = client.get(SCHEMA_URL)

    assert response.status_code == 200
    assert schema_operations(response.json()) >= API_OPERATIONS
    assert schema_operations(response.json()) == set(generated_operations())


@pytest.mark.parametrize("version", ["a\r\nSet-Cookie: x=1", "\x00", '"; filename=evil.html'])
def test_a_version_parameter_cannot_reach_the_response_headers(client, version):
    response = client.get("/api/schema/", {"version": version, "format": "json"})
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'inline; filename="SuperBizAgent API (1.0.0).json"'


def test_it_generates_the_whole_schema_without_warnings():
    GENERATOR_STATS.reset()

    schema = SchemaGenerator().get_schema(request=None, public=True)

    assert not GENERATOR_STATS, "drf-spectacular warned; run `manage.py spectacular --validate --fail-on-warn`"
    validate_schema(schema)


def test_it_documents_the_trace_in_camel_case():
    schemas = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]

    assert {"runId", "orchestrationTrace", "selfEvaluation", "effectiveVerdict"} <= set(schemas["Run"]["properties"])
    assert set(schemas["RunTrace"]["properties"]) == {
        "sessionId",
        "run",
        "steps",
        "toolInvocations",
        "timeline",
        "feedback",
    }
    assert "reasoningContent" not in str(schemas["RunTrace"]) + str(schemas["Step"])


@pytest.mark.django_db
def test_it_serves_a_docs_page_that_loads_nothing_from_elsewhere(client):
    page = client.get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)

    assert assets, "the docs page references no assets"
    assert all(asset.startswith("/") and not asset.startswith("//") for asset in assets), assets
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in assets
    assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert "http://" not in page and "https://" not in page


@pytest.fixture
def seeded(db, auditor, owner) -> dict[str, str]:
    """A session with a run for the generated requests to reach, the auditor's token and the owner's."""
    run = make_run(make_session(owner))
    return {
        "session_id": str(run.session_id),
        "token": Token.objects.create(user=auditor).key,
        "owner_token": Token.objects.create(user=owner).key,
    }


@pytest.fixture
def api_schema(db):
    """The schema as served, bound to the WSGI app; connections stay open across its requests.

    A real WSGI handler closes the database connection when a request finishes, which would end the test's
    transaction; Django's own test client detaches the same handler for the same reason.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi(SCHEMA_URL, WSGIHandler())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.parametrize(("path", "method"), generated_operations())
def test_it_never_answers_with_a_server_error(api_schema, seeded, path, method):
    operation = api_schema[path][method.upper()]
    token = seeded["token"] if method == "get" else seeded["owner_token"]
    headers = {"Authorization": f"Token {token}"}
    # The Trace API is held to its documented statuses and shapes too; every operation to "no 5xx" but the
    # health check, whose documented 503 says a service is down (no worker runs in this test).
    checks = [not_a_server_error] if path != "/healthz" else []
    if path.startswith("/api/diagnosis/") or path == "/healthz":
        checks += [status_code_conformance, response_schema_conformance]
    statuses: set[int] = set()

    # schemathesis's own pytest loader does not run under pytest 9, so its strategy is driven directly.
    @given(case=operation.as_strategy())
    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def check(case) -> None:
        if "session_id" in (case.path_parameters or {}):
            # Random session ids only reach the 404; the seeded one reaches the run list and run lookups.
            case.path_parameters["session_id"] = seeded["session_id"]
        response = case.call_and_validate(headers=headers, checks=checks)
        statuses.add(response.status_code)

    check()

    if path == "/api/diagnosis/{session_id}/trace":
        assert 200 in statuses, "no generated request reached the seeded session's trace"


def test_it_documents_when_a_refused_submission_may_be_retried():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path, status in [("/api/chat", "429"), ("/api/chat", "503"), ("/api/alerts/alertmanager", "503")]:
        assert "Retry-After" in paths[path]["post"]["responses"][status]["headers"], (path, status)
