"""Embedded run threads yield the CPU to the server's own threads: they run at a higher niceness."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from diagnosis import dispatch


def niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_run_threads_are_nicer_than_the_server_and_leave_its_priority_alone():
    server = niceness()
    pool = dispatch.run_pool()
    try:
        in_run_thread = pool.submit(niceness).result(timeout=10)
    finally:
        pool.shutdown(wait=True)

    # Elsewhere than on Linux the niceness is the process's: the pool leaves it alone.
    linux = sys.platform.startswith("linux")
    assert in_run_thread == (min(server + dispatch.RUN_THREAD_NICENESS, 19) if linux else server)
    assert niceness() == server


def test_follow_up_work_never_waits_for_a_run_thread(settings, monkeypatch):
    """A delivery waiting out a sink's timeouts, retries and all, on the run pool kept runs from starting."""
    settings.RUN_EXECUTION = "embedded"
    busy = ThreadPoolExecutor(max_workers=1)
    release = threading.Event()
    busy.submit(release.wait)  # every run thread busy
    monkeypatch.setattr(dispatch, "_embedded_pool", lambda: busy)
    done = threading.Event()

    class Task:
        @staticmethod
        def apply(args):
            done.set()

    try:
        dispatch.submit_task(Task(), "x")  # type: ignore[arg-type]
        assert done.wait(timeout=10)
    finally:
        release.set()
        busy.shutdown(wait=True)
