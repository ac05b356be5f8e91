"""The admin run page shows the chat page's pictures of the run (timeline strip, sparklines), in the
auditor's language like the rest of the admin."""

from __future__ import annotations

import pytest
from django.test import Client

from diagnosis.models import DiagnosisRun
from tests.diagnosis.figures.samples import FIGURES
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db


def page(user, run: DiagnosisRun, **headers) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/admin/diagnosis/diagnosisrun/{run.pk}/change/", **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_it_shows_the_runs_figures(auditor, owner):
    run = make_run(make_session(owner))
    DiagnosisRun.objects.filter(pk=run.pk).update(figures=FIGURES)

    html = page(auditor, run)

    assert "evidence figures" in html.lower()
    assert html.count('<svg class="sparkline"') == 1 and "incident-timeline" in html
    assert "css/figures.css" in html


def test_a_run_without_figures_shows_a_dash(auditor, owner):
    html = page(auditor, make_run(make_session(owner)))

    assert '<svg class="sparkline"' not in html and "incident-timeline" not in html


def test_it_speaks_chinese_to_a_chinese_auditor(auditor, owner):
    run = make_run(make_session(owner))
    DiagnosisRun.objects.filter(pk=run.pk).update(figures=FIGURES)

    html = page(auditor, run, HTTP_ACCEPT_LANGUAGE="zh-CN")

    for text in ("证据图", "首个错误", "指标峰值", "预算与耗时", "原因代码", "最终节点（运行在此失败时为红色）"):
        assert text in html, text
