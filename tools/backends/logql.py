"""LogQL built from a tool call's arguments: a stream selector and a line filter, every value escaped.

The model never writes LogQL. ``service`` and ``level`` become double-quoted label values (escaped as in
PromQL, control characters refused; the level as a case-insensitive regular expression); ``contains``
becomes a case-insensitive regular-expression line filter ``|~ "(?i)..."`` whose every RE2 metacharacter is
backslash-escaped, so ``|~``, ``"`` or ``.*`` in it are matched as text.
"""

from __future__ import annotations

from tools.backends.promql import label_value

RE2_METACHARACTERS = frozenset("\\.+*?()|[]{}^$")
LEVEL_LABEL = "level"


def literal_regex(text: str) -> str:
    """An RE2 pattern matching ``text`` literally (Go's regexp accepts only punctuation after a backslash)."""
    return "".join(f"\\{character}" if character in RE2_METACHARACTERS else character for character in text)


def log_query(service_label: str, service: str, level: str | None, contains: str | None) -> str:
    """``{service_label="service", level=~"(?i)level"} |~ "(?i)contains"``, the optional parts left out.

    The level matches in any case, as the embedded backend's does: promtail, logfmt and OpenTelemetry
    pipelines label ``error``, a pack pushed by ``load_scenario`` ``ERROR``."""
    matchers = [f"{service_label}={label_value(service, argument='service')}"]
    if level:
        matchers.append(f"{LEVEL_LABEL}=~{label_value('(?i)' + literal_regex(level), argument='level')}")
    query = "{" + ", ".join(matchers) + "}"
    if contains:
        query += f" |~ {label_value('(?i)' + literal_regex(contains), argument='contains')}"
    return query
