"""The embedded invocation store's cache: writes that do not count the table, expiry by a periodic purge."""

from __future__ import annotations

from datetime import datetime
from io import StringIO

import pytest
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tools.store_cache import PurgedDatabaseCache

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def store(settings) -> PurgedDatabaseCache:
    """The embedded mode's store, also in the production-style pass (where the store is Redis and the
    migration made no table), so that its writes and its purge are checked on MariaDB too."""
    settings.CACHES = {
        DEFAULT_CACHE_ALIAS: {"BACKEND": "tools.store_cache.PurgedDatabaseCache", "LOCATION": "superbiz_cache"}
    }
    call_command("createcachetable", verbosity=0)  # what tools/0002 does when this is the configured store
    backend = caches[DEFAULT_CACHE_ALIAS]
    assert isinstance(backend, PurgedDatabaseCache)
    backend.clear()
    return backend


def expire(key: str) -> None:
    """Age one entry past its expiry, as time would."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE superbiz_cache SET expires = %s WHERE cache_key = %s",
            [connection.ops.adapt_datetimefield_value(datetime(2000, 1, 1)), f":1:{key}"],
        )


def test_a_write_is_one_statement_that_counts_nothing(store):
    with CaptureQueriesContext(connection) as captured:
        store.set_many({"arguments": b"[]", "payload": b"{}"}, timeout=60)

    assert len(captured.captured_queries) == 1
    assert "COUNT" not in captured.captured_queries[0]["sql"].upper()
    assert store.get_many(["arguments", "payload"]) == {"arguments": b"[]", "payload": b"{}"}


def test_a_write_replaces_an_entry_and_its_expiry(store):
    store.set("key", b"old", timeout=60)
    expire("key")

    store.set("key", b"new", timeout=60)

    assert store.get("key") == b"new"


def test_entries_never_expire_with_no_timeout_and_are_hidden_once_expired(store):
    store.set_many({"forever": 1, "brief": 2}, timeout=None)
    expire("brief")

    assert store.get_many(["forever", "brief"]) == {"forever": 1}


def test_the_purge_deletes_expired_entries_only(store):
    store.set_many({"live": 1, "dead": 2}, timeout=60)
    expire("dead")

    assert store.purge_expired() == 1

    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM superbiz_cache")
        assert [key for (key,) in cursor.fetchall()] == [":1:live"]


def test_the_reapers_scheduled_pass_purges_the_store(store):
    store.set_many({"live": 1, "dead": 2}, timeout=60)
    expire("dead")

    call_command("reap_stale_runs", stdout=StringIO())

    assert store.get_many(["live", "dead"]) == {"live": 1}
    with connection.cursor() as cursor:
        cursor.execute("SELECT cache_key FROM superbiz_cache ORDER BY cache_key")
        # The dead entry's row is gone; the pass recorded itself for /healthz (``reaper.last_pass``).
        assert [key for (key,) in cursor.fetchall()] == [":1:live", ":1:reaper:last-pass"]
