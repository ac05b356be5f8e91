"""Which of the environment's services a question is about.

An exact name ("payment-service") always counts. People also say "the gateway" or "fraud-check", so a
service also counts when one of its distinctive name parts appears as a word of the question - but only a
part that no other service shares ("catalog" in catalog-service and catalog-db names neither).
"""

from __future__ import annotations

import re

# Name parts that say what kind of thing a service is, not which one: never enough to identify it.
_GENERIC_PARTS = frozenset({"service", "services", "server", "worker", "cluster", "prod", "main", "core", "node"})
_NAME_PART = re.compile(r"[a-z0-9]+")
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def mentioned_services(question: str, services: list[str]) -> list[str]:
    """The services ``question`` names, in the order it names them."""
    lowered = question.lower()
    positions: dict[str, int] = {}
    for service in services:
        position = lowered.find(service.lower())
        if position != -1:
            positions[service] = position
    words = [(match.group(), match.start()) for match in _WORD.finditer(lowered)]
    for service, parts in _distinctive_parts(services).items():
        if service in positions:
            continue
        starts = [start for word, start in words if any(_same_word(word, part) for part in parts)]
        if starts:
            positions[service] = starts[0]
    return sorted(positions, key=lambda service: (positions[service], service))


def _distinctive_parts(services: list[str]) -> dict[str, list[str]]:
    """For each service, the name parts that identify it alone (services without any are left out)."""
    owners: dict[str, set[str]] = {}
    for service in services:
        for part in _parts(service):
            owners.setdefault(part, set()).add(service)
    chosen: dict[str, list[str]] = {}
    for service in services:
        unique = sorted(part for part in _parts(service) if owners[part] == {service})
        if unique:
            chosen[service] = unique
    return chosen


def _parts(service: str) -> set[str]:
    parts = set(_NAME_PART.findall(service.lower()))
    whole = service.lower()
    if "-" in whole and not whole.endswith(tuple(f"-{generic}" for generic in _GENERIC_PARTS)):
        parts.add(whole)
    stripped = re.sub(r"-(?:" + "|".join(_GENERIC_PARTS) + r")$", "", whole)
    if stripped != whole and "-" in stripped:
        parts.add(stripped)
    return {part for part in parts if len(part) >= 4 and part not in _GENERIC_PARTS and not part.isdigit()}


def _same_word(word: str, part: str) -> bool:
    """``word`` is ``part`` or a plural of it ("payments" names payment-service)."""
    return word == part or (word.startswith(part) and word[len(part) :] in {"s", "es"})
