"""The four tools the executor may call, as registry entries (DESIGN.md "Tools and harness")."""

from __future__ import annotations

from tools.definitions.knowledge import LOOKUP_KNOWLEDGE
from tools.definitions.logs import QUERY_LOGS
from tools.definitions.metrics import QUERY_METRICS
from tools.definitions.mysql import QUERY_MYSQL

ALL_TOOLS = (LOOKUP_KNOWLEDGE, QUERY_LOGS, QUERY_METRICS, QUERY_MYSQL)
