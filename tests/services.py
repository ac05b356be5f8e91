"""Reachability of the external services some tests need (MariaDB, Redis, Chromium, Prometheus, Alertmanager,
gettext).

Outside CI a test whose service is missing is skipped with the reason; in CI (``CI=true``) it fails,
so a CI run can never go green without them. ``python -m tests.services mariadb redis`` exits 1 when
one is unreachable (``scripts/test.sh`` uses it to decide on the production-style pass).
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
from urllib.parse import unquote, urlsplit

import pytest

# The servers of the production-style pass (``scripts/test.sh``: ``TEST_MARIADB_URL``, ``TEST_REDIS_URL``), so
# that the check deciding on that pass asks the servers it will use.
_MARIADB_URL = urlsplit(os.environ.get("TEST_MARIADB_URL") or "mysql://root@127.0.0.1:3306/superbiz")
_REDIS_URL = urlsplit(os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379/14")
MARIADB_ADDRESS = (_MARIADB_URL.hostname or "127.0.0.1", _MARIADB_URL.port or 3306)
REDIS_ADDRESS = (_REDIS_URL.hostname or "127.0.0.1", _REDIS_URL.port or 6379)
#: The Redis of tests that start their own Celery worker (whether or not this pass runs on Redis).
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
#: The MariaDB database the business-data tests load packs into as root and read as ``superbiz_ro``
#: (``.ci/run`` creates it and grants the read); one per test pass, since the passes run side by side.
TEST_BUSINESS_DATABASE = os.environ.get("TEST_BUSINESS_DATABASE", "test_superbiz_business")
CHROMIUM_PATH = "/usr/bin/chromium"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _mariadb_up() -> bool:
    try:
        import MySQLdb

        MySQLdb.connect(
            host=MARIADB_ADDRESS[0],
            port=MARIADB_ADDRESS[1],
            user=unquote(_MARIADB_URL.username or "root"),
            password=unquote(_MARIADB_URL.password or ""),
            connect_timeout=2,
        ).close()
    except Exception:
        return False
    return True


def _redis_up() -> bool:
    try:
        with socket.create_connection(REDIS_ADDRESS, timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _chromium_up() -> bool:
    return shutil.which(CHROMIUM_PATH) is not None


def _prometheus_up() -> bool:
    """The Debian ``prometheus`` package's binaries; tests start their own server on loopback."""
    return shutil.which("prometheus") is not None and shutil.which("promtool") is not None


def _alertmanager_up() -> bool:
    """The Debian ``prometheus-alertmanager`` package's binaries; tests start their own server on loopback."""
    return shutil.which("prometheus-alertmanager") is not None and shutil.which("amtool") is not None


def _redis_server_up() -> bool:
    """The ``redis-server`` binary, for tests that start (and restart) a Redis of their own on loopback."""
    return shutil.which("redis-server") is not None


def _gettext_up() -> bool:
    """GNU gettext's msgfmt, which checks and compiles the interface catalogues (locale/)."""
    return shutil.which("msgfmt") is not None


CHECKS = {
    "mariadb": _mariadb_up,
    "redis": _redis_up,
    "redis-server": _redis_server_up,
    "chromium": _chromium_up,
    "prometheus": _prometheus_up,
    "alertmanager": _alertmanager_up,
    "gettext": _gettext_up,
}


def require(service: str) -> None:
    """Skip (outside CI) or fail (in CI) the calling test when ``service`` is unavailable."""
    if CHECKS[service]():
        return
    message = f"{service} is not reachable on this machine"
    if in_ci():
        pytest.fail(f"{message}; CI requires it", pytrace=False)
    pytest.skip(message)


if __name__ == "__main__":
    down = [name for name in sys.argv[1:] if not CHECKS[name]()]
    for name in down:
        print(f"{name}: not reachable", file=sys.stderr)
    sys.exit(1 if down else 0)
