"""The invocation store hands a payload only to its run, only while READY, present and unaltered."""

from __future__ import annotations

import uuid

import pytest
import redis
import tenacity
from django.core.cache import cache

from tools.models import InvocationStatus, ToolInvocation
from tools.store import (
    LookupFailure,
    arguments_key,
    canonical_json,
    invocation_entries,
    load_verified_payload,
    payload_key,
    put_entries,
    sha256_hex,
)

pytestmark = pytest.mark.django_db

PAYLOAD = {"records": [{"message": "Timeout acquiring JDBC connection", "ts": "2024-05-01T10:05:40Z"}], "total": 1}


def record(run, payload=PAYLOAD, *, status=InvocationStatus.READY, seq=1) -> ToolInvocation:
    canonical = canonical_json(payload)
    invocation = ToolInvocation.objects.create(
        run=run,
        seq=seq,
        tool_name="query_logs",
        status=status,
        payload_sha256=sha256_hex(canonical) if status == InvocationStatus.READY else "",
        payload_bytes=len(canonical),
    )
    put_entries(invocation_entries(invocation.id, b"{}", canonical))
    return invocation


def test_it_serialises_canonically_with_sorted_keys_compact_utf8():
    assert canonical_json({"b": 1, "a": ["é", 2.5]}) == '{"a":["é",2.5],"b":1}'.encode()
    assert canonical_json({"b": 1, "a": 2}) == canonical_json({"a": 2, "b": 1})


def test_it_refuses_non_finite_numbers_in_a_payload():
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        canonical_json({"value": float("nan")})


def test_it_returns_the_payload_to_its_own_run(run):
    invocation = record(run)

    lookup = load_verified_payload(run.id, invocation.id)

    assert lookup.ok
    assert lookup.failure is None
    assert lookup.payload == PAYLOAD
    assert lookup.invocation == invocation


def test_it_accepts_ids_as_strings(run):
    invocation = record(run)

    assert load_verified_payload(str(run.id), str(invocation.id)).payload == PAYLOAD


def test_it_refuses_another_runs_invocation_without_revealing_it(run, other_run):
    invocation = record(run)

    lookup = load_verified_payload(other_run.id, invocation.id)

    assert lookup.failure == LookupFailure.FOREIGN_RUN
    assert (lookup.payload, lookup.invocation) == (None, None)


@pytest.mark.parametrize("invocation_id", [uuid.uuid4(), "not-a-uuid", ""])
def test_it_reports_an_unknown_or_malformed_id_as_not_found(run, invocation_id):
    assert load_verified_payload(run.id, invocation_id).failure == LookupFailure.NOT_FOUND


@pytest.mark.parametrize("status", [InvocationStatus.FAILED, InvocationStatus.BLOCKED])
def test_it_refuses_an_invocation_that_is_not_ready(run, status):
    invocation = record(run, status=status)

    assert load_verified_payload(run.id, invocation.id).failure == LookupFailure.NOT_READY


def test_it_reports_an_expired_payload(run):
    invocation = record(run)
    cache.delete(payload_key(invocation.id))

    assert load_verified_payload(run.id, invocation.id).failure == LookupFailure.EXPIRED


def test_it_refuses_a_payload_altered_by_one_character(run):
    invocation = record(run)
    altered = canonical_json(PAYLOAD).replace(b"JDBC", b"JDBc")
    put_entries(invocation_entries(invocation.id, b"{}", altered))

    lookup = load_verified_payload(run.id, invocation.id)

    assert lookup.failure == LookupFailure.DIGEST_MISMATCH
    assert lookup.payload is None


def test_it_refuses_a_stored_value_that_is_not_canonical_bytes(run):
    invocation = record(run)
    cache.set(payload_key(invocation.id), PAYLOAD)

    assert load_verified_payload(run.id, invocation.id).failure == LookupFailure.DIGEST_MISMATCH


def test_it_refuses_a_row_whose_digest_was_changed(run):
    invocation = record(run)
    ToolInvocation.objects.filter(pk=invocation.pk).update(payload_sha256="0" * 64)

    assert load_verified_payload(run.id, invocation.id).failure == LookupFailure.DIGEST_MISMATCH


def test_it_keeps_payloads_for_the_configured_ttl(settings, monkeypatch):
    settings.INVOCATION_STORE_TTL_SECONDS = 1234
    calls = []
    monkeypatch.setattr(cache, "set_many", lambda entries, timeout: calls.append((entries, timeout)))
    invocation_id = uuid.uuid4()

    put_entries(invocation_entries(invocation_id, b"[]", b"{}"))

    assert calls == [({arguments_key(invocation_id): b"[]", payload_key(invocation_id): b"{}"}, 1234)]


def test_a_store_gone_for_a_moment_is_written_once_it_is_back(run, monkeypatch):
    """Redis failing over: the calls were paid for, and the gatekeeper verifies nothing without their bytes."""
    real = cache.set_many
    outage = iter([redis.ConnectionError("Connection refused")] * 2)

    def flaky(*args, **kwargs):
        if (error := next(outage, None)) is not None:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "set_many", flaky)
    monkeypatch.setattr(put_entries.retry, "sleep", lambda seconds: None)

    invocation = record(run)

    assert load_verified_payload(run.id, invocation.id).payload == PAYLOAD


def test_a_store_that_stays_away_fails_the_write(monkeypatch):
    def down(*args, **kwargs):
        raise redis.ConnectionError("Connection refused")

    monkeypatch.setattr(cache, "set_many", down)
    monkeypatch.setattr(put_entries.retry, "sleep", lambda seconds: None)
    monkeypatch.setattr(put_entries.retry, "stop", tenacity.stop_after_attempt(3))

    with pytest.raises(redis.ConnectionError):
        put_entries({"k": b"v"})
