"""``bench/run_overhead.py`` end to end at a tiny size: the run table, the statements by kind and the time by
part, so that the figures docs/performance.md quotes keep coming from a bench that runs."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def bench(*args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin"}  # the bench configures its own private database and settings
    return subprocess.run(
        [sys.executable, "bench/run_overhead.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env
    )


def test_it_prints_the_runs_their_statements_and_their_time_by_part():
    result = bench("--runs", "2", "--by-kind", "--by-part")

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("offline runs (SUCCESS 2)")
    assert re.search(r"^\s+0\s+2\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+x\s+\d+", out, re.M)
    assert "INSERT diagnosis_trace_event" in out
    parts = dict(re.findall(r"^(\S.*?)\s{2,}([\d.]+)\s+\d+ %\s+[\d.]+x$", out, re.M))
    assert float(parts["the run's own work, in all"]) > 0
    assert float(parts["model turns (offline provider's reasoning)"]) > 0
    assert "everything else (persistence, events, graph, submission, finish)" in parts


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--runs", "0"], "--runs must be at least 1"), (["--pack", "nope"], "argument --pack: invalid choice: 'nope'")],
)
def test_it_refuses_bad_arguments_before_making_a_database(args, message):
    result = bench(*args)

    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
