"""The invocation store: each invocation's canonical arguments and READY payload, in Django's cache for a TTL.

The ``tool_invocation`` row keeps only digests, sizes and shapes; the bytes live here (the database cache
when embedded, purged of expired rows on the reaper's schedule; Redis in production). ``load_verified_payload`` is the only way back in for a payload: it
hands one out only to the run that produced it and only while its bytes still hash to the digest on the
row, so the Gatekeeper can trust whatever it returns. ``load_arguments`` does the same for the arguments
an auditor reads in the admin.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import redis
import tenacity
from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches

from tools.models import InvocationStatus, ToolInvocation
from tools.store_cache import PurgedDatabaseCache

logger = logging.getLogger(__name__)


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


def invocation_entries(invocation_id: uuid.UUID, arguments: bytes | None, payload: bytes | None) -> dict[str, bytes]:
    """A call's store entries: its canonical arguments (``arguments.record_arguments``; None: too large to
    keep, only their digest and shape are) and, when READY, its canonical payload bytes themselves, so
    verification hashes exactly what was recorded."""
    entries = {}
    if arguments is not None:
        entries[arguments_key(invocation_id)] = arguments
    if payload is not None:
        entries[payload_key(invocation_id)] = payload
    return entries


def _store_unreachable(state: tenacity.RetryCallState) -> None:
    logger.warning("the invocation store could not be reached (attempt %d); retrying", state.attempt_number)


# Redis gone for a moment (a failover, a restart): the calls' payloads were paid for, and without them the
# gatekeeper can verify nothing, so their write is tried again for a few seconds before the run fails.
@tenacity.retry(
    retry=tenacity.retry_if_exception_type((redis.ConnectionError, redis.TimeoutError)),
    stop=tenacity.stop_after_delay(5),
    wait=tenacity.wait_exponential(multiplier=0.25, max=2),
    before_sleep=_store_unreachable,
    reraise=True,
)
def put_entries(entries: dict[str, bytes]) -> None:
    """Keep the entries of any number of calls (``invocation_entries``), in one write."""
    if entries:
        cache.set_many(entries, timeout=settings.INVOCATION_STORE_TTL_SECONDS)


def purge_expired() -> int:
    """Delete what outlived its TTL, where the store does not expire entries itself (the database cache);
    returns how many. Runs on the reaper's schedule. Redis expires keys on its own: nothing to do there."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    return backend.purge_expired() if isinstance(backend, PurgedDatabaseCache) else 0


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


def load_verified_payloads(
    run_id: uuid.UUID | str, invocation_ids: Iterable[uuid.UUID | str]
) -> dict[str, PayloadLookup]:
    """``load_verified_payload`` for many ids at once (one read of the rows, one of the store), keyed by the
    ids as given."""
    wanted: dict[str, uuid.UUID | None] = {}
    for given in invocation_ids:
        try:
            parsed = uuid.UUID(str(given))
        except ValueError:
            parsed = None
        # A forged id and a malformed one are the same failure to the caller, and so is another spelling of
        # a real one (upper case, urn:uuid:, braces, no hyphens): it would be kept as the citation's id as
        # written, and counted apart from the same invocation cited as the run recorded it.
        canonical = isinstance(given, uuid.UUID) or str(parsed) == str(given)
        wanted[str(given)] = parsed if canonical else None
    rows = ToolInvocation.objects.in_bulk([pk for pk in wanted.values() if pk is not None])
    ready = [row for row in rows.values() if str(row.run_id) == str(run_id) and row.status == InvocationStatus.READY]
    stored = cache.get_many([payload_key(row.pk) for row in ready])
    return {given: _lookup(run_id, rows.get(pk) if pk else None, stored) for given, pk in wanted.items()}


def load_verified_payload(run_id: uuid.UUID | str, invocation_id: uuid.UUID | str) -> PayloadLookup:
    """The payload of ``invocation_id`` if it belongs to ``run_id``, is READY, present and unaltered."""
    return load_verified_payloads(run_id, [invocation_id])[str(invocation_id)]


def payload_loader(run_id: uuid.UUID | str, invocation_ids: Iterable[str]) -> Callable[[str], PayloadLookup]:
    """``load_verified_payload`` for one run, with ``invocation_ids`` read up front in one go (a check of
    many bindings citing few invocations reads each once); any other id is read when asked for."""
    lookups = load_verified_payloads(run_id, invocation_ids)
    return lambda invocation_id: lookups.get(invocation_id) or load_verified_payload(run_id, invocation_id)


def _lookup(run_id: uuid.UUID | str, invocation: ToolInvocation | None, stored: dict[str, Any]) -> PayloadLookup:
    if invocation is None:
        return PayloadLookup(failure=LookupFailure.NOT_FOUND)
    if str(invocation.run_id) != str(run_id):
        return PayloadLookup(failure=LookupFailure.FOREIGN_RUN)
    if invocation.status != InvocationStatus.READY:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.NOT_READY)
    payload = stored.get(payload_key(invocation.pk))
    if payload is None:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.EXPIRED)
    if not isinstance(payload, bytes) or sha256_hex(payload) != invocation.payload_sha256:
        return PayloadLookup(invocation=invocation, failure=LookupFailure.DIGEST_MISMATCH)
    return PayloadLookup(payload=json.loads(payload), invocation=invocation)
