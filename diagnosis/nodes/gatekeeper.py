"""Gatekeeper: the deterministic proof that every cited excerpt sits in a tool result of this very run.

No model is involved. A binding passes only if its invocation exists, belongs to this run, is READY, its
stored payload still matches the recorded digest, the tool name matches, ``raw_path`` resolves, and the
whitespace-normalised excerpt (3-500 characters, or a shorter text that is the whole value there) occurs in
the value there. A claim is verified only when
it has bindings and every one of them passes: one forged binding taints its claim. Everything unexpected
fails closed: PASS needs every claim verified, LOW_CONFID some, and anything else is REJECT.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from diagnosis.contracts import ExecutorOutput, InvalidOutput, parse_output
from diagnosis.graph.state import DiagnosisState, read_mapping
from diagnosis.graph.status import GatekeeperStatus, Verdict
from diagnosis.nodes.context import NodeContext
from diagnosis.release.salient import occurs_whole
from tools.jsonpath import PathError, parse, resolve
from tools.registry import default_registry
from tools.store import PayloadLookup

NODE = "gatekeeper"
# An excerpt shorter than this passes only as the whole text at its path (a setting's new value ``"20"``, a
# status ``"ok"``): a short excerpt inside a longer value (``20`` of ``2000``) says little and matches
# anywhere, and a small number (a row's ``id``, a ``COUNT(*)`` over a WHERE the model wrote) is easily made.
EXCERPT_MIN_CHARS = 3
EXCERPT_MAX_CHARS = 500

PayloadLoader = Callable[[str], PayloadLookup]


def normalise(text: str) -> str:
    return " ".join(text.split())


def value_text(value: Any) -> str:
    """The text an excerpt is searched in: strings as they are, anything else as canonical JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class CheckedBinding:
    claim_id: str
    index: int
    source_invocation_id: str
    tool_name: str
    raw_path: str
    passed: bool
    reason: str
    matched_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim_id": self.claim_id,
            "index": self.index,
            "source_invocation_id": self.source_invocation_id,
            "tool_name": self.tool_name,
            "raw_path": self.raw_path,
            "passed": self.passed,
            "reason": self.reason,
            "matched_text": self.matched_text,
        }


def check_binding(claim_id: str, index: int, binding: Mapping[str, Any], load: PayloadLoader) -> CheckedBinding:
    invocation_id = str(binding["source_invocation_id"])
    tool_name, raw_path = str(binding["tool_name"]), str(binding["raw_path"])

    def verdict(passed: bool, reason: str, matched: str = "") -> CheckedBinding:
        return CheckedBinding(claim_id, index, invocation_id, tool_name, raw_path, passed, reason, matched)

    excerpt = normalise(str(binding["evidence_excerpt"]))
    if not 0 < len(excerpt) <= EXCERPT_MAX_CHARS:
        return verdict(False, "excerpt_length")
    if raw_path.strip() == "$":
        # The whole payload is no citation: an excerpt could then span fields of different records.
        return verdict(False, "path_too_broad")
    lookup = load(invocation_id)
    if not lookup.ok:
        return verdict(False, str(lookup.failure))
    if lookup.invocation is None or lookup.invocation.tool_name != tool_name:
        return verdict(False, "tool_mismatch")
    try:
        value = resolve(lookup.payload, raw_path)
    except PathError:
        return verdict(False, "path_unresolved")
    tool = default_registry().get(tool_name)
    segments = parse(raw_path)
    if tool is not None and not tool.cites(segments, value):
        return verdict(False, "path_not_evidence")
    if isinstance(value, dict | list):
        # A record or a list is no citation either: its JSON would let an excerpt span several values.
        return verdict(False, "path_too_broad")
    text = normalise(value_text(value))
    if len(excerpt) < EXCERPT_MIN_CHARS and not (isinstance(value, str) and excerpt == text):
        return verdict(False, "excerpt_length")
    if tool is not None and tool.cited_whole(segments) and excerpt != text:
        return verdict(False, "excerpt_not_whole")
    if not occurs_whole(excerpt, text, cited=True):
        return verdict(False, "excerpt_not_found")
    return verdict(True, "ok", excerpt)


@dataclass(frozen=True)
class GatekeeperResult:
    status: GatekeeperStatus
    checked: list[CheckedBinding]
    verified_claim_ids: list[str]
    reason: str

    def claim_outcomes(self) -> list[str]:
        """Per claim, for the timeline: ``c1 verified`` or ``c2 excerpt_not_found`` (its first failed binding)."""
        outcomes: dict[str, str] = {}
        for binding in self.checked:
            if binding.claim_id in self.verified_claim_ids:
                outcomes.setdefault(binding.claim_id, "verified")
            elif not binding.passed:
                outcomes.setdefault(binding.claim_id, binding.reason)
        return [f"{claim_id} {outcome}" for claim_id, outcome in outcomes.items()]

    @property
    def verified_binding_count(self) -> int:
        verified = set(self.verified_claim_ids)
        return sum(1 for binding in self.checked if binding.claim_id in verified)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "reason": self.reason,
            "checked_bindings": [binding.to_dict() for binding in self.checked],
            "verified_claim_ids": self.verified_claim_ids,
            "bindings_total": len(self.checked),
            "bindings_passed": sum(binding.passed for binding in self.checked),
        }


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """The gatekeeper's counts for ``self_evaluation``; the same shape on every path."""
    return {
        "status": result.get("status"),
        "reason": result.get("reason"),
        "bindings_total": result.get("bindings_total", 0),
        "bindings_passed": result.get("bindings_passed", 0),
        "verified_claim_ids": result.get("verified_claim_ids", []),
    }


def cited_invocation_ids(executor_output: Mapping[str, Any]) -> set[str]:
    """The invocation ids the output's bindings cite, read before it is validated (anything goes)."""
    claims = executor_output.get("claims")
    return {
        str(binding["source_invocation_id"])
        for claim in (claims if isinstance(claims, list) else [])
        if isinstance(claim, Mapping) and isinstance(claim.get("bindings"), list)
        for binding in claim["bindings"]
        if isinstance(binding, Mapping) and "source_invocation_id" in binding
    }


def check_output(executor_output: Any, load: PayloadLoader) -> GatekeeperResult:
    """Check every binding of every claim; the status is computed from the verified claims only."""
    try:
        # Re-validated here: the gatekeeper trusts nothing it did not check itself.
        output = parse_output(json.dumps(executor_output), ExecutorOutput)
    except (InvalidOutput, TypeError, ValueError):
        return GatekeeperResult(GatekeeperStatus.REJECT, [], [], "malformed_output")
    claims = output["claims"]
    claim_ids = [claim["claim_id"] for claim in claims]
    if len(set(claim_ids)) != len(claim_ids):
        return GatekeeperResult(GatekeeperStatus.REJECT, [], [], "duplicate_claim_id")
    if not claims:
        return GatekeeperResult(GatekeeperStatus.REJECT, [], [], "no_claims")
    checked: list[CheckedBinding] = []
    verified: list[str] = []
    for claim in claims:
        results = [check_binding(claim["claim_id"], i, b, load) for i, b in enumerate(claim["bindings"])]
        checked.extend(results)
        if results and all(result.passed for result in results):
            verified.append(claim["claim_id"])
    if len(verified) == len(claims):
        return GatekeeperResult(GatekeeperStatus.PASS, checked, verified, "all_claims_verified")
    if verified:
        return GatekeeperResult(GatekeeperStatus.LOW_CONFID, checked, verified, "some_claims_verified")
    return GatekeeperResult(GatekeeperStatus.REJECT, checked, verified, "no_claim_verified")


def gatekeep(context: NodeContext, state: DiagnosisState, config: RunnableConfig) -> dict[str, Any]:
    context.progress.status(NODE, "started")
    output = dict(read_mapping(state, "executor_output"))
    result = check_output(output, context.payload_loader(cited_invocation_ids(output)))
    context.progress.evidence(
        node=NODE, status=result.status, claims=result.claim_outcomes(), passed=len(result.verified_claim_ids)
    )
    ceiling = {GatekeeperStatus.PASS: Verdict.PASS, GatekeeperStatus.LOW_CONFID: Verdict.LOW_CONFID}.get(result.status)
    return {
        "gatekeeper_status": result.status,
        "gatekeeper_result": result.to_dict(),
        "verified_binding_count": result.verified_binding_count,
        "verifier_verdict_ceiling": ceiling,
    }
