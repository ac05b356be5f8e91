"""The sparkline SVG: points placed by time, the onset and peak marked, every text escaped."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

import pytest

from diagnosis.figures.sparkline import HEIGHT, PAD, WIDTH, SeriesPoint, sparkline_svg

T0 = datetime(2026, 10, 14, 9, 30, tzinfo=UTC)
SVG = "{http://www.w3.org/2000/svg}"


def series(*values: float, step: int = 60) -> list[SeriesPoint]:
    return [SeriesPoint(T0 + timedelta(seconds=index * step), value) for index, value in enumerate(values)]


def coordinates(svg: str) -> list[tuple[float, float]]:
    line = ElementTree.fromstring(svg).find(f"{SVG}polyline")
    assert line is not None
    return [tuple(map(float, pair.split(","))) for pair in line.attrib["points"].split()]  # type: ignore[misc]


def test_it_draws_a_well_formed_svg_spanning_the_box():
    points = series(0, 0, 10, 40, 44)

    svg = sparkline_svg(points, onset=points[2].ts, peak=points[4], label="db_pool_pending")

    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.attrib["role"] == "img"
    xs = [x for x, _ in coordinates(svg)]
    ys = [y for _, y in coordinates(svg)]
    assert xs[0] == PAD and xs[-1] == WIDTH - PAD
    assert max(ys) == HEIGHT - PAD and min(ys) == PAD  # lowest value at the bottom, highest at the top


def test_it_places_points_by_time_not_by_index():
    # The third point comes after a gap of eight steps (steps without samples are left out by the tool).
    points = [*series(1, 2), SeriesPoint(T0 + timedelta(minutes=10), 3)]

    xs = [x for x, _ in coordinates(sparkline_svg(points, onset=None, peak=None, label="x"))]

    assert xs[1] - xs[0] == pytest.approx((xs[2] - xs[0]) / 10, abs=0.1)


def test_it_marks_the_onset_and_the_peak():
    points = series(0, 0, 0, 20, 44, 30)

    root = ElementTree.fromstring(sparkline_svg(points, onset=points[3].ts, peak=points[4], label="x"))

    onset = root.find(f"{SVG}line[@class='onset']")
    peak = root.find(f"{SVG}circle[@class='peak']")
    assert onset is not None and peak is not None
    assert float(onset.attrib["x1"]) == pytest.approx(PAD + 3 / 5 * (WIDTH - 2 * PAD), abs=0.1)
    assert float(peak.attrib["cy"]) == PAD  # the peak is the highest value


def test_it_leaves_out_an_onset_outside_the_series():
    points = series(1, 2, 3)

    svg = sparkline_svg(points, onset=T0 - timedelta(hours=1), peak=None, label="x")

    assert "onset" not in svg and "circle" not in svg


def test_it_draws_a_flat_series_along_the_middle():
    ys = {y for _, y in coordinates(sparkline_svg(series(5, 5, 5), onset=None, peak=None, label="x"))}

    assert ys == {HEIGHT / 2}


def test_it_escapes_the_label():
    svg = sparkline_svg(series(1, 2), onset=None, peak=None, label='<script>alert(1)</script> "q"')

    assert "<script>" not in svg
    assert re.search(r"<title>&lt;script&gt;", svg)
    ElementTree.fromstring(svg)  # still well-formed


def test_it_refuses_fewer_than_two_points():
    with pytest.raises(ValueError, match="at least two points"):
        sparkline_svg(series(1), onset=None, peak=None, label="x")
