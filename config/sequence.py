"""Per-run sequence numbers for the audit rows (steps, tool invocations, timeline events).

Each of those tables orders a run's rows by ``seq`` under a unique (run, seq) constraint. Taking the next
number locks the run row first, so two writers of the same run (a worker thread and the reaper, say) are
serialised instead of colliding; writers of different runs never wait for each other. The run model is the
one the table's ``run`` foreign key points at, so this lowest layer never imports the app that owns runs.
"""

from __future__ import annotations

import uuid
from typing import cast

from django.db import models, transaction
from django.db.models import Max


def next_seq(model: type[models.Model], run_id: uuid.UUID | str) -> int:
    """The next ``seq`` of ``model`` for the run; call inside the transaction that inserts the row."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("next_seq must run inside the transaction that uses the number")
    run_model = cast("type[models.Model]", model._meta.get_field("run").related_model)
    run_model._default_manager.select_for_update().filter(pk=run_id).exists()
    return (model._default_manager.filter(run_id=run_id).aggregate(last=Max("seq"))["last"] or 0) + 1
