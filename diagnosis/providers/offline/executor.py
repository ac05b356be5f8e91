"""The offline executor: runs the plan through the real tools, follows the evidence, then reports.

Its position in the loop is read from the conversation, never remembered: each stage's calls are derived
from the results of the stages before it, and the first stage with calls still lacking a result is the
one in progress. The stages:

1. the plan's steps (in EVIDENCE_GAP_ONLY mode, minus the completed queries; no later stage then, the
   retry is meant to be small);
2. a closer look at the root-cause candidate the plan's results reveal: its warnings, its metrics, the
   knowledge base searched with its own error words rather than the question's (a runbook describes
   errors, not the symptom the user saw), and the last lines of every level each service logged before
   the failure began, where a deploy, a flag or a migration announces itself (``analysis.changes``);
3. when the closer look's results name another candidate (a quiet component whose warnings came back with
   the lines logged before the failure, ahead of every error), the same look at that one, without the
   lines before the failure again; else, when the runbook that explains the errors came back without its
   fix section, a search for that runbook's remediation. Within what is left of the run's call budget
   (``environment.tool_calls_per_run``), and one stage, so that the report still comes within the
   executor node's turns;

then it analyses everything and answers with ``executor_evidence_v2`` (``evidence.py``). A call the node
refused to run (a result without an invocation id) stays pending; at most ``CALLS_PER_TURN`` calls go out
per turn. Tool data is only ever quoted, never obeyed: instruction-like text is dropped before analysis.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from diagnosis.graph.status import PlannerMode
from diagnosis.providers.base import ToolCall
from diagnosis.providers.offline import queries
from diagnosis.providers.offline.analysis.logs import records_of
from diagnosis.providers.offline.conversation import Conversation, ToolExchange
from diagnosis.providers.offline.entities import mentioned_services
from diagnosis.providers.offline.evidence import Findings, analyse_results, report
from diagnosis.providers.offline.memo import NO_MEMO, Memo
from diagnosis.providers.offline.planner import MAX_GAP_STEPS
from diagnosis.providers.offline.queries import Step
from diagnosis.providers.offline.text import ordered_terms, terms
from diagnosis.providers.offline.timing import Window, onset_from_question
from tools.names import TOOL_NAMES

# The executor node runs at most this many calls of one turn (diagnosis/nodes/executor.py); more are refused.
CALLS_PER_TURN = 8
MAX_ROOT_METRICS = 4
MAX_CHANGE_WINDOW_SERVICES = 5
CHANGE_WINDOW = timedelta(hours=1)
CHANGE_WINDOW_AFTER = timedelta(minutes=1)
MAX_QUERY_TERMS = 16
# Runbooks head their fix section with it; added to a runbook's title it finds that section.
REMEDIATION_WORD = "mitigation"
TITLE_SEPARATOR = " > "


@dataclass(frozen=True)
class Turn:
    """What the executor says this turn: tool calls, or the final evidence JSON."""

    tool_calls: list[ToolCall]
    content: str | None


@dataclass(frozen=True)
class _Context:
    question: str
    environment: dict[str, Any]
    window: Window | None
    onset: datetime | None
    focus: list[str]
    plan: list[Any]
    gap_mode: bool
    retry: dict[str, Any]
    memo: Memo
    calls_per_run: int | None
    """The run's tool-call budget (``environment.tool_calls_per_run``); None when the environment does not say."""

    def findings(self, exchanges: list[ToolExchange]) -> Findings:
        """The findings of ``exchanges``, analysed once per run: every turn asks again about the same sets
        (the plan's results, then those and the closer look's), and the findings depend on nothing else."""
        keys = tuple(exchange.memo_key("findings") for exchange in exchanges)
        key = None if None in keys else (self.question, self.onset, tuple(self.focus), keys)
        return self.memo.get(
            key, analyse_results, exchanges, question=self.question, onset=self.onset, focus=self.focus, memo=self.memo
        )


Stage = Callable[[list[ToolExchange], _Context], list[Step]]


def respond(conversation: Conversation, *, tools_offered: bool, memo: Memo = NO_MEMO) -> Turn:
    """The executor's next turn; without tools on offer it can only report what it already has. ``memo``
    (one per run) keeps what earlier turns read and concluded."""
    context = _context(conversation.task, memo)
    answered = [exchange for exchange in conversation.exchanges if exchange.invocation_id]
    pending = _pending(answered, context)
    if tools_offered and pending:
        first_id = len(conversation.exchanges) + 1
        calls = [
            ToolCall(
                id=f"call_{first_id + index}",
                name=step.tool,
                arguments=json.dumps(step.args, ensure_ascii=False, sort_keys=True),
            )
            for index, step in enumerate(pending[:CALLS_PER_TURN])
        ]
        return Turn(calls, None)
    prior_claims = [claim for claim in context.retry.get("prior_verified_claims") or [] if isinstance(claim, dict)]
    evidence = report(
        answered,
        context.findings(answered),
        focus=context.focus,
        prior_claims=prior_claims if context.gap_mode else [],
        prior_queries=[str(query) for query in context.retry.get("completed_queries") or []]
        if context.gap_mode
        else [],
    )
    return Turn([], json.dumps(evidence, ensure_ascii=False))


def _context(task: dict[str, Any], memo: Memo) -> _Context:
    environment = task.get("environment") or {}
    question = str(task.get("question") or "")
    services = [str(service) for service in environment.get("services") or []]
    window = Window.of(environment)
    return _Context(
        question=question,
        environment=environment,
        window=window,
        onset=onset_from_question(question, window),
        # The same question and services at every turn of the run: read once.
        focus=memo.get(("focus", question, tuple(services)), mentioned_services, question, services),
        plan=list((task.get("plan") or {}).get("steps") or []),
        gap_mode=task.get("mode") == PlannerMode.EVIDENCE_GAP_ONLY,
        retry=task.get("retry_context") or {},
        memo=memo,
        calls_per_run=budget if isinstance(budget := environment.get("tool_calls_per_run"), int) else None,
    )


def _pending(answered: list[ToolExchange], context: _Context) -> list[Step]:
    """The calls of the first stage that still lack results; each stage sees the results of those before."""
    by_description = {queries.describe(exchange.name, exchange.arguments): exchange for exchange in answered}
    stages: list[Stage] = [_plan_steps] if context.gap_mode else [_plan_steps, _closer_look, _last_look]
    earlier: list[ToolExchange] = []
    for stage in stages:
        steps = stage(earlier, context)
        pending = [step for step in steps if step.description not in by_description]
        if pending:
            return pending
        earlier = earlier + [by_description[step.description] for step in steps]
    return []


def _plan_steps(earlier: list[ToolExchange], context: _Context) -> list[Step]:
    """The plan's valid steps (in EVIDENCE_GAP_ONLY mode, those not already completed)."""
    completed = {str(query) for query in context.retry.get("completed_queries") or []} if context.gap_mode else set()
    steps = []
    for item in context.plan:
        if isinstance(item, dict) and item.get("tool") in TOOL_NAMES and isinstance(item.get("args"), dict):
            step = Step(item["tool"], str(item.get("purpose", "")), item["args"])
            if step.description not in completed:
                steps.append(step)
    return steps


def _closer_look(earlier: list[ToolExchange], context: _Context) -> list[Step]:
    """The root-cause candidate's warnings and metrics, runbooks searched with its error words, and the
    lines every nearby service logged just before the failure began (what changed)."""
    findings = context.findings(earlier)
    root = findings.logs.root_service
    if context.window is None:
        return []
    if root is None:
        # No error anywhere (a latency shift, a silent backlog): still read what changed before it.
        cutoff = findings.change_cutoff
        return _change_window(None, cutoff, context, earlier) if cutoff else []
    steps = _root_steps(root, findings, context)
    if findings.change_cutoff is not None:
        steps.extend(_change_window(root, findings.change_cutoff, context, earlier))
    return steps


def _last_look(earlier: list[ToolExchange], context: _Context) -> list[Step]:
    """A second look when the closer look found another candidate, else the runbook's fix section; within the
    run's call budget, and a second look leaving an evidence retry's calls (``MAX_GAP_STEPS``) to it. One
    stage, so that the report still comes within the executor's turns."""
    second = _second_look(earlier, context)
    steps = second or _remediation_lookup(earlier, context)
    if context.calls_per_run is None:
        return steps
    made = len({exchange.invocation_id for exchange in earlier})  # a later stage may repeat an earlier step
    kept = max(0, context.calls_per_run - made - (MAX_GAP_STEPS if second else 0))
    return steps[:kept]


def _second_look(earlier: list[ToolExchange], context: _Context) -> list[Step]:
    """The same look at another root-cause candidate, when what the closer look read names one.

    The closer look is planned from the plan's results, which hold the errors of the busiest services and the
    warnings of the asked-about ones; the lines logged before the failure can show a quiet component that
    began to fail first (a kernel warning that its table is full), which the plan never asked about.
    """
    # ``earlier`` starts with the plan's results, in the plan's order: the closer look's very findings.
    first = context.findings(earlier[: len(_plan_steps(earlier, context))]).logs.root_service
    findings = context.findings(earlier)
    root = findings.logs.root_service
    if root is None or root == first or context.window is None:
        return []
    return _root_steps(root, findings, context)


def _root_steps(root: str, findings: Findings, context: _Context) -> list[Step]:
    """The root-cause candidate's warnings and metrics, and runbooks searched with its error words."""
    assert context.window is not None
    steps = [queries.logs(root, "WARN", context.window, f"Warnings of {root}, the earliest failing service")]
    metric_names = (context.environment.get("metrics") or {}).get(root) or []
    steps.extend(
        queries.metric(root, str(name), context.window, f"Whether {name} of {root} moved at the onset")
        for name in metric_names[:MAX_ROOT_METRICS]
    )
    words = _error_words(root, [template.pattern for template in findings.logs.root_templates])
    steps.append(queries.knowledge(" ".join(words[:MAX_QUERY_TERMS]), f"Runbooks about the errors of {root}"))
    return steps


def _change_window(root: str | None, cutoff: datetime, context: _Context, earlier: list[ToolExchange]) -> list[Step]:
    """The last lines of every level before the first error, of the failing service first, then of the others.

    Changes are announced at INFO ("starting version 4.2.0", "feature flag enabled"), which the ERROR and
    WARN queries never see; the newest records before the onset are where the trigger sits. Services that
    report no error are read too, and before those that do: a migration job, a batch job, a DNS updater or a
    secret rotator changes others' world and logs nothing wrong itself; by name, such a service came after
    the busy ones (``api-gateway``) and was cut at ``MAX_CHANGE_WINDOW_SERVICES``.
    """
    assert context.window is not None
    start = max(context.window.start, cutoff - CHANGE_WINDOW)
    end = min(context.window.end, cutoff + CHANGE_WINDOW_AFTER)
    if start >= end:
        return []
    loud = {record.service for record in records_of(earlier, memo=context.memo)}
    services = sorted((str(service) for service in context.environment.get("services") or []), key=loud.__contains__)
    ordered = list(dict.fromkeys([*([root] if root else []), *context.focus, *services]))
    return [
        queries.latest_logs(service, start, end, f"What {service} logged just before the failure began")
        for service in ordered[:MAX_CHANGE_WINDOW_SERVICES]
    ]


def _error_words(root: str, patterns: list[str]) -> list[str]:
    """The root service's name, then the words its error templates share most (ties in reading order).

    Runbooks quote error messages, so these words find the passage that explains the errors; the masked
    ids and numbers are gone, and words repeated across templates are the failure's own vocabulary.
    """
    counts = Counter(word for pattern in patterns for word in terms(pattern))
    reading = ordered_terms(" ".join(patterns))
    return ordered_terms(root) + sorted(reading, key=lambda word: -counts[word])


def _remediation_lookup(earlier: list[ToolExchange], context: _Context) -> list[Step]:
    """The fix section of the runbook that explains the errors, when it has not come back yet."""
    findings = context.findings(earlier)
    if findings.passage is None or findings.fix is not None:
        return []
    document = findings.passage.chunk.title.split(TITLE_SEPARATOR)[0]
    return [queries.knowledge(f"{document} {REMEDIATION_WORD}", f"Remediation steps of {document}")]
