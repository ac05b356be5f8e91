"""The offline planner: a bounded plan built from the question and the environment, and gap-only replans."""

from __future__ import annotations

from diagnosis.contracts import PlannerOutput, parse_output
from diagnosis.nodes.messages import planner_messages
from diagnosis.providers.offline.queries import describe
from tests.providers.offline.conversations import ENVIRONMENT


def _plan(
    models, question: str, *, history=None, mode: str = "NORMAL", retry_context=None, environment=ENVIRONMENT
) -> dict:
    messages = planner_messages(
        question=question, history=history or [], mode=mode, retry_context=retry_context, environment=environment
    )
    return parse_output(models.planner.complete(messages).content, PlannerOutput)


def _calls(plan: dict, tool: str) -> list[dict]:
    return [step["args"] for step in plan["steps"] if step["tool"] == tool]


def test_it_searches_knowledge_with_the_question_first(models):
    plan = _plan(models, "ledger api is slow since 08:30")
    assert plan["steps"][0] == {
        "tool": "lookup_knowledge",
        "purpose": "Find runbooks and postmortems that match the reported symptoms",
        "args": {"query": "ledger api is slow since 08:30", "top_k": 5},
    }


def test_it_reads_errors_of_every_service_named_ones_first_then_related_ones(models):
    plan = _plan(models, "ledger-api is slow since 08:30")
    errors = _calls(plan, "query_logs")
    assert [args["service"] for args in errors if args["level"] == "ERROR"] == [
        "ledger-api",
        "ledger-db",
        "web-frontend",
        "mailer",
    ]
    assert [args["service"] for args in errors if args["level"] == "WARN"] == ["ledger-api"]
    assert errors[0] == {
        "service": "ledger-api",
        "level": "ERROR",
        "start": "2025-06-01T08:00:00Z",
        "end": "2025-06-01T09:00:00Z",
        "limit": 200,
    }


def test_it_reads_the_metrics_of_the_named_services_with_a_step_that_fits_the_budget(models):
    plan = _plan(models, "ledger-api errors since 08:30")
    assert [(args["service"], args["metric"], args["step"]) for args in _calls(plan, "query_metrics")] == [
        ("ledger-api", "p99_latency_ms", 60),
        ("ledger-api", "error_rate", 60),
    ]


def test_it_reads_change_tables_up_to_shortly_after_the_onset(models):
    plan = _plan(models, "ledger-api errors since 08:30")
    statements = [args["sql"] for args in _calls(plan, "query_mysql")]
    assert statements[0] == (
        "SELECT * FROM config_changes WHERE changed_at < '2025-06-03' ORDER BY changed_at DESC LIMIT 40"
    )
    assert all("customers" not in statement for statement in statements), "a table without a time column is skipped"


def test_it_recognises_services_by_a_distinctive_part_of_their_name(models):
    plan = _plan(models, "The frontend shows errors and the mailer is stuck")
    warned = [args["service"] for args in _calls(plan, "query_logs") if args["level"] == "WARN"]
    assert warned == ["web-frontend", "mailer"]


def test_a_follow_up_question_keeps_the_services_of_the_history(models):
    plan = _plan(
        models,
        "and what changed before that?",
        history=[{"query": "why is ledger-db refusing clients?", "conclusion": "x"}],
    )
    assert [args["service"] for args in _calls(plan, "query_logs") if args["level"] == "WARN"] == ["ledger-db"]


def test_it_states_hypotheses_from_the_symptoms_and_a_named_alternative(models):
    plan = _plan(models, "ledger-api latency is up since 08:30; is ledger-db slowing it down?")
    assert 2 <= len(plan["hypotheses"]) <= 5
    assert "ledger-db degraded and slowed or failed its callers" in plan["hypotheses"]
    assert plan["hypotheses"][-1] == "a recent deploy or configuration change shortly before the onset"


def test_it_stays_within_the_contract_on_a_large_environment(models):
    services = [f"svc-{index}" for index in range(30)]
    environment = {
        **ENVIRONMENT,
        "services": services,
        "metrics": {service: ["m1", "m2", "m3"] for service in services},
    }
    plan = _plan(models, "svc-3 svc-4 svc-5 are all failing", environment=environment)
    assert len(plan["steps"]) == 12
    assert len([args for args in _calls(plan, "query_logs") if args["level"] == "ERROR"]) == 6


def test_without_a_window_it_can_only_search_knowledge(models):
    plan = _plan(models, "ledger-api errors", environment={**ENVIRONMENT, "window": {}})
    assert [step["tool"] for step in plan["steps"]] == ["lookup_knowledge"]


def test_a_gap_only_plan_queries_what_the_gaps_name_and_nothing_already_done(models):
    done = describe(
        "query_metrics",
        {
            "service": "ledger-db",
            "metric": "active_connections",
            "start": "2025-06-01T08:00:00Z",
            "end": "2025-06-01T09:00:00Z",
            "step": 60,
        },
    )
    retry = {
        "evidence_gaps": ["No verified metric of ledger-db shows a shift at the onset"],
        "missing_info": [],
        "prior_verified_claims": [],
        "completed_queries": [done],
    }
    plan = _plan(models, "ledger-api errors since 08:30", mode="EVIDENCE_GAP_ONLY", retry_context=retry)
    assert plan["mode"] == "EVIDENCE_GAP_ONLY"
    assert plan["steps"][0]["tool"] == "lookup_knowledge", "everything the gap names already ran"
    assert all(describe(step["tool"], step["args"]) != done for step in plan["steps"])


def test_a_gap_only_plan_asks_for_the_source_kinds_the_gaps_name(models):
    retry = {
        "evidence_gaps": ["No runbook or postmortem passage was verified for the errors of mailer"],
        "missing_info": [],
        "prior_verified_claims": [],
        "completed_queries": [],
    }
    plan = _plan(models, "ledger-api errors since 08:30", mode="EVIDENCE_GAP_ONLY", retry_context=retry)
    assert [step["tool"] for step in plan["steps"]] == ["lookup_knowledge"]
    assert "mailer" in plan["steps"][0]["args"]["query"]


def test_it_searches_knowledge_in_the_language_of_the_question(models):
    plan = _plan(models, "账本接口最近很慢，是什么原因？")
    assert plan["steps"][0]["args"]["query"] == "账本接口最近很慢，是什么原因？"
    retry = {
        "evidence_gaps": ["No runbook or postmortem passage was verified for the errors of mailer"],
        "missing_info": [],
        "prior_verified_claims": [],
        "completed_queries": [],
    }
    gap_plan = _plan(models, "账本接口最近很慢，是什么原因？", mode="EVIDENCE_GAP_ONLY", retry_context=retry)
    query = gap_plan["steps"][0]["args"]["query"]
    assert query.startswith("账本接口最近很慢，是什么原因？") and "mailer" in query
    english = _plan(models, "ledger-api errors since 08:30", mode="EVIDENCE_GAP_ONLY", retry_context=retry)
    assert english["steps"][0]["args"]["query"] == retry["evidence_gaps"][0]


def test_a_gap_only_plan_reads_the_chinese_gaps_the_verifier_writes(models):
    retry = {
        "evidence_gaps": [
            "没有 ledger-db 的已验证指标显示起始时间附近的变化",
            "没有为 ledger-db 的错误验证到知识库中的运行手册或复盘段落",
        ],
        "missing_info": [],
        "prior_verified_claims": [],
        "completed_queries": [],
    }
    plan = _plan(
        models, "ledger-api 从 08:30 开始调用失败，是什么原因？", mode="EVIDENCE_GAP_ONLY", retry_context=retry
    )
    assert [step["tool"] for step in plan["steps"]] == ["query_metrics", "lookup_knowledge"]
    assert plan["steps"][0]["args"]["service"] == "ledger-db"
    assert plan["steps"][1]["args"]["query"].startswith("ledger-api 从 08:30 开始调用失败")
