"""``bench/parts.py``: exclusive time per part, with the wrapped functions put back afterwards."""

from __future__ import annotations

import re
import time

import pytest

from bench.parts import Part, PartClock

#: The fake clock's reading, advanced by the functions below instead of by real work.
NOW = [0.0]


def _work(seconds: float) -> None:
    NOW[0] += seconds


def inner(seconds: float) -> str:
    _work(seconds)
    return "inner"


def outer(before: float, inside: float, after: float) -> str:
    _work(before)
    result = inner(inside)
    _work(after)
    return f"outer+{result}"


class Holder:
    @staticmethod
    def project(value: int) -> int:
        _work(0.5)
        return value * 2

    def run(self, value: int) -> int:
        return Holder.project(value) + 1


MODULE = __name__
PARTS = (
    Part("outer", (f"{MODULE}:outer",)),
    Part("inner", (f"{MODULE}:inner",)),
    Part("project", (f"{MODULE}:Holder.project",)),
    Part("reads", (f"{MODULE}:Holder.run",), own_work=False),
)


@pytest.fixture
def fake_clock(monkeypatch):
    NOW[0] = 0.0
    monkeypatch.setattr(time, "perf_counter", lambda: NOW[0])


def test_a_part_called_inside_another_counts_for_itself_only(fake_clock):
    clock = PartClock(PARTS)
    with clock.installed():
        assert outer(1.0, 2.0, 4.0) == "outer+inner"
        assert inner(8.0) == "inner"

    assert clock.seconds == {"outer": 5.0, "inner": 10.0}
    assert sum(clock.seconds.values()) == NOW[0]


def test_static_and_plain_methods_are_wrapped_and_put_back(fake_clock):
    originals = (outer, inner, Holder.__dict__["project"], Holder.__dict__["run"])
    clock = PartClock(PARTS)
    with clock.installed():
        assert Holder().run(3) == 7
        assert Holder.project(1) == 2
        assert Holder.__dict__["run"] is not originals[3]

    assert clock.seconds == {"project": 1.0, "reads": 0.0}
    assert (outer, inner, Holder.__dict__["project"], Holder.__dict__["run"]) == originals
    assert isinstance(Holder.__dict__["project"], staticmethod)


def test_the_wrappers_are_removed_when_the_timed_code_raises(fake_clock):
    clock = PartClock(PARTS)
    with pytest.raises(ZeroDivisionError), clock.installed():
        inner(1.0)
        raise ZeroDivisionError
    assert inner.__name__ == "inner" and not hasattr(inner, "__wrapped__")


def test_the_report_adds_up_the_own_work_and_leaves_the_rest_to_the_plumbing(fake_clock):
    clock = PartClock(PARTS)
    with clock.installed():
        outer(1.0, 2.0, 1.0)  # outer 2 s, inner 2 s
        Holder().run(0)  # project 0.5 s, reads 0 s

    lines = clock.report(runs=2, run_ms=5000.0, floor_ms=100.0).splitlines()

    assert re.split(r"\s{2,}", lines[0]) == ["part", "ms per run", "of a run", "x floor"]
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[2:]]
    assert rows == [
        ["outer", "1000.0", "20 %", "10.0x"],
        ["inner", "1000.0", "20 %", "10.0x"],
        ["project", "250.0", "5 %", "2.5x"],
        ["the run's own work, in all", "2250.0", "45 %", "22.5x"],
        ["reads", "0.0", "0 %", "0.0x"],
        ["everything else (persistence, events, graph, submission, finish)", "2750.0", "55 %", "27.5x"],
    ]


def test_every_part_of_the_bench_names_a_function_that_exists():
    from bench.parts import PARTS as BENCH_PARTS
    from bench.parts import _owner

    targets = [_owner(target) for part in BENCH_PARTS for target in part.targets]
    before = [getattr(owner, name) for owner, name in targets]
    with PartClock(BENCH_PARTS).installed():
        during = [getattr(owner, name) for owner, name in targets]
        assert all(callable(now) and now is not then for now, then in zip(during, before, strict=True))
    assert [getattr(owner, name) for owner, name in targets] == before
