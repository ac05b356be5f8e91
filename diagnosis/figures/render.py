"""The stored figures of a run as HTML, in the language of the request that renders them.

Rendered by the server for the chat page (its history and, through ``figures_fragment``, a run that just
finished) and for the admin run page, from the same template, so the three show the same pictures.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from django.utils.translation import gettext, pgettext

from diagnosis.figures.evidence import TimelineKind
from diagnosis.figures.sparkline import SeriesPoint, sparkline_svg
from tools.timestamps import parse_timestamp


def _labels() -> dict[str, str]:
    return {
        TimelineKind.CHANGE: pgettext("incident timeline", "change"),
        TimelineKind.FIRST_ERROR: pgettext("incident timeline", "first error"),
        TimelineKind.METRIC_PEAK: pgettext("incident timeline", "metric peak"),
    }


def claim_anchor(run_id: uuid.UUID | str, claim_id: str) -> str:
    """The element id of a claim's picture: unique on a page showing several runs."""
    return f"claim-{str(run_id)[:8]}-{slugify(claim_id) or 'claim'}"


def _clock(ts: str) -> str:
    return parse_timestamp(ts).strftime("%H:%M:%S")


def _number(value: float) -> str:
    return f"{value:g}"


def _metric(run_id: uuid.UUID | str, figure: Mapping[str, Any]) -> dict[str, Any]:
    points = [SeriesPoint(parse_timestamp(ts), float(value)) for ts, value in figure["points"]]
    peak = SeriesPoint(parse_timestamp(figure["peak"][0]), float(figure["peak"][1])) if figure.get("peak") else None
    onset = parse_timestamp(figure["onset"]) if figure.get("onset") else None
    label = gettext("%(metric)s of %(service)s from %(start)s to %(end)s") % {
        "metric": figure["metric"],
        "service": figure["service"],
        "start": points[0].ts.strftime("%H:%M"),
        "end": points[-1].ts.strftime("%H:%M"),
    }
    return {
        "anchor": claim_anchor(run_id, figure["claim_id"]),
        "claim_id": figure["claim_id"],
        "metric": figure["metric"],
        "service": figure["service"],
        "first": _number(points[0].value),
        "peak": _number(peak.value) if peak else None,
        "peak_clock": peak.ts.strftime("%H:%M:%S") if peak else None,
        "onset_clock": onset.strftime("%H:%M:%S") if onset else None,
        # sparkline_svg escapes every text it writes; the rest are numbers.
        "svg": mark_safe(sparkline_svg(points, onset=onset, peak=peak, label=label)),
    }


def render_figures(figures: Mapping[str, Any] | None, *, run_id: uuid.UUID | str) -> SafeString:
    """The timeline strip and the sparklines, or an empty string when the answer has nothing to draw."""
    metrics = list((figures or {}).get("metrics") or [])
    timeline = list((figures or {}).get("timeline") or [])
    if not metrics and not timeline:
        return SafeString("")
    labels = _labels()
    facts: Mapping[str, str] = (figures or {}).get("claims") or {}
    drawn = {figure["claim_id"] for figure in metrics}
    listed = list(dict.fromkeys(event["claim_id"] for event in timeline if event["claim_id"] not in drawn))
    context = {
        "timeline": [
            {
                "kind": event["kind"],
                "label": labels.get(event["kind"], event["kind"]),
                "ts": event["ts"],
                "clock": _clock(event["ts"]),
                "claim_id": event["claim_id"],
                "anchor": claim_anchor(run_id, event["claim_id"]),
            }
            for event in timeline
        ],
        "metrics": [_metric(run_id, figure) for figure in metrics],
        "claims": [
            {"claim_id": claim_id, "fact": facts.get(claim_id, ""), "anchor": claim_anchor(run_id, claim_id)}
            for claim_id in listed
        ],
    }
    return mark_safe(render_to_string("diagnosis/_figures.html", context))
