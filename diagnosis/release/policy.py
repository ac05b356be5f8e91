"""The deterministic release policy: what a draft must satisfy before anyone may read it.

Rules, each with the reason it exists (``docs/node-contracts.md`` has the table):

- ``refused markup`` (raw HTML, images, links, footnotes, link references, code blocks): text
  that renders hidden, elsewhere or outside any sentence cannot be tied to a citation;
- ``phantom_marker``: a ``[cN]`` that is no allowed claim would lend the look of evidence to a sentence;
- ``citations_mismatch``: the markers in the prose are the citations, so they must equal
  ``cited_claim_ids`` - the list the run records as released;
- ``uncited_finding``: a sentence or list item with a salient token states a finding, so it carries a
  marker - unless it repeats, word for word, evidence its own paragraph cites (a quoted passage spanning
  several sentences), or it is one of the verifier's own recommended actions, gaps or missing items,
  which the post-composer fallback shows as they are too (their salient tokens must still occur in
  some allowed claim: ``grounded_guidance``);
- ``ungrounded_token``: every salient token of a cited sentence occurs in the facts or excerpts of the
  claims that sentence cites - a real marker does not vouch for a number it never contained.

The policy never edits a draft: it releases it whole or returns every finding, and the composer's
retry gets the findings.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diagnosis.release.causes import states_a_cause
from diagnosis.release.draft import link_text, read_draft, shown, strip_markers
from diagnosis.release.salient import NEGATION, Evidence, Kind, Token, normalise, salient_tokens

POLICY_VERSION = "release-policy-v1"
_CLAUSE_END = re.compile(r"[.!?;:。！？；：]")
FINDING_TEXT_CHARS = 300


@dataclass(frozen=True)
class Finding:
    rule: str
    sentence: str
    """The draft's words the finding is about: restricted audit material, never public."""
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "sentence": self.sentence[:FINDING_TEXT_CHARS],
            "detail": self.detail[:FINDING_TEXT_CHARS],
        }


@dataclass(frozen=True)
class PolicyResult:
    findings: list[Finding] = field(default_factory=list)

    @property
    def released(self) -> bool:
        return not self.findings

    @property
    def rule(self) -> str:
        """The rule that decided: the first finding's, or ``passed``."""
        return self.findings[0].rule if self.findings else "passed"

    def rule_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.rule] = counts.get(finding.rule, 0) + 1
        return counts


def claim_texts(claim: Mapping[str, Any]) -> list[str]:
    """What a claim lets a sentence say: its fact and its verified excerpts."""
    excerpts = [str(item.get("matched_text") or "") for item in claim.get("evidence") or []]
    return [str(claim.get("fact") or ""), *excerpts]


def grounded_guidance(
    items: Sequence[str], allowed_claims: Sequence[Mapping[str, Any]], known_names: Collection[str] = ()
) -> list[str]:
    """The verifier's guidance items whose salient tokens all occur in some allowed claim, and which state no
    cause unless they copy one from the evidence.

    Guidance (recommended actions, gaps, missing information) cites nothing, but it may still not name a
    number, host or service the verified material never contained, nor a root cause or a cause-and-effect
    link ("The root cause is a full disk; replace it"): that is a finding, which only a cited claim states.
    """
    evidence = Evidence(text for claim in allowed_claims for text in claim_texts(claim))
    return [
        item
        for item in items
        if all(evidence.contains(token) for token in salient_tokens(item, known_names))
        and (not states_a_cause(item) or evidence.copies_or_lists(item))
    ]


def check_draft(
    answer_markdown: str,
    cited_claim_ids: Sequence[str],
    allowed_claims: Sequence[Mapping[str, Any]],
    *,
    guidance: Collection[str] = (),
    known_names: Collection[str] = (),
) -> PolicyResult:
    """Every finding of the release policy on one draft; none means it may be released."""
    texts = {str(claim["claim_id"]): claim_texts(claim) for claim in allowed_claims}
    draft = read_draft(answer_markdown, claim_ids=texts)
    findings = [Finding(refusal.rule, refusal.detail) for refusal in draft.refusals]
    used = draft.markers
    findings += [Finding("phantom_marker", f"[{marker}]") for marker in sorted(used - set(texts))]
    cited = set(cited_claim_ids)
    findings += [Finding("phantom_marker", f"cited_claim_ids: {claim_id}") for claim_id in sorted(cited - set(texts))]
    if used != cited:
        detail = f"markers {sorted(used)} but cited_claim_ids {sorted(cited)}"
        findings.append(Finding("citations_mismatch", detail, detail))
    verbatim_guidance = {normalise(link_text(item)) for item in guidance}
    everything = Evidence(text for claim in allowed_claims for text in claim_texts(claim))
    for unit in draft.units:
        body = strip_markers(unit.text, texts)
        tokens = salient_tokens(body, known_names)
        if unit.kind == "item" and normalise(body) in verbatim_guidance:
            missing = [token.text for token in tokens if not everything.contains(token)]
            if missing:
                findings.append(Finding("ungrounded_token", unit.text, ", ".join(missing[:10])))
            continue
        if not tokens:
            continue
        if not unit.markers:
            block_evidence = Evidence(
                text for marker in draft.block_markers(unit.block) for text in texts.get(marker, [])
            )
            if not block_evidence.copies(body):
                findings.append(Finding("uncited_finding", unit.text, ", ".join(token.text for token in tokens[:5])))
            continue
        evidence = Evidence(text for marker in unit.markers for text in texts.get(marker, []))
        missing = [token.text for token in tokens if not evidence.contains(token)]
        if missing:
            findings.append(Finding("ungrounded_token", unit.text, ", ".join(missing[:10])))
        cut = [token.text for token in tokens if _quote_drops_negation(token, body, evidence)]
        if cut:
            findings.append(Finding("quote_drops_negation", unit.text, ", ".join(cut[:10])))
    return PolicyResult(findings)


def _quote_drops_negation(token: Token, body: str, evidence: Evidence) -> bool:
    """A quote whose words the evidence states only after a negation ("Do not raise X"), in a sentence that
    says no negation before it nor in its clause after it: 'The runbook says to "raise X"' reverses what the
    runbook says. Said with its negation ('The runbook says not to "raise X"', "`X` should not be raised") it
    is the runbook's word."""
    if token.kind != Kind.QUOTE or not token.norm or evidence.states(token) or not evidence.contains(token):
        return False
    at = max(body.find(token.text), 0)
    # Before the quote, or in its own clause after it ("`X` should not be raised", "`X` 不要调大").
    after = _CLAUSE_END.split(body[at + len(token.text) :], maxsplit=1)[0]
    # Read as the page shows them: "not\\_ready" is "not_ready", no negation.
    return not NEGATION.search(shown(body[:at])) and not NEGATION.search(shown(after))
