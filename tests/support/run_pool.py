"""A stand-in for the embedded run pool the ASGI app starts, without the stale-run reaper it would start."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from diagnosis import dispatch


def stand_in_run_pool(monkeypatch: pytest.MonkeyPatch, workers: int) -> Iterator[ThreadPoolExecutor]:
    """Yield (for a fixture) a pool of ``workers`` threads installed as the run pool; shut down after."""
    executor = ThreadPoolExecutor(max_workers=workers)
    monkeypatch.setattr(dispatch, "_pool", executor)
    yield executor
    executor.shutdown(wait=True)
