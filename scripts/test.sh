#!/usr/bin/env bash
# The test suite, twice: the embedded default (SQLite, no Redis) and production-style (MariaDB + Redis).
# In CI (CI=true) both passes are required; elsewhere the production pass is skipped, with a message,
# when MariaDB or Redis is not reachable.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
MARIADB_URL=${TEST_MARIADB_URL:-mysql://root@127.0.0.1:3306/superbiz}
REDIS_URL_FOR_TESTS=${TEST_REDIS_URL:-redis://127.0.0.1:6379/14}

echo "== pass 1: embedded (SQLite, in-process) =="
env -u DATABASE_URL -u REDIS_URL $BIN/python -m pytest "$@"
embedded=$?
if [ $embedded -ne 0 ]; then
  echo "embedded pass failed (pytest exit $embedded)"; exit $embedded
fi

if ! $BIN/python -m tests.services mariadb redis; then
  if [ "${CI:-}" = "true" ]; then echo "CI: MariaDB and Redis are required"; exit 1; fi
  echo "== pass 2 skipped: MariaDB or Redis not reachable (it is required in CI) =="
  exit 0
fi
echo "== pass 2: production-style (MariaDB + Redis) =="
DATABASE_URL=$MARIADB_URL REDIS_URL=$REDIS_URL_FOR_TESTS $BIN/python -m pytest "$@"
