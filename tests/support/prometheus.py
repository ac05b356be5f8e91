"""A real Prometheus on a free loopback port over a TSDB folder (backfilled by ``promtool`` beforehand),
optionally evaluating alerting rules every second and sending what fires to an Alertmanager."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.ports import free_port

READY_WAIT_SECONDS = 60


def _config(folder: Path, rules: str, alertmanager: str) -> Path:
    """``prometheus.yml``: no scraping; with ``rules``, evaluated every second and sent to ``alertmanager``."""
    lines = ["scrape_configs: []"]
    if rules:
        (folder / "rules.yml").write_text(rules)
        lines += ["global:", "  evaluation_interval: 1s", "rule_files: [rules.yml]"]
    if alertmanager:
        target = alertmanager.removeprefix("http://")
        lines += ["alerting:", "  alertmanagers:", "    - static_configs:", f'        - targets: ["{target}"]']
    config = folder / "prometheus.yml"
    config.write_text("\n".join(lines) + "\n")
    checked = subprocess.run(["promtool", "check", "config", str(config)], capture_output=True, text=True)
    if checked.returncode != 0:
        raise RuntimeError(f"promtool refused {config}: {checked.stdout}{checked.stderr}")
    return config


@contextmanager
def running_prometheus(
    data: Path, *, rules: str = "", alertmanager: str = "", reservation: socket.socket | None = None
) -> Iterator[str]:
    """The URL of a Prometheus serving the blocks in ``data``; stopped (only the process started here) on exit.

    ``rules`` is a rule file's YAML; ``alertmanager`` the URL alerts are sent to; ``reservation`` a port held
    beforehand (``reserved_port``) when another process must know the URL before this one starts: released
    just before Prometheus binds it.
    """
    folder = data.parent
    config = _config(folder, rules, alertmanager)
    url = f"http://127.0.0.1:{reservation.getsockname()[1] if reservation else free_port()}"
    if reservation is not None:
        reservation.close()
    process = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={data}",
            # Packs hold past times: the default 15-day retention would drop their blocks on load.
            "--storage.tsdb.retention.time=100y",
            f"--web.listen-address={url.removeprefix('http://')}",
            # Alerts fired before the Alertmanager is discovered (about 5 s) are dropped and sent again
            # only after this delay (1 min by default).
            "--rules.alert.resend-delay=1s",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "prometheus.log").open("w"),
    )
    try:
        wait_ready(url, process, name="prometheus")
        # Ready, and this one: not another test's Prometheus that answered on the port first.
        flags = httpx.get(f"{url}/api/v1/status/flags", timeout=5).json()["data"]
        if flags.get("storage.tsdb.path") != str(data):
            raise RuntimeError(f"another Prometheus answers at {url}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_ready(url: str, process: subprocess.Popen[bytes], *, name: str) -> None:
    """Until ``url``/-/ready answers 200 (Prometheus and Alertmanager both serve it); RuntimeError if the
    process exits first or it takes over ``READY_WAIT_SECONDS``."""
    waited_until = time.monotonic() + READY_WAIT_SECONDS
    while time.monotonic() < waited_until:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/-/ready", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} at {url} was not ready within {READY_WAIT_SECONDS}s")
