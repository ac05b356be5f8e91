"""A metric series as a small inline SVG: its line, the onset as a dashed rule, the peak as a dot.

Drawn on the server from numbers alone, so the page needs no chart library and nothing is fetched; every
text that reaches the markup (the accessible label) is escaped. Points are placed by their time, not their
index, because a metric tool leaves out steps without samples and an even spacing would bend the shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.html import escape

WIDTH = 240
HEIGHT = 48
PAD = 4


@dataclass(frozen=True)
class SeriesPoint:
    ts: datetime
    value: float


def sparkline_svg(
    points: Sequence[SeriesPoint], *, onset: datetime | None, peak: SeriesPoint | None, label: str
) -> str:
    """The SVG markup of ``points`` (at least two, in time order); ``label`` names it for screen readers."""
    if len(points) < 2:
        raise ValueError("a sparkline needs at least two points")
    start, end = points[0].ts, points[-1].ts
    span = (end - start).total_seconds() or 1.0
    low = min(point.value for point in points)
    high = max(point.value for point in points)
    rise = (high - low) or 1.0

    def x(moment: datetime) -> float:
        return PAD + (moment - start).total_seconds() / span * (WIDTH - 2 * PAD)

    def y(value: float) -> float:
        # A flat series is drawn along the middle rather than squeezed against an edge.
        if high == low:
            return HEIGHT / 2
        return HEIGHT - PAD - (value - low) / rise * (HEIGHT - 2 * PAD)

    line = " ".join(f"{x(point.ts):.1f},{y(point.value):.1f}" for point in points)
    parts = [
        f'<svg class="sparkline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
        f'<polyline class="series" fill="none" stroke="currentColor" stroke-width="1.5" points="{line}"/>',
    ]
    if onset is not None and start <= onset <= end:
        at = f"{x(onset):.1f}"
        parts.append(
            f'<line class="onset" x1="{at}" y1="0" x2="{at}" y2="{HEIGHT}" stroke="#b3261e" stroke-dasharray="3 2"/>'
        )
    if peak is not None:
        parts.append(f'<circle class="peak" cx="{x(peak.ts):.1f}" cy="{y(peak.value):.1f}" r="2.5" fill="#b3261e"/>')
    parts.append("</svg>")
    return "".join(parts)
