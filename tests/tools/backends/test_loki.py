"""query_logs on Loki, against a loopback stub answering Loki's documented JSON (no Loki server exists here)."""

from __future__ import annotations

import gzip
import math
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.loki_stub import LokiStub, count, running_loki_stub, streams
from tests.tools.conftest import TINY_PACK
from tools.backends import log_backend
from tools.backends.embedded import EmbeddedLogBackend
from tools.backends.http_json import HttpEndpoint
from tools.backends.loki import LokiLogBackend, nanoseconds
from tools.definitions.logs import project
from tools.errors import ToolBackendError, ToolInputError
from tools.harness import ToolHarness
from tools.models import InvocationStatus, LogRecord
from tools.scenarios.loader import load_scenario
from tools.scenarios.pack import PackError

START = datetime(2026, 10, 14, 9, 30, tzinfo=UTC)
END = datetime(2026, 10, 14, 10, 30, tzinfo=UTC)
INJECTION = 'x"} or vector(1) #'
RANGE = "/loki/api/v1/query_range"
COUNT = "/loki/api/v1/query"


@pytest.fixture
def loki() -> Iterator[LokiStub]:
    with running_loki_stub() as stub:
        stub.answers[COUNT] = (200, count(None))
        stub.answers[RANGE] = (200, streams())
        yield stub


def backend(url: str) -> LokiLogBackend:
    endpoint = HttpEndpoint(name=f"Loki at {url}", base_url=url, headers=(("X-Scope-OrgID", "team-a"),))
    return LokiLogBackend(endpoint, service_label="service", deadline=time.monotonic() + 10)


def query(url: str, **overrides):
    arguments = {"service": "api", "level": None, "contains": None, "start": START, "end": END, "limit": 10}
    return backend(url).query(**(arguments | overrides))


def ns(minute: int, second: int = 0, microsecond: int = 0) -> int:
    return nanoseconds(datetime(2026, 10, 14, 9, minute, second, microsecond, tzinfo=UTC))


def test_streams_become_records_oldest_first_with_their_labels(loki):
    loki.answers[RANGE] = (
        200,
        streams(
            ({"service": "api", "level": "error", "host": "api-1"}, [(ns(35, 1, 250), "pool exhausted")]),
            ({"service": "api", "level": "INFO", "host": "api-2"}, [(ns(31), "started"), (ns(40), "ready")]),
        ),
    )
    loki.answers[COUNT] = (200, count(7))

    payload = query(loki.url)

    assert payload == {
        "records": [
            {"ts": "2026-10-14T09:31:00Z", "service": "api", "level": "INFO", "message": "started", "host": "api-2"},
            {
                "ts": "2026-10-14T09:35:01.000250Z",
                "service": "api",
                "level": "ERROR",
                "message": "pool exhausted",
                "host": "api-1",
            },
            {"ts": "2026-10-14T09:40:00Z", "service": "api", "level": "INFO", "message": "ready", "host": "api-2"},
        ],
        "total": 7,
        "truncated": True,
    }


def test_a_label_named_like_a_core_field_never_replaces_it(loki):
    labels = {"service": "api", "level": "error", "message": "all good", "ts": "1970-01-01T00:00:00Z", "host": "a"}
    loki.answers[RANGE] = (200, streams((labels, [(ns(35), "pool exhausted")])))

    (record,) = query(loki.url)["records"]

    assert record == {
        "ts": "2026-10-14T09:35:00Z",
        "service": "api",
        "level": "ERROR",
        "message": "pool exhausted",
        "host": "a",
    }


def test_the_request_carries_the_window_limit_direction_and_tenant(loki):
    query(loki.url, direction="backward", limit=5, level="warn")

    sent = loki.received[0]
    assert (sent.method, sent.path) == ("GET", RANGE)
    assert sent.params == {
        "query": '{service="api", level=~"(?i)warn"}',
        "start": str(nanoseconds(START)),
        "end": str(nanoseconds(END)),
        "limit": "5",
        "direction": "backward",
    }
    assert sent.headers["x-scope-orgid"] == "team-a"
    assert loki.received[1].params == {
        "query": 'sum(count_over_time({service="api", level=~"(?i)warn"} [3600000ms]))',
        # (time - 3600000ms, time]: a nanosecond before END it is the listing's [START, END).
        "time": str(nanoseconds(END) - 1),
    }


def test_a_level_matches_in_any_case_and_only_as_text(loki):
    # promtail and OpenTelemetry pipelines label "error", a pack pushed by load_scenario "ERROR".
    query(loki.url, level="Error.*")

    assert loki.queries()[0] == r'{service="api", level=~"(?i)Error\\.\\*"}'


def test_nothing_matched_is_an_empty_untruncated_payload(loki):
    assert query(loki.url) == {"records": [], "total": 0, "truncated": False}


def test_a_quote_in_the_service_is_escaped(loki):
    query(loki.url, service=INJECTION)

    assert loki.queries()[0] == '{service="x\\"} or vector(1) #"}'


def test_contains_is_a_literal_case_insensitive_line_filter(loki):
    query(loki.url, contains='a |~ ".*" | b')

    # RE2 metacharacters backslash-escaped, then the pattern escaped as a LogQL string.
    assert loki.queries()[0] == r'{service="api"} |~ "(?i)a \\|~ \"\\.\\*\" \\| b"'


@pytest.mark.parametrize("field", ["service", "level", "contains"])
def test_control_characters_are_refused_before_anything_is_sent(loki, field):
    with pytest.raises(ToolInputError, match="control characters"):
        query(loki.url, **{field: 'x"}\n{service=~".+"}'})
    assert loki.received == []


def test_an_answer_past_the_bound_is_not_read_to_its_end(loki, monkeypatch):
    # A wrong URL serving an export: the worker must not hold all of it in memory.
    monkeypatch.setattr("tools.backends.http_json.MAX_RESPONSE_BYTES", 1000)
    loki.answers[RANGE] = (200, streams(({"service": "api"}, [(ns(1), "x" * 2000)])))

    with pytest.raises(ToolBackendError, match="over 1000 bytes"):
        query(loki.url)


@pytest.fixture
def gzip_bomb() -> Iterator[str]:
    """A server answering a kilobyte of nested gzip that inflates to megabytes, whatever it was asked."""
    inner = gzip.compress(gzip.compress(b"[" + b" " * 50_000_000 + b"]"))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip, gzip")
            self.send_header("Content-Length", str(len(inner)))
            self.end_headers()
            self.wfile.write(inner)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_compressed_answer_is_refused_unread(gzip_bomb):
    # httpx would inflate it chunk by chunk with no bound before the body could be counted.
    with pytest.raises(ToolBackendError, match=r"compressed \(gzip, gzip\)"):
        query(gzip_bomb)


def test_a_lone_surrogate_is_refused_before_anything_is_sent(loki):
    # Valid JSON from the model ("\\ud800"), but no UTF-8 request can carry it.
    with pytest.raises(ToolInputError, match="surrogate"):
        query(loki.url, contains="x\ud800")
    assert loki.received == []


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            (400, {"status": "error", "errorType": "bad_data", "error": "parse error"}),
            "HTTP 400: bad_data: parse error",
        ),
        ((500, b"too many outstanding requests"), "HTTP 500: too many outstanding requests"),
        ((200, b"<html>proxy</html>"), "not a JSON object"),
        (
            (200, {"status": "success", "data": {"resultType": "matrix", "result": []}}),
            "did not answer successful streams",
        ),
        ((200, streams(({"service": "api"}, [("not-a-time", "line")]))), "malformed entry"),
        ((200, streams(({"service": "api"}, [(10**30, "line")]))), "malformed entry"),
        # An entry outside the window asked for, or one that is no line of text.
        ((200, streams(({"service": "api"}, [(ns(29, 59), "line")]))), "malformed entry"),
        ((200, streams(({"service": "api"}, [(nanoseconds(END), "line")]))), "malformed entry"),
        ((200, streams(({"service": "api"}, [(ns(35), 12345)]))), "malformed entry"),
        ((200, streams(({"service": "api"}, [(ns(35), None)]))), "malformed entry"),
        # NaN outside a string is no JSON: no payload could hold it.
        ((200, streams(({"service": "api", "x": math.nan}, [(ns(35), "line")]))), "not a JSON object"),
        (
            (200, {"status": "success", "data": {"resultType": "streams", "result": [{"stream": {}, "values": [{}]}]}}),
            "malformed entry",
        ),
        ((200, {"status": "error", "errorType": "execution", "error": "boom"}), "successful streams: execution: boom"),
        ((200, b"[" * 100_000 + b"]" * 100_000), "not a JSON object"),
    ],
)
def test_error_shapes_are_backend_errors_with_a_clear_message(loki, answer, message):
    loki.answers[RANGE] = answer
    with pytest.raises(ToolBackendError, match=message):
        query(loki.url)


@pytest.mark.parametrize("total", ["+Inf", "1e400", "-3", "NaN"])
def test_a_count_that_is_no_count_is_a_backend_error(loki, total):
    loki.answers[COUNT] = (
        200,
        {"status": "success", "data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, total]}]}},
    )

    with pytest.raises(ToolBackendError, match="malformed count"):
        query(loki.url)


def test_warnings_of_a_partial_answer_reach_the_model_first(loki):
    loki.answers[RANGE] = (
        200,
        {**streams(({"service": "api"}, [(ns(35), "pool exhausted")])), "warnings": ["querier q-2 down"]},
    )
    loki.answers[COUNT] = (200, {**count(1), "warnings": ["querier q-2 down", "index gateway slow"]})

    payload = query(loki.url)

    assert payload["warnings"] == ["querier q-2 down", "index gateway slow"]
    assert next(iter(project(payload, 2000))) == "warnings"


@pytest.mark.django_db
def test_through_the_harness_a_line_no_json_can_hold_is_a_failed_call(settings, run, loki):
    """A lone surrogate (``\\ud800`` in Loki's JSON) reads into Python but into no stored payload."""
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = loki.url
    loki.answers[RANGE] = (200, streams(({"service": "api"}, [(ns(35), "bad \ud800 line")])))
    arguments = {"service": "api", "start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:00:00Z", "limit": 10}

    result = ToolHarness(run.id).call("query_logs", arguments)

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "backend_bad_response")


@pytest.mark.django_db
def test_a_limit_written_as_a_whole_float_is_the_integer(settings, run, loki):
    """JSON Schema's integer includes 10.0, and models send it."""
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = loki.url
    arguments = {"service": "api", "start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:00:00Z", "limit": 10.0}

    result = ToolHarness(run.id).call("query_logs", arguments)

    assert result.status == InvocationStatus.READY
    assert loki.received[0].params["limit"] == "10"


@pytest.mark.django_db
def test_through_the_harness_a_loki_error_is_a_failed_call(settings, run, loki):
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = loki.url
    loki.answers[RANGE] = (503, {"status": "error", "errorType": "unavailable", "error": "ingester down"})
    arguments = {"service": "api", "start": "2026-10-14T09:30:00Z", "end": "2026-10-14T10:00:00Z", "limit": 10}

    result = ToolHarness(run.id).call("query_logs", arguments)

    assert (result.status, result.error_code) == (InvocationStatus.FAILED, "backend_error")
    assert "ingester down" in result.projection["error"]


def test_the_factory_builds_the_loki_backend_from_settings(settings):
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = "https://loki.example"
    settings.LOKI_TENANT_ID = "team-b"
    settings.LOKI_SERVICE_LABEL = "app"

    chosen = log_backend(deadline=math.inf)

    assert isinstance(chosen, LokiLogBackend)
    assert chosen.service_label == "app"
    assert chosen.endpoint.client_headers() == {"X-Scope-OrgID": "team-b"}


def as_loki_answers(pushed: list[dict], service: str) -> dict:
    """What Loki answers for ``{service=...}`` after this push: structured metadata folded into the labels."""
    answered = []
    for stream in pushed:
        if stream["stream"]["service"] != service:
            continue
        for stamp, line, metadata in stream["values"]:
            answered.append((stream["stream"] | metadata, [(int(stamp), line)]))
    return streams(*answered)


@pytest.mark.django_db
def test_a_pushed_pack_reads_back_as_the_embedded_backend_reads_it(settings, loki, business_sqlite):
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = loki.url
    loki.answers["/loki/api/v1/push"] = (204, None)
    load_scenario(TINY_PACK)
    pushed = [stream for request in loki.received for stream in request.body["streams"]]
    loki.answers[RANGE] = (200, as_loki_answers(pushed, "checkout-service"))
    checkout = [
        value for stream in pushed if stream["stream"]["service"] == "checkout-service" for value in stream["values"]
    ]
    loki.answers[COUNT] = (200, count(len(checkout)))
    arguments = {
        "service": "checkout-service",
        "level": None,
        "contains": None,
        "start": datetime(2024, 5, 1, 10, tzinfo=UTC),
        "end": datetime(2024, 5, 1, 11, tzinfo=UTC),
        "limit": 100,
    }

    embedded = EmbeddedLogBackend().query(**arguments)

    assert embedded["records"]
    assert sum(len(stream["values"]) for stream in pushed) == LogRecord.objects.count()
    assert backend(loki.url).query(**arguments) == embedded


@pytest.mark.django_db
def test_a_refused_push_leaves_the_loaded_scenario(settings, loki, loaded, tiny_pack):
    settings.LOGS_BACKEND = "loki"
    settings.LOKI_URL = loki.url
    loki.answers["/loki/api/v1/push"] = (400, {"status": "error", "error": "entry too far behind"})
    before = list(LogRecord.objects.values_list("message", flat=True))

    with pytest.raises(PackError, match=r"logs\.jsonl: pushing to Loki failed: .*entry too far behind"):
        load_scenario(tiny_pack)

    assert list(LogRecord.objects.values_list("message", flat=True)) == before
