"""Runs held at a node by a slow model: the honest script with delayed replies, and a wait for a node.

A scripted reply's ``delay_seconds`` (docs/providers.md) keeps the run inside that role's node, so a test
can act on it there: kill its worker, cancel it. The wait reads the run's timeline, which every process
executing runs writes to the test database.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.conftest import ROOT
from tracing.models import DiagnosisTraceEvent

HONEST = ROOT / "tests" / "diagnosis" / "scripts" / "honest.json"


def delayed_script(directory: Path, **delays: float) -> Path:
    """The honest script, each named role's first reply answered after that many seconds."""
    script = json.loads(HONEST.read_text())
    for role, seconds in delays.items():
        first = script[role][0]
        script[role][0] = {**({"content": first} if isinstance(first, str) else first), "delay_seconds": seconds}
    path = directory / "delayed.json"
    path.write_text(json.dumps(script))
    return path


def stuck_planner(directory: Path, seconds: float) -> Path:
    """A script whose planner answers only after ``seconds`` (and then nothing a plan is made of): a run held
    in its planner, for a test to stop its server or worker meanwhile."""
    path = directory / "stuck.json"
    path.write_text(json.dumps({"planner": [{"content": "{}", "delay_seconds": seconds}]}))
    return path


def wait_for_node(run_id: str, node: str, timeout: float = 60) -> None:
    """Return once the run's ``node`` has started (its ``<node>_started`` timeline row exists)."""
    deadline = time.monotonic() + timeout
    while not DiagnosisTraceEvent.objects.filter(run_id=run_id, name=f"{node}_started").exists():
        assert time.monotonic() < deadline, f"the run never reached the {node}"
        time.sleep(0.2)
