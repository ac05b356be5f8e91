"""The admin's labels that come from the models: every model and field name in the auditor's language.

The auditors' pages name what they show by the models' ``verbose_name``s (columns, the rows of a change page,
an inline's columns, the page title): a zh-hans reader reads them in Chinese, not "Started at".
"""

from __future__ import annotations

import hashlib
import re

import pytest
from django.apps import apps
from django.contrib.admin import site
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Field, Model
from django.test import RequestFactory
from django.utils import translation
from django.utils.text import capfirst

from alerts.models import AlertGroup, AlertNotification, NotificationDelivery
from diagnosis.models import RunFeedback
from tests.tracing.test_admin import RUNS, client_for, run_page
from tools.models import KnowledgeDocument

pytestmark = pytest.mark.django_db

#: Field names whose label reads the same in both languages.
SAME_IN_BOTH = {"id"}


def _in(language: str, text: object) -> str:
    with translation.override(language):
        return str(capfirst(text))


def _model_field(model: type[Model], name: str) -> Field | None:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None  # one of the admin's own columns (translated where it is declared)
    return field if isinstance(field, Field) else None


def _shown_labels(page: str) -> dict[str, str]:
    """The label the page shows for each field, by the field's name: the rows of a change page, the columns of
    a list and of the inlines (a change page's inline columns may repeat a list's names: same label)."""
    labels: dict[str, str] = {}
    rows = r'class="form-row field-(\w+)">(?:(?!form-row).)*?<label[^>]*>([^<]*):</label>'
    columns = r'<th scope="col" class="[^"]*\bcolumn-(\w+)\b[^"]*">(?:(?!</th>).)*?<div class="text">(?:<a [^>]*>|<span>)([^<]*)<'
    inline_columns = r'<th class="column-(\w+)[^"]*">([^<]*?)\s*<'
    for pattern in (rows, columns, inline_columns):
        for name, label in re.findall(pattern, page, re.DOTALL):
            labels.setdefault(name, label.strip())
    return labels


def _fields_of_the_page(model_admin, request, obj) -> list[tuple[type[Model], str]]:
    """The model fields a list (``obj`` None) or a change page shows, its inlines' columns included."""
    if obj is None:
        names = [name for name in model_admin.list_display if isinstance(name, str)]
        return [(model_admin.model, name) for name in names]
    shown = [(model_admin.model, name) for name in flatten_fieldsets(model_admin.get_fieldsets(request, obj))]
    for inline in model_admin.get_inline_instances(request, obj):
        shown += [(inline.model, name) for name in inline.fields or ()]
    return shown


@pytest.fixture
def alert_rows(owned_run):
    key = '{}:{alertname="PaymentLatencyHigh"}'
    group = AlertGroup.objects.create(
        group_key=key, group_key_sha256=hashlib.sha256(key.encode()).hexdigest(), run=owned_run
    )
    notification = AlertNotification.objects.create(
        group=group,
        status="firing",
        alertname="PaymentLatencyHigh",
        alert_count=1,
        firing_count=1,
        action="STARTED",
        run=owned_run,
    )
    delivery = NotificationDelivery.objects.create(run=owned_run, sink="webhook", attempt=1, status="DELIVERED")
    return group, notification, delivery


def test_the_models_labels_are_in_the_readers_language(auditor, owned_run, alert_rows):
    """Each page's labels from the models, on the run's list and page (with its inlines), a step's, a timeline
    event's, a tool invocation's, the reasoning audit's and the alert intake's: Chinese for a zh-hans reader,
    where they were "Final answer" and "Started at" before the models named them."""
    RunFeedback.objects.create(run=owned_run, user=owned_run.session.owner, rating="UP")
    document = KnowledgeDocument.objects.create(title="runbook", content="text", content_sha256="0" * 64)
    group, notification, delivery = alert_rows
    rows: list[Model] = [
        owned_run,
        owned_run.session,
        owned_run.steps.first(),
        owned_run.trace_events.first(),
        owned_run.tool_invocations.first(),
        owned_run.reasoning_audits.first(),
        document,
        group,
        notification,
        delivery,
    ]
    client = client_for(auditor)
    client.cookies["django_language"] = "zh-hans"
    request = RequestFactory().get("/")
    request.user = auditor
    checked: set[tuple[str, str]] = set()

    for row in rows:
        model_admin = site._registry[type(row)]
        options = row._meta
        changelist = f"/admin/{options.app_label}/{options.model_name}/"
        change_page = run_page(row) if changelist == RUNS else f"{changelist}{row.pk}/change/"
        for url, obj in ((changelist, None), (change_page, row)):
            response = client.get(url)
            assert response.status_code == 200, url
            page = response.content.decode()
            labels = _shown_labels(page)
            # "Select diagnosis run to view": 选择诊断运行查看.
            title = re.search(r"<h1>([^<]*)</h1>", page)
            assert title and _in("zh-hans", options.verbose_name) in title.group(1), url
            assert _in("en", options.verbose_name).lower() not in title.group(1).lower(), url

            for model, name in _fields_of_the_page(model_admin, request, obj):
                field = _model_field(model, name)
                if field is None:
                    continue
                english, chinese = _in("en", field.verbose_name), _in("zh-hans", field.verbose_name)
                assert name in SAME_IN_BOTH or chinese != english, f"{model.__name__}.{name} is not translated"
                assert labels.get(name) == chinese, (url, name, labels.get(name), chinese)
                if name not in SAME_IN_BOTH:
                    assert f">{english}<" not in page and f">{english}:</label>" not in page, (url, english)
                checked.add((model.__name__, name))

    # The patterns found the labels of these pages (a field they missed would have failed above).
    assert {
        ("DiagnosisRun", "final_answer"),
        ("DiagnosisRun", "started_at"),
        ("AgentStep", "latency_ms"),
        ("DiagnosisTraceEvent", "details"),
        ("ToolInvocation", "tool_name"),
        ("AlertGroup", "first_seen_at"),
        ("AlertNotification", "common_labels"),
        ("NotificationDelivery", "http_status"),
    } <= checked


def test_every_model_and_field_of_the_audited_apps_has_a_translated_name():
    """The models and fields no admin page shows today too: the next page that shows one needs no migration."""
    untranslated = []
    for app_label in ("alerts", "diagnosis", "tools", "tracing"):
        for model in apps.get_app_config(app_label).get_models():
            options = model._meta
            names = [("verbose_name", options.verbose_name), ("verbose_name_plural", options.verbose_name_plural)]
            fields = [field for field in options.get_fields() if isinstance(field, Field) and not field.auto_created]
            names += [(field.name, field.verbose_name) for field in fields if field.name not in SAME_IN_BOTH]
            untranslated += [
                f"{model.__name__}.{name}: {text}" for name, text in names if _in("zh-hans", text) == _in("en", text)
            ]

    assert not untranslated
