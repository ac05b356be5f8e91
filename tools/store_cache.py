"""The embedded invocation store's cache backend: Django's database cache without the growing count.

Django's ``DatabaseCache`` runs ``SELECT COUNT(*)`` over its whole table before every write, to cull when
it holds more than ``MAX_ENTRIES``: a cost that grows with the table, paid by every tool call. Here a write
of any number of keys is one upsert (Django's own ``ON CONFLICT`` / ``ON DUPLICATE KEY`` SQL for the
backend), whatever the table holds, and expired rows are deleted by ``purge_expired``, which the reaper's
schedule runs. Reads, ``delete``, ``add`` and ``touch`` (which the project does not use) are Django's.
"""

from __future__ import annotations

import base64
import pickle
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router
from django.db.models.constants import OnConflict
from django.utils import timezone


class PurgedDatabaseCache(DatabaseCache):
    def __init__(self, table: str, params: dict[str, Any]) -> None:
        super().__init__(table, params)
        self.table = table

    def set(self, key: str, value: Any, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self.set_many({key: value}, timeout, version)

    def set_many(
        self, data: dict[str, Any], timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[str]:
        """Write every key in one statement; returns the keys that failed (none: errors are raised)."""
        if not data:
            return []
        connection = connections[router.db_for_write(self.cache_model_class)]
        expires = connection.ops.adapt_datetimefield_value(_expiry(self.get_backend_timeout(timeout)))
        params: list[Any] = []
        for key, value in data.items():
            encoded = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            params += [self.make_and_validate_key(key, version=version), encoded, expires]
        quote = connection.ops.quote_name
        columns = ["cache_key", "value", "expires"]
        upsert = connection.ops.on_conflict_suffix_sql(None, OnConflict.UPDATE, ["value", "expires"], ["cache_key"])
        rows = ", ".join(["(%s, %s, %s)"] * len(data))
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {quote(self.table)} ({', '.join(map(quote, columns))}) VALUES {rows} {upsert}", params
            )
        return []

    def purge_expired(self) -> int:
        """Delete the rows past their expiry; returns how many. Run periodically (the reaper's schedule)."""
        connection = connections[router.db_for_write(self.cache_model_class)]
        now = connection.ops.adapt_datetimefield_value(timezone.now().replace(microsecond=0))
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(self.table)} WHERE expires < %s", [now])
            return cursor.rowcount


def _expiry(timeout: float | None) -> datetime:
    """A row's ``expires`` as Django's database cache writes it: whole seconds, ``datetime.max`` for never."""
    moment = datetime.max if timeout is None else datetime.fromtimestamp(timeout, tz=UTC if settings.USE_TZ else None)
    return moment.replace(microsecond=0)
