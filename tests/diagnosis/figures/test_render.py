"""Stored figures as HTML: the timeline strip links each event to its claim's picture, in the active
language, and nothing from tool data reaches the markup unescaped."""

from __future__ import annotations

import re
import uuid

from django.utils import translation

from diagnosis.figures.render import claim_anchor, render_figures
from tests.diagnosis.figures.samples import FIGURES

RUN = uuid.UUID("0355b43b-0000-4000-8000-000000000000")


def test_it_links_every_timeline_event_to_its_claims_picture():
    html = render_figures(FIGURES, run_id=RUN)

    links = re.findall(r'<a href="#([^"]+)">', html)
    assert links == [claim_anchor(RUN, "c7"), claim_anchor(RUN, "c1"), claim_anchor(RUN, "c5")]
    for anchor in links:
        assert f'id="{anchor}"' in html
    assert html.index("incident-timeline") < html.index('<svg class="sparkline"')
    assert "10:02:14" in html and "10:05:03" in html and "10:27:00" in html
    assert "times in UTC" in html  # the evidence's times: a team in another zone must not read them as local


def test_it_draws_one_sparkline_per_metric_claim_with_its_onset():
    html = render_figures(FIGURES, run_id=RUN)

    assert html.count('<svg class="sparkline"') == 1
    assert 'class="onset"' in html and 'class="peak"' in html
    assert "0 → 44 at 10:27:00, onset 10:05:00" in html


def test_it_escapes_tool_data():
    hostile = {
        **FIGURES,
        "metrics": [{**FIGURES["metrics"][0], "metric": "<script>x</script>", "service": '"><img src=x>'}],
    }

    html = render_figures(hostile, run_id=RUN)

    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html


def test_it_speaks_the_active_language():
    with translation.override("zh-hans"):
        html = render_figures(FIGURES, run_id=RUN)

    assert "变更" in html and "首个错误" in html and "指标峰值" in html and "事件时间线" in html
    assert "时间均为 UTC" in html


def test_nothing_to_draw_renders_nothing():
    assert render_figures({}, run_id=RUN) == ""
    assert render_figures(None, run_id=RUN) == ""
    assert render_figures({"metrics": [], "timeline": [], "claims": {}}, run_id=RUN) == ""


def test_anchors_stay_valid_ids_for_any_claim_id():
    assert claim_anchor(RUN, "c 5/<x>") == "claim-0355b43b-c-5x"
    assert claim_anchor(RUN, "//") == "claim-0355b43b-claim"
