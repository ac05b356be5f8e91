"""The invocation store: each invocation's canonical arguments and READY payload, in Django's cache for a TTL.

The ``tool_invocation`` row keeps only digests, sizes and shapes; the bytes live here (the database cache
when embedded, Redis in production). ``load_verified_payload`` is the only way back in for a payload: it
hands one out only to the run that produced it and only while its bytes still hash to the digest on the
row, so the Gatekeeper can trust whatever it returns. ``load_arguments`` does the same for the arguments
an auditor reads in the admin.
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


def canonical_json(value: Any, *, lenient: bool = False) -> bytes:
    """The one serialisation that digests are computed over: sorted keys, compact, UTF-8.

    Payloads are strict (no NaN, JSON types only), so that what the Gatekeeper verifies round-trips.
    Arguments are recorded whatever the model or an in-process caller sent (``lenient``: NaN as written,
    other values as their ``str``, a lone surrogate from a ``\\ud800`` escape kept as its bytes).
    """
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=lenient,
        default=str if lenient else None,
    ).encode(errors="surrogatepass" if lenient else "strict")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload_key(invocation_id: uuid.UUID | str) -> str:
    return f"tool-invocation-payload:{invocation_id}"


def arguments_key(invocation_id: uuid.UUID | str) -> str:
    return f"tool-invocation-arguments:{invocation_id}"


def put_payload(invocation_id: uuid.UUID, canonical: bytes) -> None:
    """Keep the canonical bytes themselves, so verification hashes exactly what was recorded."""
    cache.set(payload_key(invocation_id), canonical, timeout=settings.INVOCATION_STORE_TTL_SECONDS)


def put_arguments(invocation_id: uuid.UUID, canonical: bytes) -> None:
    """Keep the call's arguments (``arguments.record_arguments``) for the TTL; the row keeps their digest."""
    cache.set(arguments_key(invocation_id), canonical, timeout=settings.INVOCATION_STORE_TTL_SECONDS)


def load_arguments(invocation: ToolInvocation) -> str | None:
    """The call's arguments as recorded, while the store keeps them and they still hash to ``args_sha256``."""
    stored = cache.get(arguments_key(invocation.pk))
    if not isinstance(stored, bytes) or sha256_hex(stored) != invocation.args_sha256:
        return None
    return stored.decode(errors="replace")


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
