"""The offline planner: a bounded, explainable evidence plan built from the question and the environment.

It never guesses an answer. It reads which services the question names, which symptoms it describes and
when it says the incident began, then plans the queries an on-call engineer would run first:

1. the knowledge base, with the question itself;
2. ERROR logs of every service, the named ones first (a cause often sits in a service nobody mentioned:
   the cache behind the slow API, the broker behind the stuck publisher), capped;
3. WARN logs of the named services;
4. recent rows of the business tables that look like change records;
5. the metrics of the named services, as far as the step budget allows.

In EVIDENCE_GAP_ONLY mode it plans only for the services and source kinds the gaps name, and drops every
query already listed in ``completed_queries``.

The knowledge base is searched in the question's language: the question itself is the query, and a gap
query for a Chinese question (the verifier writes its gaps in English) starts with the question, so a
Chinese runbook still matches it.
"""

from __future__ import annotations

from typing import Any

from diagnosis.graph.status import PlannerMode
from diagnosis.language import language_of
from diagnosis.providers.offline import queries
from diagnosis.providers.offline.business_queries import latest_rows_sql, ranked_tables
from diagnosis.providers.offline.entities import mentioned_services
from diagnosis.providers.offline.queries import Step
from diagnosis.providers.offline.text import terms
from diagnosis.providers.offline.timing import Window, onset_from_question
from diagnosis.providers.offline.vocabulary import CHANGE_HYPOTHESIS, symptoms_in
from tools.names import ToolName

MAX_STEPS = 12
MAX_ERROR_LOG_SERVICES = 6
MAX_WARN_LOG_SERVICES = 2
MAX_TABLES = 3
MAX_GAP_STEPS = 4
MAX_HYPOTHESES = 5

# Words of a gap that ask for a kind of source; the verifier phrases its gaps with them.
_GAP_SOURCES = {
    ToolName.QUERY_METRICS: ("metric", "指标"),
    ToolName.QUERY_LOGS: ("log", "日志"),
    ToolName.LOOKUP_KNOWLEDGE: ("runbook", "knowledge", "postmortem", "知识"),
    ToolName.QUERY_MYSQL: ("change", "deploy", "business", "config", "变更"),
}


def plan(task: dict[str, Any]) -> dict[str, Any]:
    """The planner's reply for one task (the contract's planner output)."""
    question = str(task.get("question") or "")
    environment = task.get("environment") or {}
    gap_only = task.get("mode") == PlannerMode.EVIDENCE_GAP_ONLY
    mode = PlannerMode.EVIDENCE_GAP_ONLY if gap_only else PlannerMode.NORMAL
    services = [str(service) for service in environment.get("services") or []]
    focus = mentioned_services(question, services) or _services_from_history(task, services)
    window = Window.of(environment)
    if mode is PlannerMode.EVIDENCE_GAP_ONLY:
        steps = _gap_steps(task, question, services, focus, window)
    else:
        steps = _normal_steps(question, environment, services, focus, window)
    return {
        "mode": mode.value,
        "hypotheses": _hypotheses(question, focus),
        "steps": [step.as_plan_step() for step in steps[:MAX_STEPS]],
    }


def _services_from_history(task: dict[str, Any], services: list[str]) -> list[str]:
    """A follow-up ("and what about yesterday?") names no service: take those of the previous questions."""
    for turn in reversed(task.get("history") or []):
        named = mentioned_services(str(turn.get("query") or ""), services)
        if named:
            return named
    return []


def _normal_steps(
    question: str, environment: dict[str, Any], services: list[str], focus: list[str], window: Window | None
) -> list[Step]:
    steps = [queries.knowledge(question, "Find runbooks and postmortems that match the reported symptoms")]
    if window is None:
        return steps
    for service in _by_relevance(question, services, focus)[:MAX_ERROR_LOG_SERVICES]:
        steps.append(queries.logs(service, "ERROR", window, f"Errors of {service} around the incident"))
    for service in focus[:MAX_WARN_LOG_SERVICES]:
        steps.append(queries.logs(service, "WARN", window, f"Warnings of {service}: early signs and symptoms"))
    steps.extend(_table_steps(question, environment, focus, window)[: MAX_STEPS - len(steps) - 1])
    metrics = environment.get("metrics") or {}
    for service in focus:
        for name in metrics.get(service) or []:
            steps.append(queries.metric(service, str(name), window, f"How {name} of {service} moved at the onset"))
    return steps[:MAX_STEPS]


def _by_relevance(question: str, services: list[str], focus: list[str]) -> list[str]:
    """The named services, then the others sharing most name words with the question (catalog order on ties)."""
    words = terms(question)
    others = [service for service in services if service not in focus]
    return focus + sorted(others, key=lambda service: -len(terms(service) & words))


def _table_steps(question: str, environment: dict[str, Any], focus: list[str], window: Window | None) -> list[Step]:
    context = terms(question) | {word for service in focus for word in terms(service)}
    onset = onset_from_question(question, window)
    tables = ranked_tables(environment.get("business_tables") or {}, context)[:MAX_TABLES]
    return [
        queries.sql(
            latest_rows_sql(table, column, onset, window), f"Recent changes recorded in {table} before the onset"
        )
        for table, column in tables
    ]


def _gap_steps(
    task: dict[str, Any], question: str, services: list[str], focus: list[str], window: Window | None
) -> list[Step]:
    """Queries for the gaps only: the services they name (else the question's), the sources they ask for."""
    retry = task.get("retry_context") or {}
    gaps = " ".join(str(gap) for gap in [*(retry.get("evidence_gaps") or []), *(retry.get("missing_info") or [])])
    completed = {str(query) for query in retry.get("completed_queries") or []}
    named = mentioned_services(gaps, services) or focus
    lowered = gaps.lower()
    wanted = [tool for tool, cues in _GAP_SOURCES.items() if any(cue in lowered for cue in cues)] or list(_GAP_SOURCES)
    environment = task.get("environment") or {}
    candidates: list[Step] = []
    for tool in wanted:
        candidates.extend(_candidates_for(tool, gaps or question, question, environment, named, window))
    fresh = [step for step in candidates if step.description not in completed]
    if not fresh:
        fresh = [queries.knowledge(f"{question} {gaps}".strip(), "Look for a passage that closes the evidence gaps")]
    return fresh[:MAX_GAP_STEPS]


def _candidates_for(
    tool: str, gaps: str, question: str, environment: dict[str, Any], named: list[str], window: Window | None
) -> list[Step]:
    if tool == ToolName.LOOKUP_KNOWLEDGE:
        query = f"{question} {gaps}".strip() if language_of(question) == "zh" else gaps
        return [queries.knowledge(query, "Find a runbook passage about the unexplained evidence")]
    if window is None:
        return []
    if tool == ToolName.QUERY_LOGS:
        return [
            queries.logs(service, level, window, f"{level} logs of {service} for the gap")
            for service in named
            for level in ("ERROR", "WARN")
        ]
    if tool == ToolName.QUERY_METRICS:
        metrics = environment.get("metrics") or {}
        return [
            queries.metric(service, str(name), window, f"{name} of {service} for the gap")
            for service in named
            for name in metrics.get(service) or []
        ]
    return _table_steps(question, environment, named, window)


def _hypotheses(question: str, focus: list[str]) -> list[str]:
    """Causes worth checking, from the symptom families the question describes, plus a recent change."""
    found: list[str] = []
    for symptom in symptoms_in(question):
        found.extend(hypothesis for hypothesis in symptom.hypotheses if hypothesis not in found)
    if len(focus) > 1:
        found.append(f"{focus[1]} degraded and slowed or failed its callers")
    found.append(CHANGE_HYPOTHESIS)
    if len(found) < 2:
        found.insert(0, "a failing or saturated dependency of the affected service")
    return found[:MAX_HYPOTHESES]
