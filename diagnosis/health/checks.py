"""The checks behind ``/healthz``. Each one is timed and reports a failure by a fixed description or the
exception's class, never its text: driver messages name hosts, and a URL may carry a password."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from redis import Redis

from diagnosis.dispatch import executor_latency
from diagnosis.reaper import last_pass

#: The longest any one check waits (connect and answer); a health probe must itself answer promptly.
CHECK_TIMEOUT_SECONDS = 1.0
#: Passes the reaper may miss before it is called late (the first one waits an interval after a start).
REAPER_LATE_INTERVALS = 3
#: Checks whose failure leaves the deployment up but degraded (200): runs are taken and answered, but a
#: run whose worker dies stays RUNNING, and the embedded invocation store is not purged.
ADVISORY = frozenset({"reaper"})


class Unavailable(Exception):
    """A check's own verdict that the service is down, with a description safe to show anyone."""


@dataclass(frozen=True)
class Check:
    ok: bool
    latency_ms: int
    error: str = ""


@dataclass(frozen=True)
class Health:
    checks: dict[str, Check]

    @property
    def ok(self) -> bool:
        """Whether a run can be taken now: every check but the advisory ones passes."""
        return all(check.ok for name, check in self.checks.items() if name not in ADVISORY)

    @property
    def degraded(self) -> bool:
        return self.ok and not all(check.ok for check in self.checks.values())


def _timed(probe: Callable[[], float | None]) -> Check:
    """Run ``probe``; its latency is what it returns (seconds), or else the time it took."""
    start = time.perf_counter()
    try:
        latency = probe()
    except Unavailable as down:
        return Check(False, _ms(time.perf_counter() - start), str(down))
    except Exception as error:  # any failure is the answer; only its class is shown
        return Check(False, _ms(time.perf_counter() - start), f"{type(error).__name__}")
    return Check(True, _ms(time.perf_counter() - start if latency is None else latency))


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def _redis(url: str) -> None:
    client = Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT_SECONDS, socket_timeout=CHECK_TIMEOUT_SECONDS)
    try:
        client.ping()
    finally:
        client.close()


def _worker() -> float:
    latency = executor_latency(CHECK_TIMEOUT_SECONDS)
    if latency is None:
        where = "no executor thread" if settings.RUN_EXECUTION == "embedded" else "no worker on the run queue"
        raise Unavailable(f"{where} answered within {CHECK_TIMEOUT_SECONDS:g} s")
    return latency


def _reaper() -> None:
    last = last_pass()
    if last is None:
        embedded = settings.RUN_EXECUTION == "embedded"
        hint = (
            "the embedded timer has not completed one"
            if embedded
            else "celery beat makes one as it starts; is it running?"
        )
        raise Unavailable(f"no reaper pass recorded: {hint}")
    age = time.time() - last
    if age > REAPER_LATE_INTERVALS * settings.REAPER_INTERVAL_SECONDS:
        raise Unavailable(f"the last reaper pass ended {age:.0f} s ago")


def health() -> Health:
    """Every check this deployment needs. With Redis down the Celery worker is not asked: its broker is that
    Redis, and the broadcast would retry for seconds before failing."""
    checks = {"database": _timed(_database)}
    redis_url = settings.REDIS_URL
    if redis_url:
        checks["redis"] = _timed(lambda: _redis(redis_url))
    broker_down = "redis" in checks and not checks["redis"].ok
    if settings.RUN_EXECUTION == "celery" and broker_down:
        checks["worker"] = Check(False, 0, "not asked: its broker (redis) is down")
    else:
        checks["worker"] = _timed(_worker)
    # The reaper records its passes in the cache: that Redis when one is configured, else the database. A
    # cache whose own check failed is not asked again (it would wait out its timeouts a second time).
    cache_check = "redis" if redis_url else "database"
    if checks[cache_check].ok:
        checks["reaper"] = _timed(_reaper)
    else:
        checks["reaper"] = Check(False, 0, f"not asked: its cache ({cache_check}) is down")
    return Health(checks)
