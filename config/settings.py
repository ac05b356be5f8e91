"""SuperBizAgent settings: every value comes from the environment (see README, "Environment").

Embedded mode (no ``REDIS_URL``, no ``DATABASE_URL``) and production differ only in these values; no
code branches on a "demo" flag.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from django.conf import global_settings
from redis.connection import SSLConnection, parse_url

from config import env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env.string("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env.boolean("DEBUG", False)
if DEBUG:
    SECRET_KEY = env.string("SECRET_KEY", "insecure-development-key-only-for-debug-mode-0123456789")
else:
    SECRET_KEY = env.string("SECRET_KEY")
    # As `check --deploy` judges a key (security.W009): long, varied, not one Django generated as insecure.
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
        raise env.ConfigError(
            "SECRET_KEY: must be at least 50 characters, of at least 5 different ones, when DEBUG is off"
            " (and not a django-insecure- key)"
        )

ALLOWED_HOSTS = env.string_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.string_list("CSRF_TRUSTED_ORIGINS", [])

# Production hardening; `manage.py check --deploy` must be clean when DEBUG is off.
SECURE_HTTPS = env.boolean("SECURE_HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_SSL_REDIRECT = SECURE_HTTPS and env.boolean("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env.integer("SECURE_HSTS_SECONDS", 31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE_HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    # Django's admin, on a site without its "view on site" redirect (config/admin_site.py).
    "config.admin_site.AuditAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_eventstream",
    "diagnosis",
    "tracing",
    "tools",
    "alerts",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outside the others, so that every 4xx under /api/ they produce is the API's JSON error.
    "config.api_errors.ApiErrorMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language of every page and message: the set_language cookie, else the browser's Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    # Django's CommonMiddleware, its slash-appending redirect for GET and HEAD only (config/trailing_slash.py).
    "config.trailing_slash.ReadsOnlySlashMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A signed-in reader's responses kept by no cache (config/private_responses.py).
    "config.private_responses.PrivateResponsesMiddleware",
    # The pages' Content-Security-Policy (config/content_security.py).
    "config.content_security.ContentSecurityPolicyMiddleware",
    # Last: the chain above runs in one switch to the request's thread, not two per method (config/sync_chain.py).
    "config.sync_chain.SynchronousChain",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# --- Database -------------------------------------------------------------------------------------
_default_db = env.database("DATABASE_URL", f"sqlite:///{VAR_DIR / 'superbiz.sqlite3'}")
if _default_db["ENGINE"] == "django.db.backends.sqlite3":
    _db_folder = Path(_default_db["NAME"]).parent
    _variable = "DATABASE_URL" if env.string("DATABASE_URL", "") else "VAR_DIR"
    try:
        _db_folder.mkdir(parents=True, exist_ok=True)
    except OSError as _error:
        raise env.ConfigError(f"{_variable}: cannot create {_db_folder}: {_error.strerror}") from None
    try:
        # SQLite writes its journal beside the database: a folder that exists but cannot be written would
        # fail every command's first query ("unable to open database file"), with a traceback.
        tempfile.TemporaryFile(dir=_db_folder).close()
    except OSError as _error:
        raise env.ConfigError(f"{_variable}: cannot write in {_db_folder}: {_error.strerror}") from None
    # A request thread and the in-process worker thread write at once: WAL, IMMEDIATE transactions
    # and a busy timeout keep SQLite from answering "database is locked".
    _default_db["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        **_default_db.get("OPTIONS", {}),  # the URL's own (``?timeout=60``) over these
    }
    # A file (not :memory:) so that live servers and worker subprocesses started by tests see it.
    _default_db["TEST"] = {"NAME": str(VAR_DIR / "test_superbiz.sqlite3")}
else:
    _default_db["OPTIONS"] = {
        "charset": "utf8mb4",
        "init_command": "SET sql_mode='STRICT_TRANS_TABLES', time_zone='+00:00'",
        # The URL's own (``?ssl_mode=REQUIRED``) over these: dropped, a deployment asking for TLS to its
        # database got a plain connection without a word.
        **_default_db.get("OPTIONS", {}),
    }
    _default_db["TEST"] = {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"}
_default_db["CONN_MAX_AGE"] = env.integer("DATABASE_CONN_MAX_AGE", 0)
DATABASES = {"default": _default_db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Read-only business database behind `query_mysql`. Production points it at a read-only MySQL user;
# embedded mode opens the loaded scenario's SQLite file read-only.
# MySQL only: the embedded mode's SQLite business database is the loaded scenario's file, not a setting.
BUSINESS_DATABASE_URL = env.string("BUSINESS_DATABASE_URL", "")
if BUSINESS_DATABASE_URL:
    env.database_url("BUSINESS_DATABASE_URL", BUSINESS_DATABASE_URL, schemes=("mysql",))
BUSINESS_SQLITE_PATH = VAR_DIR / "business.sqlite3"
# Used only by `load_scenario` to create a pack's tables in the business database (needs write rights).
BUSINESS_ADMIN_DATABASE_URL = env.string("BUSINESS_ADMIN_DATABASE_URL", "")
if BUSINESS_ADMIN_DATABASE_URL:
    env.database_url("BUSINESS_ADMIN_DATABASE_URL", BUSINESS_ADMIN_DATABASE_URL, schemes=("mysql",))

# --- Redis: Celery broker, SSE fan-out, cache ----------------------------------------------------
REDIS_URL = env.redis_url("REDIS_URL")
# Every Redis client (SSE fan-out, Celery broker and results, cache) gives up after these: a Redis that is
# down or silent turns into a quick JSON 503 (docs/decisions.md, "Redis down"), not a hung request.
REDIS_CONNECT_TIMEOUT_SECONDS = env.number("REDIS_CONNECT_TIMEOUT_SECONDS", 2.0, minimum=0.1)
REDIS_SOCKET_TIMEOUT_SECONDS = env.number("REDIS_SOCKET_TIMEOUT_SECONDS", 5.0, minimum=0.1)
_redis_timeouts = {
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_SECONDS,
    "socket_timeout": REDIS_SOCKET_TIMEOUT_SECONDS,
}

# Declared once for both branches: the backends take differently typed values (OPTIONS is a dict).
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env.string("CACHE_KEY_PREFIX", "superbiz"),
            "OPTIONS": dict(_redis_timeouts),
        }
    }
    # django-eventstream takes keyword arguments, not a URL: redis-py's own reading of it (as the cache's and
    # Celery's clients read it), its user and TLS included.
    _redis = parse_url(REDIS_URL)
    EVENTSTREAM_REDIS = {
        "host": _redis.get("host") or "127.0.0.1",
        "port": _redis.get("port") or 6379,
        "db": _redis.get("db", 0),
        **{key: _redis[key] for key in ("username", "password") if _redis.get(key)},
        **({"ssl": True} if _redis.get("connection_class") is SSLConnection else {}),
        **{key: value for key, value in _redis.items() if key.startswith("ssl_")},  # ?ssl_cert_reqs=none…
        **_redis_timeouts,
        # One attempt, no backoff (redis-py retries 3 times by default, ~4 s on a closed port): events are
        # stored before they are announced, so a lost announcement is filled from storage by the readers.
        "retry": None,
    }
else:
    # The database cache is shared by every process on the same database (web, CLI, tests' servers).
    CACHES = {
        "default": {
            # Django's database cache, minus its table count on every write: expired rows are purged on
            # the reaper's schedule instead (tools/store_cache.py), so no entry is culled before its TTL.
            "BACKEND": "tools.store_cache.PurgedDatabaseCache",
            "LOCATION": "superbiz_cache",
        }
    }

# The runs' event log is the SSE storage too (diagnosis/sse/storage.py): one row an event.
# An open stream asks again whether its reader may still read the run (signed out, deactivated, token deleted,
# no longer an auditor) before it sends an event, at most this often (diagnosis/sse/access.py).
SSE_ACCESS_RECHECK_SECONDS = env.number("SSE_ACCESS_RECHECK_SECONDS", 10.0, minimum=0.0)
EVENTSTREAM_STORAGE_CLASS = "diagnosis.sse.storage.RunEventStorage"
EVENTSTREAM_CHANNELMANAGER_CLASS = "diagnosis.sse.RunChannelManager"

# --- Celery ---------------------------------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL or "memory://"
# Only the health task keeps a result (runs report through the database); none without Redis.
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.integer("RUN_SOFT_TIME_LIMIT_SECONDS", 240, minimum=1)
CELERY_TASK_TIME_LIMIT = env.integer("RUN_TIME_LIMIT_SECONDS", 300, minimum=1)
if CELERY_TASK_TIME_LIMIT <= CELERY_TASK_SOFT_TIME_LIMIT:
    raise env.ConfigError("RUN_TIME_LIMIT_SECONDS: must be greater than RUN_SOFT_TIME_LIMIT_SECONDS")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT_SECONDS
CELERY_BROKER_TRANSPORT_OPTIONS = dict(_redis_timeouts)
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT_SECONDS
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_SOCKET_TIMEOUT_SECONDS
# Handing a run to the broker: one quick retry (a dropped pooled connection), then the chat answers 503.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_TASK_DEFAULT_QUEUE = env.string("CELERY_QUEUE", "superbiz")
# Where runs execute: Celery workers via the broker, or (no broker) in-process worker threads.
RUN_EXECUTION = env.choice("RUN_EXECUTION", ("embedded", "celery"), "celery" if REDIS_URL else "embedded")
if RUN_EXECUTION == "celery" and not REDIS_URL:
    raise env.ConfigError("RUN_EXECUTION: celery needs REDIS_URL (the broker)")
# How often the stale-run reaper passes: on a thread of celery beat's process, or of the embedded server
# (diagnosis/reaper.py, ``pass_periodically``). `/healthz` calls it late after three intervals without a pass.
REAPER_INTERVAL_SECONDS = 60.0
# Embedded mode: runs execute in-process on this many worker threads.
EMBEDDED_WORKER_THREADS = env.integer("EMBEDDED_WORKER_THREADS", 2, minimum=1, maximum=32)
# Called by config/asgi.py once the app is ready (a dotted path, so config imports no app): in embedded mode
# it starts the run pool and the stale-run reaper; with Celery it does nothing.
EMBEDDED_RUNTIME_STARTER = "diagnosis.dispatch.start_embedded_runtime"
# Called when the server stops (the ASGI lifespan's shutdown, config/lifespan.py): in embedded mode it ends the
# runs this process was executing or had queued; with Celery it does nothing.
EMBEDDED_RUNTIME_STOPPER = "diagnosis.dispatch.stop_embedded_runtime"
# A claimed RUNNING run whose heartbeat is older than this is reaped as FAILED (``worker_lost``).
RUN_STALE_AFTER_SECONDS = env.integer("RUN_STALE_AFTER_SECONDS", 600, minimum=10)
if RUN_STALE_AFTER_SECONDS <= CELERY_TASK_TIME_LIMIT:
    # A run waiting on one model call reports nothing, so writes no heartbeat, for as long as the call lasts.
    raise env.ConfigError(
        "RUN_STALE_AFTER_SECONDS: must be greater than RUN_TIME_LIMIT_SECONDS (a run waiting on one model call "
        "writes no heartbeat; a shorter stale age would reap it while it works)"
    )
# A RUNNING run that no worker has claimed for this long is ended as FAILED (``not_started``): its queue is
# backlogged past use to anyone waiting for the answer, or its task message was lost with the broker.
RUN_QUEUE_TIMEOUT_SECONDS = env.integer("RUN_QUEUE_TIMEOUT_SECONDS", 1800, minimum=10)
# A chat user may have at most this many runs RUNNING (queued or working) at once; one more message is
# refused with 429 ``too_many_runs``: every run may spend up to LLM_MAX_TOKENS_PER_RUN, so a script (or a
# stuck page) posting in a loop would otherwise spend without bound. Alert runs have their own limit below.
RUN_MAX_ACTIVE_PER_USER = env.integer("RUN_MAX_ACTIVE_PER_USER", 3, minimum=1, maximum=1000)
# A working run refreshes its heartbeat at most this often (a tenth of the stale age: never reaped alive).
RUN_HEARTBEAT_SECONDS = max(1, RUN_STALE_AFTER_SECONDS // 10)
# A run's progress reports wait at most this long to be written (and announced) together, one INSERT for
# all of them; the run writes them at once before it waits on a model or a backend. 0: one by one.
RUN_EVENT_LINGER_MS = env.integer("RUN_EVENT_LINGER_MS", 50, maximum=1000)

# --- Model provider -------------------------------------------------------------------------------
LLM_PROVIDER = env.choice("LLM_PROVIDER", ("offline", "openai", "scripted"), "offline")
LLM_BASE_URL = env.url("LLM_BASE_URL")
LLM_API_KEY = env.token("LLM_API_KEY")
LLM_MODEL = env.string("LLM_MODEL", "")
LLM_TIMEOUT_SECONDS = env.number("LLM_TIMEOUT_SECONDS", 60.0, minimum=0.1)
LLM_MAX_RETRIES = env.integer("LLM_MAX_RETRIES", 2, maximum=10)
LLM_SCRIPT_PATH = env.string("LLM_SCRIPT_PATH", "")
# Who plays the semantic guard that reviews every draft; empty: the LLM_PROVIDER. "offline" is the
# deterministic guard (no second model call); a hosted guard uses the same endpoint and model.
SEMANTIC_GUARD_PROVIDER = env.choice("SEMANTIC_GUARD_PROVIDER", ("", "offline", "openai", "scripted"), "")
if "openai" in (LLM_PROVIDER, SEMANTIC_GUARD_PROVIDER):
    for _name, _value in (("LLM_BASE_URL", LLM_BASE_URL), ("LLM_MODEL", LLM_MODEL)):
        if not _value:
            raise env.ConfigError(f"{_name}: required when LLM_PROVIDER or SEMANTIC_GUARD_PROVIDER is openai")
if "scripted" in (LLM_PROVIDER, SEMANTIC_GUARD_PROVIDER) and not LLM_SCRIPT_PATH:
    raise env.ConfigError("LLM_SCRIPT_PATH: required when LLM_PROVIDER or SEMANTIC_GUARD_PROVIDER is scripted")

# Model budgets (docs/providers.md, "Budgets"): each request's output cap per role, sent as the parameter the
# endpoint wants (OpenAI's reasoning models and newer APIs take max_completion_tokens); a run's token budget
# (prompt + completion, 0: none) and the prompt size of one request, to which the executor trims its context.
LLM_MAX_TOKENS_PARAM = env.choice("LLM_MAX_TOKENS_PARAM", ("max_tokens", "max_completion_tokens"), "max_tokens")
LLM_OUTPUT_TOKENS = {
    "planner": env.integer("LLM_MAX_OUTPUT_TOKENS_PLANNER", 2048, minimum=16),
    "executor": env.integer("LLM_MAX_OUTPUT_TOKENS_EXECUTOR", 4096, minimum=16),
    "verifier": env.integer("LLM_MAX_OUTPUT_TOKENS_VERIFIER", 2048, minimum=16),
    "composer": env.integer("LLM_MAX_OUTPUT_TOKENS_COMPOSER", 2048, minimum=16),
    "semantic_guard": env.integer("LLM_MAX_OUTPUT_TOKENS_SEMANTIC_GUARD", 1024, minimum=16),
}
LLM_MAX_TOKENS_PER_RUN = env.integer("LLM_MAX_TOKENS_PER_RUN", 200_000)
LLM_MAX_PROMPT_TOKENS = env.integer("LLM_MAX_PROMPT_TOKENS", 32_000, minimum=1024)
# Optional prices per million tokens (any currency): with both set, every run gets a cost.
LLM_PRICE_INPUT_PER_MTOK = env.decimal("LLM_PRICE_INPUT_PER_MTOK")
LLM_PRICE_OUTPUT_PER_MTOK = env.decimal("LLM_PRICE_OUTPUT_PER_MTOK")
if (LLM_PRICE_INPUT_PER_MTOK is None) != (LLM_PRICE_OUTPUT_PER_MTOK is None):
    _missing = "LLM_PRICE_OUTPUT_PER_MTOK" if LLM_PRICE_OUTPUT_PER_MTOK is None else "LLM_PRICE_INPUT_PER_MTOK"
    raise env.ConfigError(f"{_missing}: required with the other price, or leave both unset")

# --- Tools ----------------------------------------------------------------------------------------
TOOL_MAX_CALLS_PER_RUN = env.integer("TOOL_MAX_CALLS_PER_RUN", 24, minimum=1)
# At most Prometheus' own limit of points per series in one query_range (11,000): past it, every
# query_metrics call that asks for that many points would be refused by the server, not by the tool.
TOOL_MAX_ROWS = env.integer("TOOL_MAX_ROWS", 200, minimum=1, maximum=11_000)
TOOL_MAX_PAYLOAD_BYTES = env.integer("TOOL_MAX_PAYLOAD_BYTES", 262144, minimum=1024)
TOOL_TIMEOUT_SECONDS = env.number("TOOL_TIMEOUT_SECONDS", 10.0, minimum=0.1)
INVOCATION_STORE_TTL_SECONDS = env.integer("INVOCATION_STORE_TTL_SECONDS", 86400, minimum=60)
KNOWLEDGE_MAX_UPLOAD_BYTES = env.integer("KNOWLEDGE_MAX_UPLOAD_BYTES", 1048576, minimum=1024)
# Knowledge documents are the only uploads: an upload over their limit is counted, not kept (the request's
# body itself is capped by REQUEST_MAX_BYTES, below, before Django copies it).
FILE_UPLOAD_HANDLERS = ["tools.knowledge.upload_limit.LimitedMemoryUploadHandler"]
# POST /api/upload takes several documents at once, each held in memory up to KNOWLEDGE_MAX_UPLOAD_BYTES.
KNOWLEDGE_MAX_UPLOAD_FILES = env.integer("KNOWLEDGE_MAX_UPLOAD_FILES", 10, minimum=1, maximum=100)
# Sections (chunks) an uploaded document may have, and active ones the base may hold: every process rebuilds
# its search index from all of them after a change, within a search's deadline (20,000: about 2 s, docs/knowledge.md).
KNOWLEDGE_MAX_DOCUMENT_CHUNKS = env.integer("KNOWLEDGE_MAX_DOCUMENT_CHUNKS", 5000, minimum=1)
KNOWLEDGE_MAX_CHUNKS = env.integer("KNOWLEDGE_MAX_CHUNKS", 20_000, minimum=1)
# Active sections of the documents one user (not staff) uploaded: one account must not fill the base for all.
KNOWLEDGE_MAX_CHUNKS_PER_UPLOADER = env.integer("KNOWLEDGE_MAX_CHUNKS_PER_UPLOADER", 5000, minimum=1)
DATA_UPLOAD_MAX_NUMBER_FILES = KNOWLEDGE_MAX_UPLOAD_FILES
# The largest request body the server reads (config/body_limit.py): an upload of every file it may carry at
# its largest, and the form's other fields. Under ASGI Django stores a body before it checks anything.
REQUEST_MAX_BYTES = (
    KNOWLEDGE_MAX_UPLOAD_FILES * KNOWLEDGE_MAX_UPLOAD_BYTES + global_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
)
EMBEDDING_MODEL = env.string("EMBEDDING_MODEL", "")
# Wall-clock limit of one embeddings request, retry included (tools/knowledge/dense.py). A search runs inside a
# tool call, so its deadline is that of tools, not LLM_TIMEOUT_SECONDS, which is sized for chat replies.
EMBEDDING_TIMEOUT_SECONDS = env.number("EMBEDDING_TIMEOUT_SECONDS", 10.0, minimum=0.1)
if EMBEDDING_MODEL and not LLM_BASE_URL:
    raise env.ConfigError("EMBEDDING_MODEL: needs LLM_BASE_URL, the endpoint that serves the embeddings")

# --- Observability backends ------------------------------------------------------------------------
# Where query_metrics reads: the embedded metric_point table (filled by load_scenario) or a Prometheus
# HTTP API (Prometheus, Mimir, Grafana Cloud, VictoriaMetrics). See docs/observability-backends.md.
METRICS_BACKEND = env.choice("METRICS_BACKEND", ("embedded", "prometheus"), "embedded")
PROMETHEUS_URL = env.url("PROMETHEUS_URL")
PROMETHEUS_BEARER_TOKEN = env.token("PROMETHEUS_BEARER_TOKEN")
PROMETHEUS_USERNAME = env.string("PROMETHEUS_USERNAME", "")
PROMETHEUS_PASSWORD = env.string("PROMETHEUS_PASSWORD", "")
# Mimir's (and Cortex's) tenant, sent as X-Scope-OrgID; empty sends no tenant header.
PROMETHEUS_TENANT_ID = env.token("PROMETHEUS_TENANT_ID")
PROMETHEUS_TLS_VERIFY = env.boolean("PROMETHEUS_TLS_VERIFY", True)
# The label that names a service on your series (a pack's service column is written under it too).
PROMETHEUS_SERVICE_LABEL = env.string("PROMETHEUS_SERVICE_LABEL", "service")
# Where load_scenario writes a pack's metrics as TSDB blocks (promtool) when METRICS_BACKEND is prometheus:
# that Prometheus' --storage.tsdb.path on this host. Empty: packs fill metric_point only.
PROMETHEUS_BACKFILL_DIR = env.string("PROMETHEUS_BACKFILL_DIR", "")
# Where query_logs reads: the embedded log_record table or a Loki HTTP API (same variables as Prometheus').
LOGS_BACKEND = env.choice("LOGS_BACKEND", ("embedded", "loki"), "embedded")
LOKI_URL = env.url("LOKI_URL")
LOKI_BEARER_TOKEN = env.token("LOKI_BEARER_TOKEN")
LOKI_USERNAME = env.string("LOKI_USERNAME", "")
LOKI_PASSWORD = env.string("LOKI_PASSWORD", "")
LOKI_TENANT_ID = env.token("LOKI_TENANT_ID")
LOKI_TLS_VERIFY = env.boolean("LOKI_TLS_VERIFY", True)
LOKI_SERVICE_LABEL = env.string("LOKI_SERVICE_LABEL", "service")


def _check_http_backend(prefix: str, chosen: bool, url: str | None, bearer: str, username: str, label: str) -> None:
    """One HTTP backend's settings hang together: a URL when chosen, one kind of auth, a valid label name."""
    if chosen and not url:
        raise env.ConfigError(f"{prefix}_URL: required when the {prefix.lower()} backend is chosen")
    if bearer and username:
        raise env.ConfigError(f"{prefix}_BEARER_TOKEN: set either it or {prefix}_USERNAME, not both")
    if not re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", label):
        raise env.ConfigError(f"{prefix}_SERVICE_LABEL: {label!r} is not a label name")


_check_http_backend(
    "PROMETHEUS",
    METRICS_BACKEND == "prometheus",
    PROMETHEUS_URL,
    PROMETHEUS_BEARER_TOKEN,
    PROMETHEUS_USERNAME,
    PROMETHEUS_SERVICE_LABEL,
)
_check_http_backend("LOKI", LOGS_BACKEND == "loki", LOKI_URL, LOKI_BEARER_TOKEN, LOKI_USERNAME, LOKI_SERVICE_LABEL)

# --- Alert intake and chat-ops notifications (the alerts app) -------------------------------------
# The bearer token Alertmanager sends to POST /api/alerts/alertmanager; empty: that endpoint answers 404.
ALERT_INTAKE_TOKEN = env.token("ALERT_INTAKE_TOKEN")
if ALERT_INTAKE_TOKEN and len(ALERT_INTAKE_TOKEN) < 16:
    raise env.ConfigError("ALERT_INTAKE_TOKEN: must be at least 16 characters")
# A repeated notification of an alert group (same groupKey) within this many seconds of the run it started
# starts no new run (Alertmanager repeats a firing group every repeat_interval, 4 h by default).
ALERT_DEDUP_WINDOW_SECONDS = env.integer("ALERT_DEDUP_WINDOW_SECONDS", 3600)
# At most this many alert runs RUNNING at once: one alert group more answers 503 (Alertmanager retries it
# later), so that a noisy grouping or a leaked token cannot start runs without bound.
ALERT_MAX_ACTIVE_RUNS = env.integer("ALERT_MAX_ACTIVE_RUNS", 10, minimum=1, maximum=1000)
# The user that owns the sessions and runs alerts start; created on the first alert (no password, no login).
ALERT_SERVICE_USERNAME = env.string("ALERT_SERVICE_USERNAME", "alertmanager")
# Where people reach this site; the links in chat-ops notifications start with it.
PUBLIC_BASE_URL = env.url("PUBLIC_BASE_URL")
# Where a finished alert run's answer is posted: one URL per sink format (alerts/sinks.py), each optional.
ALERT_SINK_KINDS = ("webhook", "slack", "wecom", "dingtalk", "feishu")
ALERT_SINK_URLS = {
    kind: url
    for kind in ALERT_SINK_KINDS
    if (url := env.url(f"ALERT_SINK_{kind.upper()}_URL", credentials=True)) is not None
}
if ALERT_SINK_URLS and not PUBLIC_BASE_URL:
    raise env.ConfigError("PUBLIC_BASE_URL: required when an ALERT_SINK_*_URL is set (notifications link to runs)")
ALERT_SINK_TIMEOUT_SECONDS = env.number("ALERT_SINK_TIMEOUT_SECONDS", 10.0, minimum=0.1)
# Retries of one delivery after its first attempt, with exponential backoff (random waits of up to 30 s,
# 1 min, 2 min... 10 min: alerts.tasks.BACKOFF_SECONDS): about 13 minutes in all on average with 6.
ALERT_DELIVERY_MAX_RETRIES = env.integer("ALERT_DELIVERY_MAX_RETRIES", 6, maximum=20)

# --- Run budget -----------------------------------------------------------------------------------
# The run's model calls end this long before its soft time limit (in the process executing the run), so
# the deterministic fallback answer, and a tool call still under way, always fit before the limit.
RUN_FALLBACK_RESERVE_SECONDS = env.integer("RUN_FALLBACK_RESERVE_SECONDS", 30, minimum=1)
if not TOOL_TIMEOUT_SECONDS < RUN_FALLBACK_RESERVE_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT:
    raise env.ConfigError(
        "RUN_FALLBACK_RESERVE_SECONDS: must exceed TOOL_TIMEOUT_SECONDS and be below RUN_SOFT_TIME_LIMIT_SECONDS"
    )

# --- Auth, API, i18n, static ----------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "diagnosis.permissions.AuditorsReadOnly",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's three parsers, refusing an unreadable charset, JSON behind a nesting limit (config/api_parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "config.api_parsers.DepthLimitedJSONParser",
        "config.api_parsers.FormParser",
        "config.api_parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "config.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "SuperBizAgent API",
    "DESCRIPTION": "Chat, diagnosis trace and knowledge APIs of SuperBizAgent.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page's Swagger UI is served from this server (drf-spectacular-sidecar), never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "diagnosis.models.RunStatus",
        "InvocationStatusEnum": "tools.models.InvocationStatus",
        "DocumentStatusEnum": "tools.models.DocumentStatus",
    },
}

LANGUAGE_CODE = "en"
# The interface's languages (templates, static/js through the JavaScript catalogue, the admin); their
# catalogues are shipped compiled under locale/ (`make messages` regenerates them, docs/interface.md).
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language an alert's question is asked in, so the language of its run's answer, and of its chat-ops
# notification (alerts/questions.py, alerts/messages.py): a team's, whatever the alert's labels are in.
ALERT_LANGUAGE = env.choice("ALERT_LANGUAGE", tuple(code for code, _ in LANGUAGES), LANGUAGE_CODE)
# The language switch's choice outlives the browser session (Django's default cookie ends with it).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
TIME_ZONE = "UTC"
# Times shown with their zone's name (config/formats/): every time the interface shows is UTC.
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.string("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# Error pages and mails hide the URL settings that carry passwords, not only Django's secret-looking names.
DEFAULT_EXCEPTION_REPORTER_FILTER = "config.error_reports.SecretSafeExceptionReporterFilter"

LOG_LEVEL = env.choice("LOG_LEVEL", ("debug", "info", "warning", "error"), "info").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # No secret in a log line, not even in the traceback of an SDK error that quotes the request.
    "filters": {"redact_secrets": {"()": "config.redaction.RedactSecrets"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_secrets"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # django-eventstream logs every listener at INFO; that is noise next to the runs themselves.
    "loggers": {"django.db.backends": {"level": "INFO"}, "django_eventstream": {"level": "WARNING"}},
}
