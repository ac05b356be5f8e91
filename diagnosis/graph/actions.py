"""The actions port: the eight node callables the graph runs, and the contract each must honour.

An action does the node's work (call a model, run tools, check bindings, render a template) and reports
it; the wrapper around it (``diagnosis.graph.wrappers``) owns everything that steers the graph: retry
counters, the planner mode, the attempt event. That split is why a buggy or forgetful action cannot loop
the graph or corrupt its audit trail.

Contract of every action ``action(state, config) -> Mapping[str, Any]``:

* ``state`` is a read-only view of the graph state (typed reads in ``diagnosis.graph.state``). The wrapper
  has already applied this attempt's counters, so ``planner_retry_count`` of a retried planner is 1.
* ``config["configurable"]`` holds ``thread_id`` and ``run_id`` (both the run id) and whatever the caller
  passed as ``config_extra`` to ``run_graph``; the run's own objects (models, tools, progress) come as
  LangGraph's runtime context (``run_graph(context=...)``, read with ``get_runtime``).
* Return only the keys the node owns (``OUTPUT_DEFAULTS``). An owned key left out takes its default, so
  nothing from an earlier attempt or an earlier evidence round can steer a route. Never return a counter,
  ``planner_mode``, ``orchestration_events`` or another node's key: that raises ``ActionContractError``.
* Keep the state lean: structured results only, no prompts, no model thinking, no raw tool payloads.
* The five status nodes report their outcome in their status key (``STATUS_FIELDS``) and may add
  ``failure_reason``: a snake_case code (``model_timeout``) that replaces the status-derived reason code
  of the attempt's event. It is not stored in the state; the fallback records the cause of a degraded run.
* An expected failure (timeout, rate limit, invalid model output, blocked tool) is a status, not an
  exception. Raising means "no safe answer is possible": the run fails and keeps a partial trace.
* Per node, besides its status:

  - planner: ``planner_plan``; reads ``planner_mode`` and, in EVIDENCE_GAP_ONLY mode, ``retry_context``.
  - executor: ``executor_output`` (``executor_evidence_v2``); a valid no-evidence answer is COMPLETED.
  - gatekeeper: ``gatekeeper_result``, ``verified_binding_count`` and ``verifier_verdict_ceiling``
    (PASS for a PASS, LOW_CONFID for a LOW_CONFID); unknown input fails closed to REJECT.
  - verified_input: ``verified_executor_output`` and ``verified_evidence``, projected from passed
    bindings only. No status: it completes or raises.
  - verifier: ``verifier_output`` (with ``facts_checked``), ``verifier_model_verdict`` and
    ``effective_verdict`` = ``min_verdict(model verdict, ceiling)``.
  - evidence_retry: ``retry_context`` (gaps, prior verified data, completed queries, constraints). No status.
  - composer: ``composer_output`` and, when COMPLETED, a non-blank ``final_answer``.
  - fallback: a non-blank deterministic ``final_answer``. No status. Its view already holds
    ``failure_reason``, the cause its wrapper derived (``gatekeeper_reject``), to choose the template.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.state import DiagnosisState
from diagnosis.graph.status import ComposerStatus, ExecutorStatus, GatekeeperStatus, PlannerStatus, VerifierStatus
from diagnosis.graph.topology import Node

NodeAction = Callable[[DiagnosisState, RunnableConfig], Mapping[str, Any]]

#: The keys each node owns, with the value an attempt gets for a key its action leaves out.
OUTPUT_DEFAULTS: Mapping[Node, Mapping[str, Any]] = MappingProxyType(
    {
        Node.PLANNER: {"planner_status": None, "planner_plan": None},
        Node.EXECUTOR: {"executor_status": None, "executor_output": None},
        Node.GATEKEEPER: {
            "gatekeeper_status": None,
            "gatekeeper_result": None,
            "verified_binding_count": 0,
            "verifier_verdict_ceiling": None,
        },
        Node.VERIFIED_INPUT: {"verified_executor_output": None, "verified_evidence": None},
        Node.VERIFIER: {
            "verifier_status": None,
            "verifier_output": None,
            "verifier_model_verdict": None,
            "effective_verdict": None,
        },
        Node.EVIDENCE_RETRY: {"retry_context": None},
        Node.COMPOSER: {"composer_status": None, "composer_output": None, "final_answer": None},
        Node.FALLBACK: {"final_answer": None},
    }
)


@dataclass(frozen=True)
class StatusField:
    key: str
    values: type[StrEnum]


#: The status of each node that reports an outcome; the other three complete or raise.
STATUS_FIELDS: Mapping[Node, StatusField] = MappingProxyType(
    {
        Node.PLANNER: StatusField("planner_status", PlannerStatus),
        Node.EXECUTOR: StatusField("executor_status", ExecutorStatus),
        Node.GATEKEEPER: StatusField("gatekeeper_status", GatekeeperStatus),
        Node.VERIFIER: StatusField("verifier_status", VerifierStatus),
        Node.COMPOSER: StatusField("composer_status", ComposerStatus),
    }
)

FAILURE_REASON_KEY = "failure_reason"
_REASON_CODE = re.compile(r"[a-z][a-z0-9_]{0,63}")


class ActionContractError(ValueError):
    """An action returned what its contract forbids: a bug in the action, so the run fails loudly."""


@dataclass(frozen=True)
class AttemptOutput:
    """An action's validated output: the state update and the optional specific reason code."""

    updates: dict[str, Any]
    failure_reason: str | None


def check_output(node: Node, output: object) -> AttemptOutput:
    """Validate ``output`` against ``node``'s contract and fill in the defaults of omitted owned keys."""
    if not isinstance(output, Mapping):
        raise ActionContractError(f"{node} action must return a mapping, got {type(output).__name__}")
    owned = OUTPUT_DEFAULTS[node]
    allowed = set(owned) | ({FAILURE_REASON_KEY} if node in STATUS_FIELDS else set())
    foreign = sorted(str(key) for key in output if key not in allowed)
    if foreign:
        raise ActionContractError(f"{node} action returned keys it does not own: {', '.join(foreign)}")
    failure_reason = output.get(FAILURE_REASON_KEY)
    if failure_reason is not None and not (isinstance(failure_reason, str) and _REASON_CODE.fullmatch(failure_reason)):
        raise ActionContractError(f"{node} action's failure_reason must be a snake_case code, got {failure_reason!r}")
    updates = {key: output.get(key, default) for key, default in owned.items()}
    if _must_answer(node, updates):
        answer = updates["final_answer"]
        if not isinstance(answer, str) or not answer.strip():
            raise ActionContractError(f"{node} action ended the run without a non-blank final_answer")
    return AttemptOutput(updates=updates, failure_reason=failure_reason)


def _must_answer(node: Node, updates: Mapping[str, Any]) -> bool:
    # The two edges to END: a completed composer and the fallback. Both must leave a safe answer.
    if node is Node.FALLBACK:
        return True
    return node is Node.COMPOSER and updates["composer_status"] == ComposerStatus.COMPLETED


@dataclass(frozen=True)
class DiagnosisActions:
    """One callable per node, all required; field names are the node ids."""

    planner: NodeAction
    executor: NodeAction
    gatekeeper: NodeAction
    verified_input: NodeAction
    verifier: NodeAction
    evidence_retry: NodeAction
    composer: NodeAction
    fallback: NodeAction

    def __post_init__(self) -> None:
        for field in fields(self):
            action = getattr(self, field.name)
            if not callable(action):
                raise TypeError(f"DiagnosisActions.{field.name} must be callable, got {type(action).__name__}")
            try:
                inspect.signature(action).bind(None, None)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"DiagnosisActions.{field.name} must accept (state, config): {exc}") from exc

    def for_node(self, node: Node) -> NodeAction:
        action: NodeAction = getattr(self, node.value)
        return action
