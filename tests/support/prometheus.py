"""A real Prometheus on a free loopback port over a TSDB folder (backfilled by ``promtool`` beforehand)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

READY_WAIT_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_prometheus(data: Path) -> Iterator[str]:
    """The URL of a Prometheus serving the blocks in ``data``; stopped (only the process started here) on exit."""
    folder = data.parent
    config = folder / "prometheus.yml"
    config.write_text("scrape_configs: []\n")
    url = f"http://127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={data}",
            # Packs hold past times: the default 15-day retention would drop their blocks on load.
            "--storage.tsdb.retention.time=100y",
            f"--web.listen-address={url.removeprefix('http://')}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "prometheus.log").open("w"),
    )
    try:
        _wait_ready(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    waited_until = time.monotonic() + READY_WAIT_SECONDS
    while time.monotonic() < waited_until:
        if process.poll() is not None:
            raise RuntimeError(f"prometheus exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/-/ready", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"prometheus at {url} was not ready within {READY_WAIT_SECONDS}s")
