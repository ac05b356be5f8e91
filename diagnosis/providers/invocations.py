"""The ``{{inv:N}}`` resolver of a real run: N-th ``ToolInvocation`` of the run in ``seq`` order.

Kept apart from the scripted provider so that the provider stays free of Django models and can be tested
with a plain function; the run service passes ``run_invocation_resolver(run.id)`` to ``build_models``.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from diagnosis.providers.base import InvocationResolver
from tools.models import ToolInvocation


def run_invocation_resolver(run_id: UUID, *, flush: Callable[[], None] | None = None) -> InvocationResolver:
    """``flush`` writes the rows the run's harness still keeps in memory (``ToolHarness.flush``)."""

    def resolve(number: int) -> str:
        # Looked up at each use, not cached: the invocation may have been recorded a moment ago.
        if flush is not None:
            flush()
        ids = ToolInvocation.objects.filter(run_id=run_id).order_by("seq").values_list("id", flat=True)
        found = list(ids[number - 1 : number])
        if not found:
            raise LookupError(f"run {run_id} has fewer than {number} tool invocations")
        return str(found[0])

    return resolve
