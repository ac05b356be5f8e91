"""PromQL built from a tool call's arguments: names validated, label values escaped, nothing else let through.

The model never writes PromQL. It names a service and a metric; a metric name must be a Prometheus metric
name, and a service becomes a double-quoted label value with ``\\`` and ``"`` escaped. Control characters
(a newline, say) have no place in a service name, so they are refused rather than escaped.
"""

from __future__ import annotations

import re

from tools.errors import ToolInputError

METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
SURROGATES = re.compile("[\ud800-\udfff]")


def label_value(value: str, *, argument: str) -> str:
    """``value`` as a PromQL (and LogQL) double-quoted string, or ``ToolInputError`` for control characters
    and for a lone surrogate (a ``\\ud800`` escape in the model's JSON), which no UTF-8 request can carry."""
    if CONTROL_CHARACTERS.search(value):
        raise ToolInputError("invalid_arguments", f"{argument} must not contain control characters such as newlines")
    if SURROGATES.search(value):
        raise ToolInputError("invalid_arguments", f"{argument} must not contain unpaired surrogate code points")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def metric_name(value: str) -> str:
    if not METRIC_NAME.fullmatch(value):
        raise ToolInputError(
            "invalid_arguments", f"metric {value!r} is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)"
        )
    return value


def selector(metric: str, service_label: str, service: str) -> str:
    """``{__name__="metric", service_label="service"}``; the label name comes from settings (validated there).

    The name is a matcher, not the selector's head: a metric named like a PromQL keyword or number (``inf``,
    ``nan``, ``bool``, ``on``) is a parse error written as ``inf{...}``."""
    name = label_value(metric_name(metric), argument="metric")
    return f"{{__name__={name}, {service_label}={label_value(service, argument='service')}}}"
