"""Metric anomalies: the shift at the onset, robust to noise, and the two points that show it."""

from __future__ import annotations

from datetime import UTC, datetime

from diagnosis.providers.offline.analysis.metrics import Point, Series, anomaly
from diagnosis.providers.offline.claims import metric_claim

ONSET = datetime(2025, 6, 1, 8, 30, tzinfo=UTC)


def _series(values: list[float], metric: str = "m") -> Series:
    points = [
        Point(
            f"$.series[0].points[{index}]", datetime(2025, 6, 1, 8, index, tzinfo=UTC), f"08:{index:02d}", value, value
        )
        for index, value in enumerate(values)
    ]
    return Series("inv", "$.series[0]", "svc", metric, points)


def test_a_level_shift_at_the_onset_is_found_with_its_baseline_and_peak():
    found = anomaly(_series([10.0, 11.0, 9.0] * 10 + [50.0, 80.0, 60.0] * 10), ONSET)
    assert found is not None and found.rising
    assert found.baseline.value == 10.0
    assert found.extreme.value == 80.0 and found.extreme.raw_path == "$.series[0].points[31]"
    assert found.shifted.raw_path == "$.series[0].points[30]", "where the new level began"


def test_the_claim_of_a_shift_cites_where_it_began_before_its_peak():
    """The peak of a ramp came long after the failure began: the claim also cites the new level's first point."""
    found = anomaly(_series([10.0, 11.0, 9.0] * 10 + [40.0 + index for index in range(30)]), ONSET)
    claim = metric_claim("c1", found)
    assert claim is not None
    assert claim["statement"] == "m of svc rose from 10.0 at 08:00:00 to 40.0 at 08:30:00 and 69.0 at 08:59:00"
    cited = [binding["raw_path"] for binding in claim["bindings"] if binding["raw_path"].endswith(".ts")]
    assert cited == ["$.series[0].points[0].ts", "$.series[0].points[30].ts", "$.series[0].points[59].ts"]


def test_a_drop_cites_the_lowest_point_after_the_onset():
    found = anomaly(_series([0.96, 0.95, 0.97] * 10 + [0.4, 0.3, 0.45] * 10), ONSET)
    assert found is not None and not found.rising
    assert found.extreme.value == 0.3


def test_noise_without_a_shift_is_not_an_anomaly():
    assert anomaly(_series([1400.0, 1900.0, 1600.0, 1750.0] * 15), ONSET) is None


def test_a_series_that_leaves_zero_scores_high_but_bounded():
    found = anomaly(_series([0.0] * 30 + [38.0] * 30), ONSET)
    assert found is not None and found.score == 50.0


def test_without_an_onset_the_series_own_change_point_splits_it():
    found = anomaly(_series([5.0] * 12 + [40.0] * 48), None)
    assert found is not None and found.baseline.value == 5.0 and found.extreme.value == 40.0


def test_too_few_points_on_one_side_give_no_verdict():
    assert anomaly(_series([1.0, 1.0] + [9.0] * 40, metric="short"), datetime(2025, 6, 1, 8, 2, tzinfo=UTC)) is None


def test_the_shift_begins_at_the_first_point_past_half_of_it_not_at_the_onset():
    """The first points after the onset were still at the old level, one of them a dip: placed there, the
    released timeline said the series rose before the first error."""
    found = anomaly(_series([400.0] * 30 + [400.0, 100.0, 400.0, 950.0] + [1000.0] * 26), ONSET)
    assert found is not None and found.rising
    assert found.shifted.raw_path == "$.series[0].points[33]" and found.shifted.value == 950.0
