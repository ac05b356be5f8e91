"""Reading verified evidence the way the verifier and composer must: from excerpts and paths alone.

After the gatekeeper, a claim is only its verified excerpts (``matched_text``) with the tool and the path
each came from; the executor's own wording is gone on purpose. The path's last segments say what an
excerpt is (``.message`` of a log record, ``.value`` of a metric point, a cell of a row, a column name),
so a claim's facts can be rebuilt from the verified text without trusting anything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from diagnosis.providers.offline.text import normalise
from tools.jsonpath import PathError, format_path, parse


@dataclass
class ClaimEvidence:
    claim_id: str
    tool: str
    services: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    logged_at: list[str] = field(default_factory=list)
    """Timestamps of the cited log records."""
    hosts: list[str] = field(default_factory=list)
    """Hosts of the cited log records, when they carry one."""
    levels: list[str] = field(default_factory=list)
    """Levels of the cited log records."""
    metric: str = ""
    points: dict[str, dict[str, str]] = field(default_factory=dict)
    """Metric points by their path: ``{"ts": ..., "value": ...}``."""
    titles: list[str] = field(default_factory=list)
    passages: list[str] = field(default_factory=list)
    cells: dict[int, str] = field(default_factory=dict)
    columns: dict[int, str] = field(default_factory=dict)
    other: list[str] = field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        """Every verified excerpt of the claim."""
        point_texts = [text for point in self.points.values() for text in point.values()]
        return [
            *self.services,
            *self.messages,
            *self.logged_at,
            *self.hosts,
            *self.levels,
            *([self.metric] if self.metric else []),
            *point_texts,
            *self.titles,
            *self.passages,
            *self.cells.values(),
            *self.columns.values(),
            *self.other,
        ]

    def ordered_points(self) -> list[dict[str, str]]:
        """The cited metric points in time order."""
        return sorted(self.points.values(), key=lambda point: point.get("ts", ""))

    def cell_pairs(self) -> list[str]:
        """``column=value`` for each cited cell (the value alone when its column name was not cited)."""
        return [
            f"{self.columns[index]}={value}" if index in self.columns else value
            for index, value in sorted(self.cells.items())
        ]


def read_claims(items: list[Any]) -> list[ClaimEvidence]:
    """The claims of a verifier or composer input, each with its excerpts sorted by what they are."""
    claims = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("claim_id"), str):
            continue
        evidence = [entry for entry in item.get("evidence") or [] if isinstance(entry, dict)]
        tools = [str(entry.get("tool_name", "")) for entry in evidence]
        claim = ClaimEvidence(item["claim_id"], tools[0] if tools else "")
        for entry in evidence:
            _place(claim, str(entry.get("raw_path", "")), normalise(str(entry.get("matched_text", ""))))
        claims.append(claim)
    return claims


def _place(claim: ClaimEvidence, raw_path: str, text: str) -> None:
    try:
        segments = parse(raw_path)
    except PathError:
        claim.other.append(text)
        return
    leaf = segments[-1] if segments else None
    if segments[:1] == ["columns"] and isinstance(leaf, int):
        claim.columns[leaf] = text
    elif segments[:1] == ["rows"] and len(segments) == 3 and isinstance(leaf, int):
        claim.cells[leaf] = text
    elif leaf == "service":
        claim.services.append(text)
    elif leaf == "message":
        claim.messages.append(text)
    elif leaf == "metric":
        claim.metric = text
    elif leaf == "ts" and segments[:1] == ["records"]:
        claim.logged_at.append(text)
    elif leaf == "host" and segments[:1] == ["records"]:
        claim.hosts.append(text)
    elif leaf == "level" and segments[:1] == ["records"]:
        claim.levels.append(text)
    elif leaf in ("ts", "value") and "points" in segments:
        claim.points.setdefault(format_path("$", *segments[:-1]), {})[str(leaf)] = text
    elif leaf == "title":
        claim.titles.append(text)
    elif leaf == "text":
        claim.passages.append(text)
    else:
        claim.other.append(text)
