"""The material the Verifier allowed: the only input of the composer and of the post-composer fallback.

An allowed claim is a fact the verifier marked ``supported`` or ``indirect_support`` about a claim the
gatekeeper verified, together with that claim's verified excerpts. With a REJECT verdict nothing is allowed.

The fact is the verifier's own words, and the release policy lets a cited sentence use them: so a fact
stating a number or a time that none of its claim's excerpts contains (a model's slip: "at 09:58", "500
connections", quoted or not) would carry that number into a released answer, its conclusion and its
figures. Such a fact is replaced by its claim's first excerpt, verified text, and the claim stays allowed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from diagnosis.graph.status import RELEASABLE_VERIFICATIONS, Verdict
from diagnosis.release.causes import states_a_cause
from diagnosis.release.draft import protected_spans
from diagnosis.release.salient import Evidence, Kind, Token, salient_tokens

# The tokens a fact may state only when its own excerpts do: what a reader acts on and a model misremembers
# (a number or time, quoted or not, or a key's value: "max_connections:500"). Names are not checked: an
# excerpt is a fragment of a record whose service, host or pool the fact may name ("HikariPool-1", the
# service of a metric point), so a name in a fact is the verifier's word (docs/decisions.md).
CHECKED_KINDS = frozenset({Kind.NUMBER, Kind.TIME, Kind.QUOTE})
_KEY_VALUE = re.compile(r"[:=]-?\d")
_LETTER = re.compile(r"[^\W\d_]")


def _checked(token: Token) -> bool:
    # An identifier of no letters ("50/50", "13.10.2026") is a number or a date written otherwise.
    return token.kind in CHECKED_KINDS or (
        token.kind == Kind.IDENTIFIER and (bool(_KEY_VALUE.search(token.norm)) or not _LETTER.search(token.norm))
    )


def allowed_claims(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    if state.get("effective_verdict") not in (Verdict.PASS, Verdict.LOW_CONFID):
        return []
    verified = {
        claim["claim_id"]: claim["evidence"]
        for claim in (state.get("verified_executor_output") or {}).get("claims") or []
    }
    allowed: dict[str, dict[str, Any]] = {}
    for fact in (state.get("verifier_output") or {}).get("facts_checked") or []:
        claim_id = fact.get("claim_id")
        if claim_id in verified and fact.get("verification") in RELEASABLE_VERIFICATIONS and claim_id not in allowed:
            evidence = [
                {"tool_name": item["tool_name"], "raw_path": item["raw_path"], "matched_text": item["matched_text"]}
                for item in verified[claim_id]
            ]
            allowed[claim_id] = {
                "claim_id": claim_id,
                "fact": grounded_fact(fact["fact"], [item["matched_text"] for item in evidence]),
                "verification": fact["verification"],
                "evidence": evidence,
            }
    return list(allowed.values())


def grounded_fact(fact: str, excerpts: list[str]) -> str:
    """``fact``, when every number, time, quote and key's value it states is in ``excerpts`` and it states a
    cause only as they do (a copy of one of their sentences); else the first excerpt. The fact is shown as
    the claim's finding (the answer's evidence, the fallback, the Trace API's conclusion): a cause the
    verifier inferred from an excerpt that states none would be released as verified."""
    if not excerpts:
        return fact
    own = Evidence(excerpts)
    checked = [token for token in salient_tokens(fact) if _checked(token)]
    if not all(own.contains(token) for token in checked):
        return excerpts[0]
    if states_a_cause(_unquoted(fact, own)) and not own.copies_or_lists(fact):
        return excerpts[0]
    return fact


def _unquoted(fact: str, own: Evidence) -> str:
    """``fact`` without the quotes its excerpts hold word for word: a fact that quotes a cause its evidence
    states (``the runbook says: "… because all ten are taken"``) states no cause of its own."""
    kept, start = [], 0
    for low, high in protected_spans(fact):
        if own.quotes(fact[low + 1 : high - 1]):
            kept.append(fact[start:low])
            start = high
    return " ".join([*kept, fact[start:]])


def verifier_lists(state: Mapping[str, Any]) -> dict[str, list[str]]:
    output = state.get("verifier_output") or {}
    return {key: list(output.get(key) or []) for key in ("missing_info", "evidence_gaps", "recommended_actions")}
