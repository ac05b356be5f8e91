"""Words that state a cause: the release path's one list of them.

A sentence naming a root cause, or a cause-and-effect link, states the answer's main finding: the offline
SemanticGuard wants a citation for it, and the post-composer fallback leaves such a guidance item out.
"""

from __future__ import annotations

import re

CAUSAL = re.compile(
    r"\b(?:because|caused|causing|causes? of|due to|led to|leads? to|leading to|result(?:s|ed)? in|result of"
    r"|as a result|triggered|therefore|hence|responsible for|stem(?:s|med)? from|so that"
    # "X made Y time out", "was made unavailable": the causative; not "made" before a time, a place or a
    # preposition ("a change made shortly before", "was made to order-db", "made at 14:02", "made.").
    r"|(?:made|makes)(?=\s+[\w-])(?!\s+(?:just|shortly|minutes|seconds|hours|days|earlier|recently|yesterday|today|before|after|at"
    r"|on|in|to|by|during|when|while|from|for|with|and|but)\b))\b"
    # "部署是连接池耗尽的原因", not "确认故障的原因" (an investigation step).
    r"|导致|因为|由于|造成|引起|引发|所以|因此|原因是|使得|致使|源于|归因于|是[^，。；,;]{0,40}的原因|原因[为在]|所致|起因|诱因|根源",
    re.IGNORECASE,
)
# Naming the root cause is the answer's main finding: an uncited sentence (not a heading) that does is one
# the guard will not release, whatever its other words ("The root cause was a configuration change.").
# "X is the cause", "the likely cause is X" name it too (not "confirm the cause with", "the cause is unclear").
ROOT_CAUSE = re.compile(
    r"\broot[ -]causes?\b|根本原因|根因|\bis the (?:main |likely |real |primary )?cause\b"
    r"|\bthe (?:main |likely |real |primary )?cause (?:is|was)\b(?!\s+(?:not|still|unclear|uncertain|unknown)\b)",
    re.IGNORECASE,
)


def without_root_cause(text: str) -> str:
    """``text`` without the phrase "root cause" itself (a heading's words, no link of cause and effect)."""
    return ROOT_CAUSE.sub(" ", text)


def states_a_cause(text: str) -> bool:
    """Whether ``text`` names a root cause or states a cause-and-effect link: a finding, which only evidence
    that says so may state."""
    return bool(ROOT_CAUSE.search(text) or CAUSAL.search(without_root_cause(text)))
