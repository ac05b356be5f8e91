"""The run's node context: payloads verified once in a run are not read again (the gatekeeper, then figures)."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache import cache

from tests.diagnosis.nodes.conftest import LOGS_PAYLOAD
from tools.models import InvocationStatus
from tools.store import LookupFailure, canonical_json, invocation_entries, payload_key, put_entries

pytestmark = pytest.mark.django_db


def test_a_payload_verified_once_is_not_read_again(run, record_invocation, make_context, django_assert_num_queries):
    invocation = str(record_invocation(run).pk)
    context = make_context(run)
    first = context.payload_loader([invocation])(invocation)

    with django_assert_num_queries(0):
        again = context.payload_loader([invocation])(invocation)

    assert first.ok and again.payload == first.payload == LOGS_PAYLOAD


def test_a_refused_lookup_is_asked_again(run, record_invocation, make_context):
    invocation = record_invocation(run)
    key = str(invocation.pk)
    cache.delete(payload_key(key))
    context = make_context(run)

    assert context.payload_loader([key])(key).failure == LookupFailure.EXPIRED
    put_entries(invocation_entries(invocation.pk, b"{}", canonical_json(LOGS_PAYLOAD)))
    assert context.payload_loader([key])(key).payload == LOGS_PAYLOAD


def test_it_never_verifies_another_runs_payload(run, owner, record_invocation, make_context):
    other = record_invocation(type(run).objects.create(session=run.session, query="other"))
    pending = record_invocation(run, status=InvocationStatus.FAILED)
    context = make_context(run)
    load = context.payload_loader([str(other.pk), str(pending.pk), str(uuid.uuid4())])

    assert [load(str(key)).failure for key in (other.pk, pending.pk)] == [
        LookupFailure.FOREIGN_RUN,
        LookupFailure.NOT_READY,
    ]
    assert context.verified == {}
