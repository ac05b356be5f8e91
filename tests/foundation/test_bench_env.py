"""``bench/embedded.py``'s environment: a bench is embedded and offline whatever its caller exported."""

from __future__ import annotations

from bench.embedded import bench_env


def test_a_shell_holding_productions_exports_configures_nothing_in_a_bench(monkeypatch):
    """Its scenario loads would have gone to production's Loki and business database, its runs' guard to the
    hosted model."""
    for name, value in {
        "DATABASE_URL": "mysql://app:pw@db.internal/superbiz",
        "LOGS_BACKEND": "loki",
        "LOKI_URL": "https://loki.internal",
        "BUSINESS_ADMIN_DATABASE_URL": "mysql://admin:pw@db.internal/business",
        "SEMANTIC_GUARD_PROVIDER": "openai",
        "LLM_BASE_URL": "https://api.example.com/v1",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
    }.items():
        monkeypatch.setenv(name, value)

    env = bench_env("/tmp/bench-var", LLM_MODEL="given")

    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert (env["VAR_DIR"], env["LLM_PROVIDER"], env["LLM_MODEL"]) == ("/tmp/bench-var", "offline", "given")
    leaked = {"DATABASE_URL", "LOGS_BACKEND", "LOKI_URL", "BUSINESS_ADMIN_DATABASE_URL", "SEMANTIC_GUARD_PROVIDER"}
    assert leaked.isdisjoint(env) and "LLM_BASE_URL" not in env
