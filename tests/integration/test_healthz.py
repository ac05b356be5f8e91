"""GET /healthz against real processes: uvicorn with a real Redis and a real Celery worker, or the embedded
executor; and with each service down — Redis on a closed port, no worker on the run queue, the database on
a closed port, no reaper pass. No sign-in, and nothing in the body names a host or a password.

A reaper pass that another test's process recorded must not answer for this server's: each server gets a
Redis cache key prefix of its own, and the database cache (no prefix) loses the record before it starts."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest
from celery import Celery
from django.conf import settings
from django.db import connection

from diagnosis import reaper
from tests.services import TEST_REDIS_URL, require
from tests.support.clients import login, submit
from tests.support.held_runs import stuck_planner, wait_for_node
from tests.support.live import celery_beat, celery_worker, database_url, private_queue, process_env, uvicorn_server
from tests.support.ports import free_port

PASSWORD = f"pw-{uuid.uuid4().hex}"
NO_WORKER = "no worker on the run queue answered within 1 s"
NO_PASS = "no reaper pass recorded: celery beat makes one as it starts; is it running?"


def _healthz(env: dict[str, str]) -> httpx.Response:
    with uvicorn_server(env) as server:
        return httpx.get(f"{server.base}/healthz", timeout=30)


def _until_ok(base: str) -> httpx.Response:
    """The first ``ok`` answer within 30 s (the test fails with the last answer otherwise)."""
    deadline = time.monotonic() + 30
    while (response := httpx.get(f"{base}/healthz", timeout=30)).json()["status"] != "ok":
        assert time.monotonic() < deadline, response.text
        time.sleep(0.2)
    return response


def _env(**overrides: str) -> dict[str, str]:
    env = process_env(CACHE_KEY_PREFIX=f"healthz-{uuid.uuid4().hex}", **overrides)
    if not env.get("REDIS_URL") and env["DATABASE_URL"] == database_url():
        with connection.cursor() as cursor:  # the table a server of this env reads its cache from
            cursor.execute("DELETE FROM superbiz_cache WHERE cache_key LIKE %s", [f"%{reaper.LAST_PASS_KEY}"])
    return env


def _celery_env(**overrides: str) -> dict[str, str]:
    """A web process whose runs go to Celery on this run's Redis, on a queue of its own."""
    require("redis")
    return _env(
        REDIS_URL=settings.REDIS_URL or TEST_REDIS_URL,
        RUN_EXECUTION="celery",
        CELERY_QUEUE=private_queue(),
        **overrides,
    )


def _worker_consuming(env: dict[str, str]) -> None:
    """Return once the worker takes tasks from its queue: it has executed the health task."""
    client = Celery("healthz-test", broker=env["REDIS_URL"], backend=env["REDIS_URL"])
    client.send_task("superbiz.health", queue=env["CELERY_QUEUE"]).get(timeout=60)


def _checks(response: httpx.Response, status_code: int, status: str = "") -> dict[str, dict]:
    assert response.status_code == status_code, response.text
    body = response.json()
    assert body["status"] == (status or ("ok" if status_code == 200 else "unavailable"))
    return body["checks"]


def _assert_up(check: dict) -> None:
    assert check["ok"] is True, check
    assert check["error"] == ""
    assert isinstance(check["latency_ms"], int) and check["latency_ms"] >= 0


@pytest.mark.django_db(transaction=True)
def test_it_is_up_with_redis_a_celery_worker_on_the_queue_and_celery_beat(tmp_path):
    env = _celery_env()

    with celery_worker(env), uvicorn_server(env) as server:
        _worker_consuming(env)
        no_beat = httpx.get(f"{server.base}/healthz", timeout=30)
        # celery beat makes a reaper pass as it starts, and every minute, on a thread of its own: recorded in
        # the cache, whatever the worker is busy with.
        with celery_beat(env, tmp_path / "celerybeat-schedule"):
            response = _until_ok(server.base)

    checks = _checks(no_beat, 200, "degraded")
    assert checks["reaper"] == {"ok": False, "latency_ms": checks["reaper"]["latency_ms"], "error": NO_PASS}
    checks = _checks(response, 200)
    assert set(checks) == {"database", "redis", "worker", "reaper"}
    for check in checks.values():
        _assert_up(check)


@pytest.mark.django_db(transaction=True)
def test_it_is_up_with_the_embedded_executor_once_its_reaper_timer_has_passed():
    with uvicorn_server(_env(RUN_EXECUTION="embedded")) as server:
        # The timer's first pass starts with the server; until it ends the reaper check may still fail.
        response = _until_ok(server.base)

    checks = _checks(response, 200)
    # Redis is checked whenever it is configured (in this pass's production-style run it is).
    assert set(checks) == {"database", "worker", "reaper"} | ({"redis"} if settings.REDIS_URL else set())
    for check in checks.values():
        _assert_up(check)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("worker_elsewhere", [False, True], ids=["no-worker", "worker-on-another-queue"])
def test_it_answers_503_without_a_worker_on_the_run_queue(worker_elsewhere):
    env = _celery_env()

    if worker_elsewhere:
        elsewhere = {**env, "CELERY_QUEUE": private_queue()}
        with celery_worker(elsewhere):
            _worker_consuming(elsewhere)
            response = _healthz(env)
    else:
        response = _healthz(env)

    checks = _checks(response, 503)
    _assert_up(checks["database"])
    _assert_up(checks["redis"])
    assert (checks["worker"]["ok"], checks["worker"]["error"]) == (False, NO_WORKER)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("execution", ["celery", "embedded"])
def test_it_answers_503_when_redis_is_down_and_shows_neither_host_nor_password(execution):
    env = _env(
        REDIS_URL=f"redis://:{PASSWORD}@127.0.0.1:{free_port()}/0",
        RUN_EXECUTION=execution,
        CELERY_QUEUE=private_queue(),
    )

    response = _healthz(env)

    checks = _checks(response, 503)
    _assert_up(checks["database"])
    assert checks["redis"]["ok"] is False
    assert checks["redis"]["error"] == "ConnectionError"
    if execution == "celery":
        assert checks["worker"] == {"ok": False, "latency_ms": 0, "error": "not asked: its broker (redis) is down"}
    else:
        _assert_up(checks["worker"])
    assert checks["reaper"] == {"ok": False, "latency_ms": 0, "error": "not asked: its cache (redis) is down"}
    assert PASSWORD not in response.text
    assert "127.0.0.1" not in response.text


def test_it_answers_503_when_the_database_is_down():
    env = _env(DATABASE_URL=f"mysql://superbiz:{PASSWORD}@127.0.0.1:{free_port()}/superbiz", RUN_EXECUTION="embedded")
    env.pop("REDIS_URL", None)

    response = _healthz(env)

    checks = _checks(response, 503)
    assert checks["database"]["ok"] is False
    assert checks["database"]["error"] == "OperationalError"
    _assert_up(checks["worker"])
    assert PASSWORD not in response.text
    assert "127.0.0.1" not in response.text


@pytest.mark.django_db(transaction=True)
def test_the_reaper_passes_while_every_worker_is_busy(tmp_path):
    """Sent as a task, a pass waited behind the runs in their queue and expired there: under a backlog no
    worker_lost run was ever ended. Made by beat itself, it does not wait for a worker."""
    env = _celery_env(LLM_PROVIDER="scripted", LLM_SCRIPT_PATH=str(stuck_planner(tmp_path, 15)))
    _, headers = login("healthz-busy")

    with celery_worker(env), uvicorn_server(env) as server:
        run_id = submit(server.base, headers, "payment-service p99 latency tripled since 10:05, why?")["run_id"]
        wait_for_node(run_id, "planner")  # the only worker's only process is held for 15 s
        with celery_beat(env, tmp_path / "celerybeat-schedule"):
            deadline = time.monotonic() + 30
            while not (reaper_check := httpx.get(f"{server.base}/healthz", timeout=30).json()["checks"]["reaper"])[
                "ok"
            ]:
                assert time.monotonic() < deadline, reaper_check
                time.sleep(0.2)

    # The busy solo worker answers no ping meanwhile (its check fails): the reaper did not wait for it.
    _assert_up(reaper_check)
