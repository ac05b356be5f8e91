"""The invocation store: each READY invocation's canonical payload, kept in Django's cache for a TTL.

The ``tool_invocation`` row keeps only the payload's sha256 and size; the payload itself lives here (the
database cache when embedded, Redis in production). ``load_verified_payload`` is the only way back in: it
hands out a payload only to the run that produced it and only while its bytes still hash to the digest on
the row, so the Gatekeeper can trust whatever it returns.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.core.cache import cache

from tools.models import InvocationStatus, ToolInvocation


def canonical_json(payload: Any) -> bytes:
    """The one serialisation that digests are computed over: sorted keys, compact, UTF-8, no NaN."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload_key(invocation_id: uuid.UUID | str) -> str:
    return f"tool-invocation-payload:{invocation_id}"


def put_payload(invocation_id: uuid.UUID, canonical: bytes) -> None:
    """Keep the canonical bytes themselves, so verification hashes exactly what was recorded."""
    cache.set(payload_key(invocation_id), canonical, timeout=settings.INVOCATION_STORE_TTL_SECONDS)


class LookupFailure(StrEnum):
    NOT_FOUND = "not_found"
    FOREIGN_RUN = "foreign_run"
    NOT_READY = "not_ready"
    EXPIRED = "expired"
    DIGEST_MISMATCH = "digest_mismatch"


@dataclass(frozen=True)
class PayloadLookup:
    """Either a verified ``payload`` (with its ``invocation``) or the ``failure`` that refused it."""

    payload: Any = None
    invocation: ToolInvocation | None = None
    failure: LookupFailure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def load_verified_payload(run_id: uuid.UUID | str, invocation_id: uuid.UUID | str) -> PayloadLookup:
    """The payload of ``invocation_id`` if it belongs to ``run_id``, is READY, present and unaltered."""
    try:
        invocation = ToolInvocation.objects.get(pk=uuid.UUID(str(invocation_id)))
    except (ValueError, ToolInvocation.DoesNotExist):
        # A forged id and a malformed one are the same failure to the caller.
        return PayloadLookup(failure=LookupFailure.NOT_FOUND)
    if str(invocation.run_id) != str(run_id):
        return PayloadLookup(failure=LookupFailure.FOREIGN_RUN)
    if invocation.status != InvocationStatus.READY:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.NOT_READY)
    stored = cache.get(payload_key(invocation.pk))
    if stored is None:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.EXPIRED)
    if not isinstance(stored, bytes) or sha256_hex(stored) != invocation.payload_sha256:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.DIGEST_MISMATCH)
    return PayloadLookup(payload=json.loads(stored), invocation=invocation)
