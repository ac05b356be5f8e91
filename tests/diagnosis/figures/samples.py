"""Stored figures as a finished run of the demo pack holds them (diagnosis/figures/evidence.py)."""

from __future__ import annotations

POINTS = [["2026-10-14T09:30:00Z", 0.0], ["2026-10-14T10:05:00Z", 30.0], ["2026-10-14T10:27:00Z", 44.0]]
FIGURES = {
    "metrics": [
        {
            "claim_id": "c5",
            "fact": "db_pool_pending rose",
            "service": "payment-service",
            "metric": "db_pool_pending",
            "points": POINTS,
            "onset": "2026-10-14T10:05:00Z",
            "peak": ["2026-10-14T10:27:00Z", 44.0],
        }
    ],
    "timeline": [
        {"kind": "change", "ts": "2026-10-14T10:02:14Z", "claim_id": "c7"},
        {"kind": "first_error", "ts": "2026-10-14T10:05:03.102000Z", "claim_id": "c1"},
        {"kind": "metric_peak", "ts": "2026-10-14T10:27:00Z", "claim_id": "c5"},
    ],
    "claims": {"c1": "payment-service logged an error", "c5": "db_pool_pending rose", "c7": "CHG-20431 <b>"},
}
