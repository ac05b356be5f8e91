"""``bench/sse_idle.py`` end to end at a tiny size (a real uvicorn, real idle streams), and its refusals."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "bench/sse_idle.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_it_prints_a_row_per_level_with_no_stream_closed_by_the_server():
    result = bench("--modes", "embedded", "--levels", "0,5", "--runs", "1", "--settle", "0", "--window", "0.5")

    assert result.returncode == 0, result.stderr
    header, rule, *rows = result.stdout.splitlines()
    assert header.split()[:3] == ["mode", "idle", "streams"] and set(rule) == {"-"}
    assert [row.split()[:2] for row in rows] == [["embedded", "0"], ["embedded", "5"]]
    assert [row.split()[-1] for row in rows] == ["0", "0"]  # idle streams of running runs stay open


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--levels", "500,0"], "ascending order"),
        (["--levels", "a,b"], "not a comma-separated list"),
        (["--modes", "cluster"], "unknown mode(s) cluster"),
        (["--runs", "0"], "--runs and --idle-runs must be at least 1"),
        (["--window", "0"], "--window more than 0"),
    ],
)
def test_it_refuses_bad_arguments_with_a_message(args, message):
    result = bench(*args)

    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
