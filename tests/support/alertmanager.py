"""A real Alertmanager (Debian's ``prometheus-alertmanager``) on a free loopback port, posting to a webhook.

It groups and sends at once (``group_wait`` 1 s) so a test takes seconds, keeps its state in a folder of
its own, and runs without clustering (which would otherwise listen on port 9094 of every interface).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.ports import free_port
from tests.support.prometheus import wait_ready

BINARY = "prometheus-alertmanager"


def webhook_config(url: str, token: str) -> str:
    """The configuration of README's "Alert intake" section, with test timings."""
    return f"""\
route:
  receiver: superbiz
  group_by: [alertname, service]
  group_wait: 1s
  group_interval: 5s
  repeat_interval: 1h
receivers:
  - name: superbiz
    webhook_configs:
      - url: {url}
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: {token}
"""


@contextmanager
def running_alertmanager(folder: Path, *, webhook_url: str, token: str) -> Iterator[str]:
    """Its URL; the configuration is checked with ``amtool`` first. Only the process started here is stopped."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "alertmanager.yml"
    config.write_text(webhook_config(webhook_url, token))
    checked = subprocess.run(["amtool", "check-config", str(config)], capture_output=True, text=True)
    if checked.returncode != 0:
        raise RuntimeError(f"amtool refused {config}: {checked.stdout}{checked.stderr}")
    url = f"http://127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [
            BINARY,
            f"--config.file={config}",
            f"--storage.path={folder / 'data'}",
            f"--web.listen-address={url.removeprefix('http://')}",
            "--cluster.listen-address=",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "alertmanager.log").open("w"),
    )
    try:
        wait_ready(url, process, name=BINARY)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
