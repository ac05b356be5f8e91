"""Signals other apps react to, so that diagnosis never imports them (its dependencies point one way).

``run_ended`` is sent once per run, after the commit that moved it out of RUNNING (SUCCESS or FAILED), with
``run`` (the ``DiagnosisRun`` as it ended). It is sent robustly: a receiver that raises is logged by
Django and can neither fail the run nor keep the other receivers from running. Receivers should only
hand work on (a Celery task), never do it in the worker that executed the run.
"""

from django.dispatch import Signal

run_ended = Signal()
