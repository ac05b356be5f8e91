#!/usr/bin/env bash
# The test suite, twice: the embedded default (SQLite, no Redis) and production-style (MariaDB + Redis).
# In CI (CI=true) both passes are required; elsewhere the production pass is skipped, with a message,
# when MariaDB or Redis is not reachable.
#
# The two passes run side by side (a pass spends most of its time waiting on the servers, workers and
# browsers it starts, so two of them share a 2-core machine well): each has its own VAR_DIR (SQLite files,
# uploads), its own Redis database for the workers its tests start and its own MariaDB business database, and
# its output is prefixed with its name. TEST_SERIAL=true runs them one after the other instead.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
MARIADB_URL=${TEST_MARIADB_URL:-mysql://root@127.0.0.1:3306/superbiz}
REDIS_URL_FOR_TESTS=${TEST_REDIS_URL:-redis://127.0.0.1:6379/14}
# Not VAR_DIR: a shell with the production exports (README) would put the test databases in its data folder.
VAR_ROOT=${TEST_VAR_DIR:-var}

# Production settings a developer's shell may export (README, "Production") would send tests to real
# models, backends or hosts: neither pass sees them (scripts/production-variables, which `make run` unsets
# too); each pass sets what it needs.
PRODUCTION_ONLY=()
while read -r name; do PRODUCTION_ONLY+=(-u "$name"); done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/production-variables)

embedded_pass() {
  env "${PRODUCTION_ONLY[@]}" -u DATABASE_URL -u REDIS_URL VAR_DIR="$VAR_ROOT/test-embedded" \
    TEST_REDIS_URL=redis://127.0.0.1:6379/13 TEST_BUSINESS_DATABASE=test_superbiz_business_embedded \
    $BIN/python -m pytest "$@"
}

# The benches' tests never touch the pass's backends (a bench runs in a subprocess that sets up its own
# embedded database and settings, bench/embedded.py, or is pure logic): the embedded pass runs them once.
production_pass() {
  env "${PRODUCTION_ONLY[@]}" DATABASE_URL="$MARIADB_URL" REDIS_URL="$REDIS_URL_FOR_TESTS" VAR_DIR="$VAR_ROOT/test-production" \
    $BIN/python -m pytest --ignore-glob='*/test_bench_*.py' "$@"
}

# A pass in the background, each line of its output prefixed with its name; its pytest exit status is
# written to $status_dir/<name>.
in_background() {
  local name=$1
  shift
  ( "$@" 2>&1 | sed -u "s/^/[$name] /"; echo "${PIPESTATUS[0]}" >"$status_dir/$name" ) &
}

if ! $BIN/python -m tests.services mariadb redis; then
  if [ "${CI:-}" = "true" ]; then echo "CI: MariaDB and Redis are required"; exit 1; fi
  echo "== embedded pass only: MariaDB or Redis not reachable (the production-style pass is required in CI) =="
  embedded_pass "$@"
  exit $?
fi

if [ "${TEST_SERIAL:-}" = "true" ]; then
  echo "== pass 1: embedded (SQLite, in-process) =="
  embedded_pass "$@" || { status=$?; echo "embedded pass failed (pytest exit $status)"; exit $status; }
  echo "== pass 2: production-style (MariaDB + Redis) =="
  production_pass "$@"
  exit $?
fi

echo "== both passes, side by side: [embedded] (SQLite, in-process) and [production] (MariaDB + Redis) =="
status_dir=$(mktemp -d)
trap 'rm -rf "$status_dir"' EXIT
in_background embedded embedded_pass "$@"
in_background production production_pass "$@"
wait
failed=0
for name in embedded production; do
  status=$(cat "$status_dir/$name" 2>/dev/null)
  status=${status:-1}  # no status written (the pass was killed): a failure
  echo "== $name pass: pytest exit $status =="
  [ "$status" -eq 0 ] || failed=$status
done
exit $failed
