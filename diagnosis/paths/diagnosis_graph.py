"""DIAGNOSIS: the bounded state graph with the real nodes, and its result mapped onto the run.

The graph is compiled once per process; each run hands its ``NodeContext`` (models, harness, progress)
to it through LangGraph's runtime context. Models are built once per run (the scripted provider's cursor
and the ``{{inv:N}}`` resolver live exactly as long as the run). Each node attempt's orchestration event
is mirrored into the timeline as it happens (written with the run's next reports), so that a run whose
worker dies can still be explained. At every node boundary the run asks whether it was cancelled (or
already ended), and if so stops there, FAILED ``cancelled`` with its partial trace.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from functools import cache
from types import ModuleType
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import get_runtime

from diagnosis.failures import FailureCode
from diagnosis.figures.evidence import ReleasedClaim, build_figures
from diagnosis.graph.actions import ActionContractError, DiagnosisActions, NodeAction
from diagnosis.graph.builder import DiagnosisGraph, build_graph
from diagnosis.graph.runner import GraphRunError, GraphStopped, run_graph
from diagnosis.graph.state import DiagnosisState, initial_state, read_count, read_events
from diagnosis.graph.trace_builder import build_partial_trace, build_trace
from diagnosis.models import DiagnosisRun
from diagnosis.nodes import composer, evidence_retry, executor, fallback, gatekeeper, planner, verified_input, verifier
from diagnosis.nodes.allowed import allowed_claims
from diagnosis.nodes.context import NodeContext
from diagnosis.nodes.messages import prompt_versions
from diagnosis.nodes.release_review import release_summary
from diagnosis.paths.errors import RunFailure
from diagnosis.paths.options import ExecutionOptions
from diagnosis.progress import RunEnded, RunProgress
from diagnosis.providers.factory import build_models, config_from_settings, run_token_budget
from diagnosis.providers.invocations import run_invocation_resolver
from diagnosis.selectors import session_history
from diagnosis.services import RunResult, run_record_provider
from tools.catalog import environment
from tools.harness import ToolHarness
from tracing.steps import StepLog

logger = logging.getLogger(__name__)


def _node(module: ModuleType, name: str) -> NodeAction:
    """A node function as a graph action: the run's ``NodeContext`` comes from LangGraph's runtime context.

    The function is looked up when the node runs, not when the graph is built, so that the one compiled
    graph always calls the module's current function.
    """

    def action(state: DiagnosisState, config: RunnableConfig) -> Mapping[str, Any]:
        node_function: Callable[[NodeContext, DiagnosisState, RunnableConfig], Mapping[str, Any]]
        node_function = getattr(module, name)
        return node_function(get_runtime(NodeContext).context, state, config)

    action.__name__ = f"{module.__name__}.{name}"
    return action


ACTIONS = DiagnosisActions(
    planner=_node(planner, "plan"),
    executor=_node(executor, "execute"),
    gatekeeper=_node(gatekeeper, "gatekeep"),
    verified_input=_node(verified_input, "build"),
    verifier=_node(verifier, "verify"),
    evidence_retry=_node(evidence_retry, "prepare"),
    composer=_node(composer, "compose"),
    fallback=_node(fallback, "answer"),
)


@cache
def diagnosis_graph() -> DiagnosisGraph:
    """The process's one compiled graph: it holds no run data, each run brings its context."""
    return build_graph(ACTIONS, context_schema=NodeContext)


def _self_evaluation(
    context: NodeContext, state: DiagnosisState, released: list[str], provider: str, verdict: str
) -> dict[str, Any]:
    return {
        "path": "diagnosis",
        "provider": provider,
        "gatekeeper": gatekeeper.summary(dict(state.get("gatekeeper_result") or {})),
        "verifier_model_verdict": state.get("verifier_model_verdict"),
        "verdict_ceiling": state.get("verifier_verdict_ceiling"),
        "effective_verdict": verdict or None,
        "released_claim_ids": released,
        "evidence_retry_count": read_count(state, "evidence_retry_count"),
        "prompt_versions": prompt_versions(),
        "release": release_summary(context),
    }


def _released(state: DiagnosisState, *, degraded: bool) -> list[dict[str, Any]]:
    """The allowed claims the answer actually shows: the composer's citations, or all of them in the
    post-composer fallback; none in the pre-verification fallback, which never shows findings."""
    if not degraded:
        cited = set((state.get("composer_output") or {}).get("cited_claim_ids") or [])
        return [claim for claim in allowed_claims(state) if claim["claim_id"] in cited]
    return allowed_claims(state) if fallback.is_post_composer(state) else []


def _conclusion(state: DiagnosisState, released_claims: list[dict[str, Any]], degraded: bool) -> str:
    """One line for session history and lists: the first released fact, or why nothing was concluded."""
    if released_claims and not degraded:
        return released_claims[0]["fact"][:500]
    if degraded:
        return f"No verified diagnosis ({state.get('failure_reason') or 'fallback'})."
    return "No root cause could be established from the evidence."


def _figures(context: NodeContext, state: DiagnosisState, released_claims: list[dict[str, Any]]) -> dict[str, Any]:
    """The pictures of the released claims, drawn from their verified bindings' payloads only (those the
    gatekeeper verified, ``NodeContext.payload_loader``)."""
    bindings = {
        claim["claim_id"]: claim["evidence"]
        for claim in (state.get("verified_executor_output") or {}).get("claims") or []
    }
    claims = [
        ReleasedClaim(claim["claim_id"], claim["fact"], bindings.get(claim["claim_id"], []))
        for claim in released_claims
    ]
    load = context.payload_loader(
        str(binding.get("source_invocation_id")) for claim in claims for binding in claim.bindings
    )
    return build_figures(claims, lambda invocation_id: load(invocation_id).payload)


def execute(run: DiagnosisRun, progress: RunProgress, options: ExecutionOptions) -> RunResult:
    config = dataclasses.replace(
        config_from_settings(name=options.provider, script_path=options.script_path),
        deadline=options.model_deadline,
        token_budget=run_token_budget(),
    )
    # Executed right after its claim: a run is claimed once, so it has no tool calls nor steps yet (both
    # numbered from 1 without a read).
    harness = ToolHarness(run.pk, on_call=progress.tool, empty=True)
    models = build_models(config, resolve_invocation=run_invocation_resolver(run.pk, flush=harness.flush))
    run_record_provider(run.pk, provider=config.name)
    context = NodeContext(
        run_id=run.pk,
        question=run.query,
        history=session_history(run.session_id, before_run=run),
        environment=environment(),
        models=models,
        harness=harness,
        steps=StepLog(run.pk, empty=True, log=progress.log),
        progress=progress,
        model_deadline=options.model_deadline,
    )
    diagnosis_context = {
        "query": run.query,
        "history": context.history,
        "session_id": str(run.session_id),
        "run_id": str(run.pk),
    }
    try:
        state = run_graph(
            diagnosis_graph(),
            initial_state(diagnosis_context),
            run_id=str(run.pk),
            session_id=str(run.session_id),
            context=context,
            on_event=lambda event: progress.node_finished(**event),
            should_stop=progress.stop_requested,
        )
    except GraphRunError as error:
        # Stopped at a boundary because it was cancelled: the route ends in the last node that ran.
        cancelled = isinstance(error, GraphStopped)
        partial_trace = build_partial_trace(
            error.events,
            evidence_retry_count=error.evidence_retry_count,
            failed_node=error.failed_node,
            termination_reason=FailureCode.CANCELLED if cancelled else None,
        ).to_dict()
        if cancelled:
            raise RunFailure(FailureCode.CANCELLED, partial_trace) from error
        if isinstance(error.__cause__, SoftTimeLimitExceeded):
            raise RunFailure(FailureCode.TIME_LIMIT, partial_trace) from error
        if isinstance(error.__cause__, RunEnded):
            raise RunFailure(FailureCode.RUN_ENDED, partial_trace) from error
        # An error no node turned into a status (a bug, a store that went away): the operator's log holds its
        # traceback, and the failure names its kind, so that the run's trace says more than "graph error".
        cause = error.__cause__ or error
        logger.error("run %s failed in %s", run.pk, error.failed_node or "the graph", exc_info=cause)
        raise RunFailure(FailureCode.GRAPH_ERROR, partial_trace, detail=type(cause).__name__) from error
    trace = build_trace(read_events(state), evidence_retry_count=read_count(state, "evidence_retry_count"))
    released_claims = _released(state, degraded=trace.degraded)
    evidence = [
        {
            "claim_id": claim["claim_id"],
            "fact": claim["fact"],
            "tool_name": item["tool_name"],
            "raw_path": item["raw_path"],
            "excerpt": item["matched_text"],
        }
        for claim in released_claims
        for item in claim["evidence"]
    ]
    # A pre-verification fallback released nothing, so no verdict applies to it - even when an earlier
    # evidence round had one (nodes that did not run keep their keys from that round).
    verdict = "" if trace.degraded and not released_claims else str(state.get("effective_verdict") or "")
    released = [claim["claim_id"] for claim in released_claims]
    final_answer = state["final_answer"]
    if final_answer is None:
        # Unreachable: both edges to END (a completed composer, the fallback) must leave a non-blank answer,
        # and ``check_output`` fails the run otherwise.
        raise ActionContractError("the graph ended without a final_answer")
    return RunResult(
        final_answer=final_answer,
        conclusion=_conclusion(state, released_claims, trace.degraded),
        degraded=trace.degraded,
        effective_verdict=verdict,
        self_evaluation=_self_evaluation(context, state, released, config.name, verdict),
        orchestration_trace=trace.to_dict(),
        evidence=evidence,
        figures=_figures(context, state, released_claims),
    )
