"""A finished alert run's answer posted to the sinks: formats, links, retries with backoff, one delivery."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.test import Client
from django.utils import timezone

from alerts import delivery, receivers
from alerts.models import DeliveryStatus, NotificationDelivery
from alerts.sinks import BODIES, WECOM_CONTENT_BYTES
from alerts.tasks import deliver_run_notification
from diagnosis import dispatch
from diagnosis.failures import FailureCode
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.services import RunResult, run_fail, run_finish
from tests.alerts.conftest import alertmanager_payload
from tests.support.live import closed_port
from tests.support.run_pool import stand_in_run_pool
from tests.support.silent_server import running_trickling_server
from tests.support.sink_server import running_sink

pytestmark = pytest.mark.django_db

BASE = "https://superbiz.example.com"
ANSWER = "payment-service's HikariPool is exhausted [C1]."
OK_BODIES = {"webhook": {}, "slack": {}, "wecom": {"errcode": 0}, "dingtalk": {"errcode": 0}, "feishu": {"code": 0}}


@pytest.fixture
def alert_run(intake, dispatched) -> DiagnosisRun:
    """A RUNNING run an alert started, claimed by a worker (not executed)."""
    run_id = intake(alertmanager_payload()).json()["run_id"]
    DiagnosisRun.objects.filter(pk=run_id).update(claimed_at=timezone.now())
    return DiagnosisRun.objects.select_related("session").get(pk=run_id)


@pytest.fixture
def handed_on(monkeypatch) -> list[tuple]:
    """Delivery tasks the run_ended receiver handed to the executor (not executed)."""
    calls: list[tuple] = []
    monkeypatch.setattr(receivers, "submit_task", lambda task, *args: calls.append((task.name, *args)))
    return calls


def finish(run: DiagnosisRun, capture) -> DiagnosisRun:
    with capture(execute=True):
        run_finish(run, RunResult(final_answer=ANSWER, effective_verdict="PASS"))
    run.refresh_from_db()
    return run


def deliver(run: DiagnosisRun, sink: str) -> None:
    deliver_run_notification.apply(args=(str(run.pk), sink))


def attempts(run: DiagnosisRun, sink: str) -> list[tuple]:
    rows = NotificationDelivery.objects.filter(run=run, sink=sink).order_by("attempt", "pk")
    return list(rows.values_list("attempt", "status", "http_status", "error"))


def test_every_configured_sink_gets_a_delivery_when_an_alert_run_ends(
    settings, alert_run, handed_on, django_capture_on_commit_callbacks
):
    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"slack": "http://127.0.0.1:9/a", "feishu": "http://127.0.0.1:9/b"}

    finish(alert_run, django_capture_on_commit_callbacks)

    assert handed_on == [
        ("alerts.deliver_run_notification", str(alert_run.pk), "slack"),
        ("alerts.deliver_run_notification", str(alert_run.pk), "feishu"),
    ]


def test_a_failed_alert_run_is_announced_too(settings, alert_run, handed_on, django_capture_on_commit_callbacks):
    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"webhook": "http://127.0.0.1:9/a"}

    with django_capture_on_commit_callbacks(execute=True):
        run_fail(alert_run, reason=FailureCode.TIME_LIMIT)

    assert handed_on == [("alerts.deliver_run_notification", str(alert_run.pk), "webhook")]


def test_runs_no_alert_started_and_deployments_without_sinks_send_nothing(
    settings, owner, alert_run, handed_on, django_capture_on_commit_callbacks
):
    from diagnosis.models import ChatSession

    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"webhook": "http://127.0.0.1:9/a"}
    chat_run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner), query="why slow?")
    finish(chat_run, django_capture_on_commit_callbacks)
    settings.ALERT_SINK_URLS = {}
    finish(alert_run, django_capture_on_commit_callbacks)

    assert handed_on == []


def test_a_receiver_that_fails_never_affects_the_run(
    settings, alert_run, monkeypatch, django_capture_on_commit_callbacks
):
    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"webhook": "http://127.0.0.1:9/a"}

    def broker_down(task, *args):
        raise ConnectionError("the broker went away")

    monkeypatch.setattr(receivers, "submit_task", broker_down)
    published: list[str] = []
    monkeypatch.setattr("diagnosis.sse.announce", lambda rows: published.extend(row.stream_event for row in rows))

    run = finish(alert_run, django_capture_on_commit_callbacks)

    assert (run.status, run.final_answer) == (RunStatus.SUCCESS, ANSWER)
    assert published == ["content", "done"]


def test_a_broker_that_cannot_take_a_delivery_leaves_a_failed_row_for_every_sink(
    settings, alert_run, monkeypatch, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError

    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"slack": "http://127.0.0.1:9/a", "feishu": "http://127.0.0.1:9/b"}
    tried: list[str] = []

    def broker_down(task, run_id, sink):
        tried.append(sink)
        raise OperationalError("Error 111 connecting to redis://:secret@broker:6379")

    monkeypatch.setattr(receivers, "submit_task", broker_down)

    run = finish(alert_run, django_capture_on_commit_callbacks)

    assert run.status == RunStatus.SUCCESS
    assert tried == ["slack", "feishu"]
    for sink in tried:
        assert attempts(run, sink) == [(0, "FAILED", None, "not queued: OperationalError")]


def test_the_retries_of_a_delivery_on_workers_can_outlast_a_robots_ten_minute_block():
    """DingTalk blocks a robot for 10 minutes once it sent too fast; waits of up to 1, 2, 4... s gave up in 31."""
    from celery.utils.time import get_exponential_backoff_interval

    task = deliver_run_notification
    longest = [
        get_exponential_backoff_interval(task.retry_backoff, retry, task.retry_backoff_max, False)
        for retry in range(task.max_retries)
    ]

    assert longest[0] == 30
    assert max(longest) == 600
    assert sum(longest) / 2 > 10 * 60  # on average too, with Celery's full jitter


def chat_text(sink: str, body: dict) -> str:
    """The text a chat-ops sink shows of ``body``."""
    return {
        "slack": lambda: body["text"],
        "wecom": lambda: body["markdown"]["content"],
        "dingtalk": lambda: body["markdown"]["text"],
        "feishu": lambda: body["content"]["text"],
    }[sink]()


@pytest.mark.parametrize("sink", sorted(BODIES))
def test_each_format_carries_the_answer_and_links_to_the_run_and_its_trace(settings, alert_run, sink):
    settings.PUBLIC_BASE_URL = BASE
    run = alert_run
    run_finish(run, RunResult(final_answer=ANSWER, effective_verdict="PASS"))
    run_url = f"{BASE}/admin/diagnosis/diagnosisrun/{run.pk}/change/"
    trace_url = f"{BASE}/api/diagnosis/{run.session_id}/trace?runId={run.pk}"

    with running_sink(then=(200, OK_BODIES[sink])) as server:
        settings.ALERT_SINK_URLS = {sink: server.url}
        deliver(run, sink)
        [body] = server.received

    assert attempts(run, sink) == [(1, DeliveryStatus.DELIVERED, 200, "")]
    if sink == "webhook":
        assert body["event"] == "diagnosis.finished"
        assert (body["run_id"], body["session_id"], body["outcome"]) == (str(run.pk), str(run.session_id), "SUCCESS")
        assert (body["answer_markdown"], body["alertname"]) == (ANSWER, "PaymentLatencyHigh")
        assert (body["run_url"], body["trace_url"]) == (run_url, trace_url)
        return
    text = chat_text(sink, body)
    assert ANSWER in text
    assert "Diagnosis SUCCESS: PaymentLatencyHigh" in text
    assert run_url in text and trace_url in text
    expected_keys = {
        "slack": {"text"},
        "wecom": {"msgtype", "markdown"},
        "dingtalk": {"msgtype", "markdown"},
        "feishu": {"msg_type", "content"},
    }[sink]
    assert set(body) == expected_keys
    if sink == "dingtalk":
        assert body["markdown"]["title"] == "Diagnosis SUCCESS: PaymentLatencyHigh"


def test_a_sink_answering_500_then_200_is_retried_and_delivered_once(settings, alert_run):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))

    with running_sink((500, {"error": "busy"})) as server:
        settings.ALERT_SINK_URLS = {"webhook": server.url}
        deliver(alert_run, "webhook")
        deliver(alert_run, "webhook")  # a redelivered task message: the sink already has the answer
        bodies = list(server.received)

    assert len(bodies) == 2
    assert bodies[0] == bodies[1]
    assert attempts(alert_run, "webhook") == [
        (1, DeliveryStatus.FAILED, 500, "HTTP 500"),
        (2, DeliveryStatus.DELIVERED, 200, ""),
    ]
    alert_run.refresh_from_db()
    assert alert_run.status == RunStatus.SUCCESS


def test_a_sink_answering_more_than_a_robot_would_is_not_read_and_retried(settings, alert_run, monkeypatch):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))
    monkeypatch.setattr(delivery, "SINK_RESPONSE_BYTES", 8)

    with running_sink(then=(200, {"ok": True, "padding": "x" * 100})) as server:
        settings.ALERT_SINK_URLS = {"webhook": server.url}
        deliver(alert_run, "webhook")

    assert attempts(alert_run, "webhook")[0][:2] == (1, DeliveryStatus.FAILED)
    assert attempts(alert_run, "webhook")[0][3] == "ResponseRefused"


def test_an_unreachable_sink_is_retried_until_the_retries_run_out(settings, alert_run):
    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_URLS = {"slack": f"http://127.0.0.1:{closed_port()}/hook"}
    run_finish(alert_run, RunResult(final_answer=ANSWER))

    deliver(alert_run, "slack")

    rows = attempts(alert_run, "slack")
    assert [row[0] for row in rows] == list(range(1, deliver_run_notification.max_retries + 2))
    assert {row[1:] for row in rows} == {(DeliveryStatus.FAILED, None, "ConnectError")}


@pytest.mark.parametrize(
    ("sink", "answer", "error"),
    [
        ("webhook", (404, {"error": "no such hook"}), "HTTP 404"),
        ("wecom", (200, {"errcode": 93000, "errmsg": "invalid webhook url"}), "errcode 93000: invalid webhook url"),
        (
            "dingtalk",
            (200, {"errcode": 310000, "errmsg": "keywords not in content"}),
            "errcode 310000: keywords not in content",
        ),
        ("feishu", (200, {"code": 19021, "msg": "sign match fail"}), "code 19021: sign match fail"),
        ("wecom", (200, "ok"), "the robot's answer is not a JSON object"),
    ],
)
def test_a_refusal_a_retry_would_repeat_is_recorded_once(settings, alert_run, sink, answer, error):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))

    with running_sink(then=answer) as server:
        settings.ALERT_SINK_URLS = {sink: server.url}
        deliver(alert_run, sink)
        assert len(server.received) == 1

    assert attempts(alert_run, sink) == [(1, DeliveryStatus.FAILED, answer[0], error)]


def failed_run_notification(settings, alert_run) -> dict:
    """The webhook body announcing ``alert_run`` failed at its time limit."""
    settings.PUBLIC_BASE_URL = BASE
    run_fail(alert_run, reason=FailureCode.TIME_LIMIT)
    with running_sink() as server:
        settings.ALERT_SINK_URLS = {"webhook": server.url}
        deliver(alert_run, "webhook")
        [body] = server.received
    return body


def test_a_failed_run_is_announced_as_failed(settings, alert_run):
    body = failed_run_notification(settings, alert_run)

    assert body["outcome"] == "FAILED"
    assert body["answer_markdown"] == "The diagnosis failed (time_limit); its trace says where."


def test_a_team_reads_its_notifications_in_its_alert_language(settings, alert_run):
    settings.ALERT_LANGUAGE = "zh-hans"

    body = failed_run_notification(settings, alert_run)

    assert body["title"] == "诊断 FAILED：PaymentLatencyHigh"
    assert body["answer_markdown"] == "诊断失败（time_limit），详见其轨迹。"


def test_a_robots_links_are_labelled_in_the_alert_language(settings, alert_run):
    settings.ALERT_LANGUAGE = "zh-hans"
    settings.PUBLIC_BASE_URL = BASE
    with running_sink() as server:
        settings.ALERT_SINK_URLS = {"feishu": server.url}
        deliver(alert_run, "feishu")
        [body] = server.received

    text = body["content"]["text"]
    assert f"\n运行详情: {BASE}" in text and f"\n推理轨迹: {BASE}" in text


def test_a_long_answer_is_cut_for_the_robots(settings, alert_run):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer="连接池耗尽。" * 2000))

    with running_sink(then=(200, {"errcode": 0})) as server:
        settings.ALERT_SINK_URLS = {"wecom": server.url}
        deliver(alert_run, "wecom")
        [body] = server.received

    assert len(body["markdown"]["content"].encode()) <= 4096
    assert "the whole answer is on the run's page" in body["markdown"]["content"]


@pytest.fixture
def run_pool(monkeypatch):
    """The embedded run pool the ASGI app would start."""
    yield from stand_in_run_pool(monkeypatch, workers=2)


@pytest.fixture
def follow_ups(monkeypatch):
    """The embedded follow-up threads deliveries run on, this test's own: waited for, then shut down."""
    executor = ThreadPoolExecutor(max_workers=dispatch.FOLLOW_UP_THREADS)
    monkeypatch.setattr(dispatch, "_follow_ups", executor)
    yield executor
    executor.shutdown(wait=True)


@pytest.mark.django_db(transaction=True)
def test_the_embedded_mode_delivers_on_its_own_threads(settings, intake, dispatched, run_pool, follow_ups):
    """No broker: the task is applied on the embedded pool, its retries at once (eager mode)."""
    settings.RUN_EXECUTION = "embedded"
    settings.PUBLIC_BASE_URL = BASE
    run = DiagnosisRun.objects.get(pk=intake(alertmanager_payload()).json()["run_id"])

    with running_sink((503, {})) as server:
        settings.ALERT_SINK_URLS = {"webhook": server.url}
        run_finish(run, RunResult(final_answer=ANSWER))
        bodies = server.wait(2, timeout=30)
        # The sink has answered the retry; the delivery's thread records that attempt after it: wait for it.
        follow_ups.shutdown(wait=True)

    assert [body["answer_markdown"] for body in bodies] == [ANSWER, ANSWER]
    assert [row[1] for row in attempts(run, "webhook")] == [DeliveryStatus.FAILED, DeliveryStatus.DELIVERED]


def test_auditors_see_the_deliveries_and_notifications_and_nobody_writes_them(settings, alert_run, auditor, superuser):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))
    with running_sink() as server:
        settings.ALERT_SINK_URLS = {"webhook": server.url}
        deliver(alert_run, "webhook")
    delivery = NotificationDelivery.objects.get()
    notification = alert_run.alert_notifications.get()

    for user in (auditor, superuser):
        client = Client()
        client.force_login(user)
        for page in ("/admin/alerts/notificationdelivery/", "/admin/alerts/alertnotification/"):
            assert client.get(page).status_code == 200
            assert client.get(f"{page}add/").status_code == 403
        assert client.get(f"/admin/alerts/notificationdelivery/{delivery.pk}/change/").status_code == 200
        assert client.get(f"/admin/alerts/alertnotification/{notification.pk}/change/").status_code == 200
        assert client.post(f"/admin/alerts/notificationdelivery/{delivery.pk}/delete/").status_code == 403
    assert NotificationDelivery.objects.count() == 1
    client.cookies["django_language"] = "zh-hans"
    index = client.get("/admin/").content.decode()
    deliveries = client.get("/admin/alerts/notificationdelivery/").content.decode()
    assert "告警" in index and "告警通知" in index and "通知投递" in index and "Notification deliverys" not in index
    assert "已送达" in deliveries


def test_every_sink_kind_a_setting_names_has_a_format(settings):
    assert set(BODIES) == set(settings.ALERT_SINK_KINDS)


def test_a_run_no_worker_started_in_time_is_announced_as_failed(
    settings, alert_run, handed_on, django_capture_on_commit_callbacks
):
    """The intake answered 202: Alertmanager waits for its repeat interval, so the chat hears why now."""
    settings.ALERT_SINK_URLS = {"webhook": "http://127.0.0.1:9/a"}
    DiagnosisRun.objects.filter(pk=alert_run.pk).update(claimed_at=None)
    alert_run.refresh_from_db()

    with django_capture_on_commit_callbacks(execute=True):
        run_fail(alert_run, reason=FailureCode.NOT_STARTED)

    assert handed_on == [("alerts.deliver_run_notification", str(alert_run.pk), "webhook")]


def test_a_run_the_broker_refused_is_not_announced(settings, alert_run, handed_on, django_capture_on_commit_callbacks):
    """It never ran: the intake answered 503, and Alertmanager's retry starts the run that will be announced."""
    settings.ALERT_SINK_URLS = {"webhook": "http://127.0.0.1:9/a"}
    DiagnosisRun.objects.filter(pk=alert_run.pk).update(claimed_at=None)  # refused before any worker had it
    alert_run.refresh_from_db()

    with django_capture_on_commit_callbacks(execute=True):
        run_fail(alert_run, reason=FailureCode.BROKER_UNAVAILABLE)

    assert handed_on == []


def test_the_wecom_message_fits_its_limit_with_a_long_title_and_links(settings, alert_run, monkeypatch):
    settings.PUBLIC_BASE_URL = "https://superbiz.operations.example.com/" + "a" * 150
    monkeypatch.setattr(delivery, "alert_run_name", lambda run_id: "告警" * 100)
    run_finish(alert_run, RunResult(final_answer="连接池耗尽。" * 2000))

    with running_sink(then=(200, {"errcode": 0})) as server:
        settings.ALERT_SINK_URLS = {"wecom": server.url}
        deliver(alert_run, "wecom")
        [body] = server.received

    content = body["markdown"]["content"]
    assert len(content.encode()) <= WECOM_CONTENT_BYTES
    assert content.startswith(f"**Diagnosis SUCCESS: {'告警' * 100}**") and content.endswith(f"{alert_run.pk})")
    assert "the whole answer is on the run's page" in content


@pytest.mark.parametrize(
    ("sink", "throttled"),
    [
        ("wecom", {"errcode": 45009, "errmsg": "api freq out of limit"}),
        ("dingtalk", {"errcode": 130101, "errmsg": "send too fast"}),
        ("feishu", {"code": 11232, "msg": "frequency limited"}),
        ("wecom", {"errcode": -1, "errmsg": "system busy"}),
        ("dingtalk", {"errcode": -1, "errmsg": "系统繁忙"}),
    ],
)
def test_a_robot_that_says_too_fast_is_tried_again(settings, alert_run, sink, throttled):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))
    code_field = "code" if sink == "feishu" else "errcode"

    with running_sink((200, throttled), then=(200, {code_field: 0})) as server:
        settings.ALERT_SINK_URLS = {sink: server.url}
        deliver(alert_run, sink)
        assert len(server.received) == 2

    first, second = attempts(alert_run, sink)
    assert first[:3] == (1, DeliveryStatus.FAILED, 200) and first[3].startswith(f"{code_field} {throttled[code_field]}")
    assert second == (2, DeliveryStatus.DELIVERED, 200, "")


def test_alert_text_and_quoted_logs_cannot_address_or_link_in_the_chat(settings, alert_run, monkeypatch):
    """An alert name comes from label values, and an answer quotes log lines: neither may ping a channel,
    mention someone or show a disguised link."""
    settings.PUBLIC_BASE_URL = BASE
    monkeypatch.setattr(delivery, "alert_run_name", lambda run_id: "<!channel> [Reset password](https://evil.example)")
    quoted = 'The gateway logged "GET /<!here>/<https://evil.example|login> & <@all> <at user_id=\\"all\\">"'
    run_finish(alert_run, RunResult(final_answer=quoted))
    texts = {}

    for sink, ok in OK_BODIES.items():
        if sink == "webhook":
            continue
        with running_sink(then=(200, ok)) as server:
            settings.ALERT_SINK_URLS = {sink: server.url}
            deliver(alert_run, sink)
            [body] = server.received
        texts[sink] = json.dumps(body, ensure_ascii=False)

    slack = texts.pop("slack")
    assert "&lt;!channel&gt;" in slack and "&lt;!here&gt;" in slack and "&lt;@\u200dall&gt;" in slack
    assert "<!" not in slack and "<@" not in slack and "|login>" not in slack and "&amp;" in slack
    for sink, text in texts.items():
        assert "<!" not in text and "<@" not in text and "<at " not in text, sink
    for markdown in (texts["wecom"], texts["dingtalk"]):  # Feishu's is plain text: no link syntax
        assert "[Reset password]" not in markdown and "［Reset password］(https://evil.example)" in markdown


def test_an_alert_name_cannot_forge_a_line_of_the_notification(settings, alert_run, monkeypatch):
    """A line break in the name (a row stored before names were kept on one line) starts no line of its own."""
    settings.PUBLIC_BASE_URL = BASE
    forged = "DiskFull*\n*Diagnosis SUCCESS: all clear, no action needed\n\n# resolved"
    monkeypatch.setattr(delivery, "alert_run_name", lambda run_id: forged)
    run_finish(alert_run, RunResult(final_answer=ANSWER))
    first_lines = {}

    for sink, ok in OK_BODIES.items():
        with running_sink(then=(200, ok)) as server:
            settings.ALERT_SINK_URLS = {sink: server.url}
            deliver(alert_run, sink)
            [body] = server.received
        first_lines[sink] = (body["title"] if sink == "webhook" else chat_text(sink, body)).split("\n")[0]

    name = "DiskFull* *Diagnosis SUCCESS: all clear, no action needed # resolved"
    assert first_lines == {
        "webhook": f"Diagnosis SUCCESS: {name}",
        "slack": "*Diagnosis SUCCESS: DiskFull＊ ＊Diagnosis SUCCESS: all clear, no action needed # resolved*",
        "wecom": "**Diagnosis SUCCESS: DiskFull＊ ＊Diagnosis SUCCESS: all clear, no action needed ＃ resolved**",
        "dingtalk": "**Diagnosis SUCCESS: DiskFull＊ ＊Diagnosis SUCCESS: all clear, no action needed ＃ resolved**",
        "feishu": f"Diagnosis SUCCESS: {name}",
    }


def test_a_sink_trickling_its_answer_is_cut_off_at_the_timeout_and_retried(settings, alert_run):
    """httpx's timeout bounds each read; the post as a whole must end within ALERT_SINK_TIMEOUT_SECONDS."""
    settings.PUBLIC_BASE_URL = BASE
    settings.ALERT_SINK_TIMEOUT_SECONDS = 0.3
    run_finish(alert_run, RunResult(final_answer=ANSWER))

    with running_trickling_server(byte_seconds=0.05) as url:
        settings.ALERT_SINK_URLS = {"webhook": url}
        deliver(alert_run, "webhook")

    rows = attempts(alert_run, "webhook")
    assert [row[0] for row in rows] == list(range(1, deliver_run_notification.max_retries + 2))
    assert {row[1:] for row in rows} == {(DeliveryStatus.FAILED, None, "TimeoutError")}
    latencies = NotificationDelivery.objects.filter(run=alert_run).values_list("latency_ms", flat=True)
    assert max(latencies) < 5_000  # each attempt ended near its 300 ms, not when the sink stopped trickling


@pytest.mark.parametrize("code", [[45009], {"a": 1}, "45009", True, False])
def test_a_robot_code_that_is_no_number_is_a_recorded_refusal(settings, alert_run, code):
    settings.PUBLIC_BASE_URL = BASE
    run_finish(alert_run, RunResult(final_answer=ANSWER))

    with running_sink(then=(200, {"errcode": code})) as server:
        settings.ALERT_SINK_URLS = {"wecom": server.url}
        deliver(alert_run, "wecom")
        assert len(server.received) == 1

    [(attempt, status, http_status, error)] = attempts(alert_run, "wecom")
    assert (attempt, status, http_status) == (1, DeliveryStatus.FAILED, 200) and error.startswith("errcode ")
