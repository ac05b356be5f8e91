from __future__ import annotations

import pytest

from bench.graph_floor import format_table, main, measure_floor


def test_it_measures_both_paths_through_both_entries():
    floors = measure_floor(runs=3, warmup=0)

    assert [(f.path, f.entry, f.node_attempts) for f in floors] == [
        ("happy", "run_graph", 6),
        ("happy", "invoke", 6),
        ("evidence_retry", "run_graph", 12),
        ("evidence_retry", "invoke", 12),
    ]
    assert all(0 < f.median_ms <= f.p95_ms for f in floors)
    table = format_table(floors).splitlines()
    assert table[0].split() == ["path", "entry", "nodes", "median", "ms", "p95", "ms"]
    assert len(table) == 2 + len(floors)


def test_it_needs_two_runs_for_a_p95(capsys):
    with pytest.raises(ValueError, match="at least 2"):
        measure_floor(runs=1)
    with pytest.raises(SystemExit) as exited:
        main(["--runs", "1"])

    assert exited.value.code == 2
    assert "--runs must be at least 2" in capsys.readouterr().err
