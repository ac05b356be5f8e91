"""query_metrics on a real Prometheus (Debian's 2.42 on loopback), backfilled with a shipped pack's metrics."""

from __future__ import annotations

import math
import re
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from tests.services import require
from tests.support.loki_stub import LokiStub, running_loki_stub
from tests.support.ports import free_port
from tests.support.prometheus import running_prometheus
from tests.support.silent_server import running_silent_server, running_trickling_server
from tools.backends import metric_backend
from tools.backends.embedded import EmbeddedMetricBackend
from tools.backends.http_json import HttpEndpoint
from tools.backends.prometheus import PrometheusMetricBackend
from tools.backends.promql import selector
from tools.definitions.metrics import project
from tools.errors import ToolBackendError, ToolInputError, ToolTimeout
from tools.harness import ToolHarness
from tools.models import InvocationStatus, MetricPoint
from tools.scenarios.pack import read_pack, resolve_pack
from tools.scenarios.prometheus_backfill import backfill

PACK = read_pack(resolve_pack("payment-db-pool"))
START = datetime(2026, 10, 14, 9, 30, tzinfo=UTC)
END = datetime(2026, 10, 14, 10, 46, tzinfo=UTC)
INJECTION = 'x"} or vector(1) #'
RANGE = "/api/v1/query_range"


# Series a pack cannot hold: pods of one service, one of them exporting a NaN (a summary's quantile with
# nothing observed) and two an infinity (a ratio over zero), and a metric named like a PromQL keyword.
EXTRA = datetime(2026, 10, 15, 10, 0, tzinfo=UTC)
EXTRA_SERIES = f"""# TYPE queue_wait_seconds gauge
queue_wait_seconds{{service="worker",pod="a"}} NaN {EXTRA.timestamp():.3f}
queue_wait_seconds{{service="worker",pod="a"}} 4 {EXTRA.timestamp() + 10:.3f}
queue_wait_seconds{{service="worker",pod="b"}} 2 {EXTRA.timestamp() + 5:.3f}
queue_wait_seconds{{service="worker",pod="b"}} 6 {EXTRA.timestamp() + 65:.3f}
queue_wait_seconds{{service="worker",pod="c"}} +Inf {EXTRA.timestamp() + 5:.3f}
queue_wait_seconds{{service="worker",pod="d"}} -Inf {EXTRA.timestamp() + 70:.3f}
# TYPE inf gauge
inf{{service="worker"}} 3 {EXTRA.timestamp() + 5:.3f}
# EOF
"""


@pytest.fixture(scope="module")
def prometheus_url(tmp_path_factory) -> Iterator[str]:
    require("prometheus")
    folder = tmp_path_factory.mktemp("prometheus")
    data = folder / "tsdb"
    backfill(PACK.metrics, data, service_label="service")
    (folder / "extra.om").write_text(EXTRA_SERIES)
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(folder / "extra.om"), str(data)],
        check=True,
        capture_output=True,
    )
    with running_prometheus(data) as url:
        yield url


def backend(url: str, *, seconds: float = 10) -> PrometheusMetricBackend:
    """The backend of a call with ``seconds`` left before its deadline."""
    endpoint = HttpEndpoint(name=f"Prometheus at {url}", base_url=url)
    return PrometheusMetricBackend(endpoint, service_label="service", deadline=time.monotonic() + seconds)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("service", "metric", "step"),
    [
        ("payment-service", "p99_latency_ms", 60),
        ("api-gateway", "http_5xx_rate", 300),
        ("fraud-check-service", "cpu_percent", 420),
    ],
)
def test_it_answers_the_payload_the_embedded_backend_answers(prometheus_url, service, metric, step):
    MetricPoint.objects.bulk_create(
        MetricPoint(ts=sample.ts, service=sample.service, metric=sample.metric, value=sample.value)
        for sample in PACK.metrics
    )
    arguments = {"service": service, "metric": metric, "start": START, "end": END, "step": step}
    embedded = EmbeddedMetricBackend().query(**arguments)

    assert embedded["series"][0]["points"]
    assert backend(prometheus_url).query(**arguments) == embedded


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("end", "step"),
    [
        (datetime(2026, 10, 14, 10, 3, tzinfo=UTC), 3600),  # one step, shorter than asked, before the onset
        (datetime(2026, 10, 14, 10, 7, 30, tzinfo=UTC), 300),  # whole steps, then half of one
        (datetime(2026, 10, 14, 10, 5, 0, 1000, tzinfo=UTC), 60),  # the last step one millisecond long
    ],
)
def test_a_last_partial_step_ends_with_the_window_as_embedded(prometheus_url, end, step):
    """Its range was a whole step: a baseline up to 10:03 averaged db_pool_pending of the incident after it."""
    MetricPoint.objects.bulk_create(
        MetricPoint(ts=sample.ts, service=sample.service, metric=sample.metric, value=sample.value)
        for sample in PACK.metrics
    )
    arguments = {"service": "payment-service", "metric": "db_pool_pending", "start": START, "end": end, "step": step}
    embedded = EmbeddedMetricBackend().query(**arguments)

    assert embedded["series"][0]["points"]
    assert backend(prometheus_url).query(**arguments) == embedded


def test_an_unknown_series_is_an_empty_payload(prometheus_url):
    payload = backend(prometheus_url).query(service="payment-service", metric="nope", start=START, end=END, step=60)
    assert payload == {"series": []}


def test_a_quote_in_the_service_is_escaped_so_the_injected_vector_matches_nothing(prometheus_url):
    # Unescaped, `or vector(1)` would answer a point at every step.
    payload = backend(prometheus_url).query(service=INJECTION, metric="cpu_percent", start=START, end=END, step=60)
    assert payload == {"series": []}
    assert selector("cpu_percent", "service", INJECTION) == '{__name__="cpu_percent", service="x\\"} or vector(1) #"}'


def test_a_nan_or_infinite_sample_leaves_out_its_series_step_not_the_other_series(prometheus_url):
    payload = backend(prometheus_url).query(
        service="worker", metric="queue_wait_seconds", start=EXTRA, end=EXTRA + timedelta(minutes=2), step=60
    )

    # Pod a's first minute averages to NaN, pod c's to +Inf, pod d's second to -Inf: each is left out of
    # its minute; pod b's samples still make the points.
    assert payload["series"][0]["points"] == [
        {"ts": "2026-10-15T10:00:00Z", "value": 2.0},
        {"ts": "2026-10-15T10:01:00Z", "value": 6.0},
    ]


def test_a_metric_named_like_a_promql_keyword_is_queried_by_its_name(prometheus_url):
    payload = backend(prometheus_url).query(
        service="worker", metric="inf", start=EXTRA, end=EXTRA + timedelta(minutes=1), step=60
    )

    assert payload["series"][0]["points"] == [{"ts": "2026-10-15T10:00:00Z", "value": 3.0}]


@pytest.fixture
def stub() -> Iterator[LokiStub]:
    with running_loki_stub() as server:
        yield server


def matrix(*values: list) -> dict:
    return {"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {}, "values": list(values)}]}}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            {"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {}, "values": None}]}},
            "without a list",
        ),
        (matrix(["+Inf", "1"]), "malformed point"),
        (matrix([1e20, "1"]), "not asked for"),
        # Points where none was asked (a cache that moved the range, a proxy's other answer), or twice.
        (matrix([1791970260.0, "1"]), "not asked for"),  # a millisecond after the first step's evaluation
        (matrix([1791970259.999, "1"], [1791970259.999, "2"]), "not asked for"),
        (matrix([1791970319.999, "1"], [1791970259.999, "2"]), "not asked for"),  # out of order
        (matrix([-62135596800, "1"]), "not asked for"),  # the year 1: no date to stamp it with
        # NaN outside a string is no JSON (Prometheus writes "NaN"): no payload could hold it.
        ({**matrix([1791970259.999, "1"]), "warnings": [math.nan]}, "not a JSON object"),
        ({"status": "error", "errorType": "execution", "error": "boom"}, "successful matrix: execution: boom"),
    ],
)
def test_answers_no_prometheus_should_give_are_backend_errors(stub, answer, message):
    stub.answers[RANGE] = (200, answer)
    with pytest.raises(ToolBackendError, match=message) as raised:
        backend(stub.url).query(service="api", metric="up", start=START, end=END, step=60)
    assert raised.value.code == "backend_bad_response"


def test_a_partial_answer_carries_its_warnings_to_the_model(stub):
    warnings = ["partial response: store b down", "x" * 2000]
    stub.answers[RANGE] = (200, {**matrix([1791970319.999, "2"]), "warnings": warnings})

    payload = backend(stub.url).query(service="api", metric="up", start=START, end=END, step=60)

    assert payload["warnings"] == ["partial response: store b down", "x" * 500]  # a warning is no dump
    assert project(payload, 2000)["warnings"] == payload["warnings"]
    assert stub.received[0].body["query"].startswith('sum(sum_over_time({__name__="up", service="api"}[60s]) unless')
    assert payload["series"][0]["points"] == [{"ts": "2026-10-14T09:31:00Z", "value": 2.0}]
    # VictoriaMetrics would otherwise move the range's times to its cache's grid, which the points refuse.
    assert stub.received[0].body["nocache"] == "1"


def test_a_small_value_is_kept_to_six_significant_digits_and_no_zero_is_negative(stub):
    """An error ratio of 4e-7 is not zero, and -0.0 would be cited as a negative."""
    stub.answers[RANGE] = (200, matrix([1791970259.999, "0.00000041234567"], [1791970319.999, "-0.0000000"]))

    payload = backend(stub.url).query(service="api", metric="up", start=START, end=END, step=60)

    assert [point["value"] for point in payload["series"][0]["points"]] == [4.12346e-07, 0.0]
    assert math.copysign(1, payload["series"][0]["points"][1]["value"]) == 1


def test_a_redirect_is_a_backend_error_naming_where_without_its_credentials(stub):
    location = "https://user:secret@10.255.255.1/prometheus/api/v1/query_range?token=abc"
    stub.answers[RANGE] = (302, matrix([1791970259.999, "7"]), {"Location": location})

    with pytest.raises(
        ToolBackendError, match=re.escape("redirect to https://10.255.255.1/prometheus/api/v1/query_range:")
    ) as raised:
        backend(stub.url).query(service="api", metric="up", start=START, end=END, step=60)

    assert raised.value.code == "backend_error" and "secret" not in raised.value.message
    assert "abc" not in raised.value.message


@pytest.mark.parametrize("service", ["api\n} or vector(1)", "api\r", "api\x00"])
def test_control_characters_in_the_service_are_refused(service):
    with pytest.raises(ToolInputError, match="control characters"):
        backend("http://127.0.0.1:9").query(service=service, metric="cpu_percent", start=START, end=END, step=60)


@pytest.mark.parametrize("metric", ["cpu_percent{}", "up or vector(1)", "1up", "cpu-percent"])
def test_a_metric_that_is_not_a_metric_name_is_refused(metric):
    with pytest.raises(ToolInputError, match="not a Prometheus metric name"):
        backend("http://127.0.0.1:9").query(service="api", metric=metric, start=START, end=END, step=60)


def test_a_query_prometheus_refuses_is_a_backend_error_with_its_message(prometheus_url):
    # More than Prometheus' 11,000 points per series (4 hours of 1s steps): it answers 400 bad_data.
    end = START + timedelta(hours=4)
    with pytest.raises(ToolBackendError, match="HTTP 400: bad_data: exceeded maximum resolution") as raised:
        backend(prometheus_url).query(service="api-gateway", metric="cpu_percent", start=START, end=end, step=1)
    assert raised.value.code == "backend_error"


def test_a_prometheus_that_is_down_is_a_backend_error():
    with pytest.raises(ToolBackendError, match="could not be reached") as raised:
        backend(f"http://127.0.0.1:{free_port()}").query(service="api", metric="up", start=START, end=END, step=60)
    assert raised.value.code == "backend_unavailable"


@pytest.fixture
def silent_server() -> Iterator[str]:
    with running_silent_server() as url:
        yield url


def test_a_silent_prometheus_is_cut_off_at_the_call_deadline(silent_server):
    with pytest.raises(ToolTimeout, match="did not answer"):
        backend(silent_server, seconds=0.5).query(service="api", metric="up", start=START, end=END, step=60)


def test_a_prometheus_trickling_its_answer_is_cut_off_at_the_call_deadline():
    """A byte every 50 ms: no read ever times out, the call's deadline must."""
    started = time.monotonic()
    with running_trickling_server() as url, pytest.raises(ToolTimeout, match="did not answer"):
        backend(url, seconds=0.5).query(service="api", metric="up", start=START, end=END, step=60)

    assert time.monotonic() - started < 3


@pytest.mark.django_db
def test_through_the_harness_a_hung_prometheus_is_a_failed_call(settings, run, silent_server):
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_URL = silent_server
    settings.TOOL_TIMEOUT_SECONDS = 0.5
    arguments = {
        "service": "api",
        "metric": "up",
        "start": "2026-10-14T09:30:00Z",
        "end": "2026-10-14T10:00:00Z",
        "step": 60,
    }

    result = ToolHarness(run.id).call("query_metrics", arguments)

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "timeout")
    assert "did not answer" in result.projection["error"]


def test_the_factory_builds_the_prometheus_backend_from_settings(settings):
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_URL = "https://prometheus.example"
    settings.PROMETHEUS_SERVICE_LABEL = "app"
    settings.PROMETHEUS_BEARER_TOKEN = "secret"
    settings.PROMETHEUS_TENANT_ID = "team-a"

    chosen = metric_backend(deadline=math.inf)

    assert isinstance(chosen, PrometheusMetricBackend)
    assert chosen.service_label == "app"
    assert chosen.endpoint.client_headers() == {"Authorization": "Bearer secret", "X-Scope-OrgID": "team-a"}
    assert chosen.endpoint.verify_tls


def test_basic_auth_and_no_tenant_by_default(settings):
    settings.METRICS_BACKEND = "prometheus"
    settings.PROMETHEUS_URL = "https://prometheus.example"
    settings.PROMETHEUS_USERNAME = "12345"
    settings.PROMETHEUS_PASSWORD = "token"

    chosen = metric_backend(deadline=math.inf)

    assert isinstance(chosen, PrometheusMetricBackend)
    assert chosen.endpoint.client_headers() == {}
    assert chosen.endpoint.auth() is not None
