"""A bad or missing environment value stops start-up with one line naming the variable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

BAD_VALUES = [
    ({"DATABASE_URL": "postgres://x@localhost/db"}, "DATABASE_URL"),
    ({"DATABASE_URL": "nonsense"}, "DATABASE_URL"),
    ({"REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://127.0.0.1:port/0"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://127.0.0.1:99999/0"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://[::1/0"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://127.0.0.1:6379/cache"}, "REDIS_URL"),  # redis-py would read database 0
    ({"REDIS_URL": "rediss://127.0.0.1:6380/0"}, "REDIS_URL"),  # Celery refuses TLS without ssl_cert_reqs
    ({"BUSINESS_DATABASE_URL": "sqlite:////tmp/business.sqlite3"}, "BUSINESS_DATABASE_URL"),  # MySQL only
    ({"BUSINESS_ADMIN_DATABASE_URL": "sqlite:////tmp/business.sqlite3"}, "BUSINESS_ADMIN_DATABASE_URL"),
    ({"LLM_PROVIDER": "gpt"}, "LLM_PROVIDER"),
    ({"LLM_PROVIDER": "openai", "LLM_BASE_URL": None, "LLM_MODEL": "m"}, "LLM_BASE_URL"),
    ({"LLM_PROVIDER": "scripted", "LLM_SCRIPT_PATH": None}, "LLM_SCRIPT_PATH"),
    ({"SEMANTIC_GUARD_PROVIDER": "gpt"}, "SEMANTIC_GUARD_PROVIDER"),
    ({"SEMANTIC_GUARD_PROVIDER": "openai", "LLM_BASE_URL": None, "LLM_MODEL": "m"}, "LLM_BASE_URL"),
    ({"SEMANTIC_GUARD_PROVIDER": "scripted", "LLM_SCRIPT_PATH": None}, "LLM_SCRIPT_PATH"),
    ({"LLM_BASE_URL": "ftp://models"}, "LLM_BASE_URL"),
    ({"TOOL_MAX_ROWS": "many"}, "TOOL_MAX_ROWS"),
    ({"TOOL_MAX_ROWS": "0"}, "TOOL_MAX_ROWS"),
    ({"TOOL_MAX_ROWS": "20000"}, "TOOL_MAX_ROWS"),
    ({"INVOCATION_STORE_TTL_SECONDS": "-5"}, "INVOCATION_STORE_TTL_SECONDS"),
    # Past any timedelta: the first repeated alert would have been a 500.
    ({"ALERT_DEDUP_WINDOW_SECONDS": "100000000000000"}, "ALERT_DEDUP_WINDOW_SECONDS"),
    ({"TOOL_TIMEOUT_SECONDS": "1e300"}, "TOOL_TIMEOUT_SECONDS"),
    ({"TOOL_TIMEOUT_SECONDS": "nan"}, "TOOL_TIMEOUT_SECONDS"),
    ({"DEBUG": "maybe"}, "DEBUG"),
    ({"DEBUG": "false", "SECRET_KEY": None}, "SECRET_KEY"),
    ({"DEBUG": "false", "SECRET_KEY": "short"}, "SECRET_KEY"),
    ({"DEBUG": "false", "SECRET_KEY": "ab" * 40}, "SECRET_KEY"),  # long, but not varied: check --deploy's W009
    ({"DEBUG": "false", "SECRET_KEY": "django-insecure-" + "q8#v1!Lk2@mW9$pR4^tY7&uI0*oP3(aS6)dF5_gH8"}, "SECRET_KEY"),
    ({"RUN_SOFT_TIME_LIMIT_SECONDS": "300", "RUN_TIME_LIMIT_SECONDS": "100"}, "RUN_TIME_LIMIT_SECONDS"),
    ({"RUN_SOFT_TIME_LIMIT_SECONDS": "20", "RUN_FALLBACK_RESERVE_SECONDS": "30"}, "RUN_FALLBACK_RESERVE_SECONDS"),
    ({"RUN_STALE_AFTER_SECONDS": "300"}, "RUN_STALE_AFTER_SECONDS"),  # not above RUN_TIME_LIMIT_SECONDS (300)
    ({"RUN_QUEUE_TIMEOUT_SECONDS": "5"}, "RUN_QUEUE_TIMEOUT_SECONDS"),
    ({"VAR_DIR": "/dev/null/var", "DATABASE_URL": None}, "VAR_DIR"),  # under a file: no folder can be made there
    ({"VAR_DIR": "/proc", "DATABASE_URL": None}, "VAR_DIR"),  # a folder no file can be created in
    ({"DATABASE_URL": "sqlite:////dev/null/db.sqlite3"}, "DATABASE_URL"),
    ({"DATABASE_URL": "sqlite:////tmp/x.sqlite3?timeout=abc"}, "DATABASE_URL"),  # a TypeError at each connection
    ({"DATABASE_URL": "mysql://root@127.0.0.1:3306/x?connect_timeout=1.5"}, "DATABASE_URL"),
    ({"RUN_MAX_ACTIVE_PER_USER": "0"}, "RUN_MAX_ACTIVE_PER_USER"),
    ({"ALERT_MAX_ACTIVE_RUNS": "many"}, "ALERT_MAX_ACTIVE_RUNS"),
    ({"TOOL_TIMEOUT_SECONDS": "45"}, "RUN_FALLBACK_RESERVE_SECONDS"),
    ({"LLM_MAX_TOKENS_PARAM": "max_output_tokens"}, "LLM_MAX_TOKENS_PARAM"),
    ({"LLM_MAX_OUTPUT_TOKENS_PLANNER": "lots"}, "LLM_MAX_OUTPUT_TOKENS_PLANNER"),
    ({"LLM_MAX_OUTPUT_TOKENS_SEMANTIC_GUARD": "0"}, "LLM_MAX_OUTPUT_TOKENS_SEMANTIC_GUARD"),
    ({"LLM_MAX_TOKENS_PER_RUN": "-1"}, "LLM_MAX_TOKENS_PER_RUN"),
    ({"LLM_MAX_PROMPT_TOKENS": "100"}, "LLM_MAX_PROMPT_TOKENS"),
    ({"LLM_PRICE_INPUT_PER_MTOK": "cheap", "LLM_PRICE_OUTPUT_PER_MTOK": "1"}, "LLM_PRICE_INPUT_PER_MTOK"),
    ({"LLM_PRICE_INPUT_PER_MTOK": "1", "LLM_PRICE_OUTPUT_PER_MTOK": "-2"}, "LLM_PRICE_OUTPUT_PER_MTOK"),
    ({"LLM_PRICE_INPUT_PER_MTOK": "1", "LLM_PRICE_OUTPUT_PER_MTOK": "NaN"}, "LLM_PRICE_OUTPUT_PER_MTOK"),
    ({"LLM_PRICE_INPUT_PER_MTOK": "0.27"}, "LLM_PRICE_OUTPUT_PER_MTOK"),
    ({"ALERT_INTAKE_TOKEN": "short"}, "ALERT_INTAKE_TOKEN"),
    ({"ALERT_DEDUP_WINDOW_SECONDS": "-1"}, "ALERT_DEDUP_WINDOW_SECONDS"),
    ({"ALERT_SINK_SLACK_URL": "hooks.slack.com/x", "PUBLIC_BASE_URL": "https://x"}, "ALERT_SINK_SLACK_URL"),
    ({"ALERT_SINK_WECOM_URL": "https://qyapi.weixin.qq.com/x", "PUBLIC_BASE_URL": None}, "PUBLIC_BASE_URL"),
    ({"PUBLIC_BASE_URL": "superbiz.example.com"}, "PUBLIC_BASE_URL"),
    ({"ALERT_DELIVERY_MAX_RETRIES": "50"}, "ALERT_DELIVERY_MAX_RETRIES"),
    ({"ALERT_LANGUAGE": "zh"}, "ALERT_LANGUAGE"),  # the interface's codes: zh-hans
    # Credentials have variables of their own: httpx would log them and send them as Basic auth instead.
    ({"LLM_BASE_URL": "http://svc:s3cret@127.0.0.1:8000/v1"}, "LLM_BASE_URL"),
    ({"PROMETHEUS_URL": "http://127.0.0.1:99999"}, "PROMETHEUS_URL"),
    ({"LOKI_URL": "http://[::1"}, "LOKI_URL"),
    ({"PROMETHEUS_URL": "http://prometheus internal:9090"}, "PROMETHEUS_URL"),
    ({"LLM_API_KEY": "sk-clé"}, "LLM_API_KEY"),
    ({"PROMETHEUS_TENANT_ID": "team a"}, "PROMETHEUS_TENANT_ID"),
]


@pytest.mark.parametrize(("env", "variable"), BAD_VALUES, ids=[f"{v}-{i}" for i, (_, v) in enumerate(BAD_VALUES)])
def test_it_stops_with_one_line_naming_the_variable(manage_py, env, variable):
    result = manage_py("check", env=env)

    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"configuration error: {variable}:"), lines[0]


def test_it_never_prints_a_password_from_a_bad_url(manage_py):
    result = manage_py("check", env={"DATABASE_URL": "postgres://app:s3cret-pw@db.internal/app"})

    assert result.returncode != 0
    assert "s3cret-pw" not in result.stderr
    assert "postgres://app:***@db.internal/app" in result.stderr


def test_a_url_with_credentials_is_refused_without_quoting_them(manage_py):
    result = manage_py("check", env={"LOKI_URL": "https://user:l0ki-pw@loki.internal"})

    assert result.returncode != 0
    assert "l0ki-pw" not in result.stderr
    assert "LOKI_URL: put credentials in their own variables" in result.stderr


def test_a_webhook_may_carry_its_credentials_in_its_url(manage_py):
    # Its URL is its only secret, and redacted wherever it appears.
    env = {"ALERT_SINK_WEBHOOK_URL": "https://hook:pw@hooks.internal/x", "PUBLIC_BASE_URL": "https://superbiz"}
    assert manage_py("check", env=env).returncode == 0


def test_the_sse_fan_out_reads_the_redis_url_as_the_other_redis_clients_do(manage_py):
    """django-eventstream takes keyword arguments: its user and TLS were left out, and a TLS or ACL Redis
    broke live streams while the cache and Celery worked."""
    shown = "from django.conf import settings as s; print(sorted(s.EVENTSTREAM_REDIS.items()))"
    tls = "rediss://alice:p%40ss@redis.internal:6380/2?ssl_cert_reqs=none"
    result = manage_py("shell", "-c", shown, env={"REDIS_URL": tls})

    assert result.returncode == 0, result.stderr
    assert "('ssl', True)" in result.stdout and "('ssl_cert_reqs', 'none')" in result.stdout
    assert "('username', 'alice')" in result.stdout
    assert "('password', 'p@ss')" in result.stdout and "('db', 2)" in result.stdout


def test_the_database_urls_options_are_kept(manage_py):
    shown = "from django.conf import settings as s; print(s.DATABASES['default']['OPTIONS'])"
    result = manage_py("shell", "-c", shown, env={"DATABASE_URL": "mysql://u:p@db.internal/app?ssl_mode=REQUIRED"})

    assert result.returncode == 0, result.stderr
    assert "'ssl_mode': 'REQUIRED'" in result.stdout and "'charset': 'utf8mb4'" in result.stdout


def test_it_accepts_the_defaults(manage_py):
    result = manage_py("check", env={"DATABASE_URL": None, "REDIS_URL": None, "LLM_PROVIDER": None})

    assert result.returncode == 0, result.stderr


def test_it_is_clean_under_production_settings(manage_py):
    production = {
        "DEBUG": "false",
        "SECRET_KEY": "Zq8#v1!Lk2@mW9$pR4^tY7&uI0*oP3(aS6)dF5_gH8+jK1=lZ2-xC4~vB7`nM0{q",
        "ALLOWED_HOSTS": "superbiz.example.com",
        "CSRF_TRUSTED_ORIGINS": "https://superbiz.example.com",
        "SECURE_HTTPS": "true",
    }

    result = manage_py("check", "--deploy", "--fail-level", "WARNING", env=production)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


# A worker of one process (``--pool solo``): were it to start after all, the timeout kills all of it, and no
# pool child is left holding the output pipe open (which would hang the test instead of failing it).
@pytest.mark.parametrize("program", [["worker", "--pool", "solo", "--queues", "never-consumed"], ["beat"]])
def test_celery_stops_with_the_same_one_line(program, tmp_path):
    """Workers and beat read the settings through Celery, which printed its own 80-line traceback."""
    env = {**os.environ, "RUN_STALE_AFTER_SECONDS": "10"}
    schedule = ["--schedule", str(tmp_path / "beat")] if program == ["beat"] else []
    result = subprocess.run(
        [str(Path(sys.executable).parent / "celery"), "-A", "config", *program, *schedule],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [lines[0]] and lines[0].startswith("configuration error: RUN_STALE_AFTER_SECONDS:"), result.stderr


def test_a_closed_output_stops_a_command_quietly_as_a_unix_tool_does():
    """``manage.py … | head -1``: the reader left; no traceback, exit 128 + SIGPIPE."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "help"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.stdout.close()  # before the command writes a word

    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr


def test_ctrl_c_that_no_command_handles_stops_it_with_one_line(manage_py):
    """Ctrl-C while Django and the apps load, or in a command without a handler of its own (here the
    ``shell``'s code gets it): no traceback of whatever was running, exit 128 + SIGINT."""
    interrupted = "import os, signal, time; os.kill(os.getpid(), signal.SIGINT); time.sleep(5)"
    result = manage_py("shell", "-c", interrupted)

    assert result.returncode == 130
    assert result.stderr.strip() == "interrupted"


def test_the_production_variables_make_run_and_make_test_drop_are_documented_settings():
    """scripts/production-variables is read by the Makefile and scripts/test.sh: a misspelt name would be a
    production setting that reaches the demo and the tests. Every setting has its row in the README."""
    listed = [
        line.split("#")[0].strip()
        for line in (ROOT / "scripts" / "production-variables").read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    documented = set(re.findall(r"^\| `([A-Z0-9_]+)`", (ROOT / "README.md").read_text(), re.MULTILINE))

    assert listed and [name for name in listed if name not in documented] == []
    assert "LLM_BASE_URL" in listed and "ALERT_INTAKE_TOKEN" in listed and "DATABASE_URL" not in listed
