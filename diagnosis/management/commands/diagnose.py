"""``manage.py diagnose "question"``: one run through the same path as the chat, in this process.

The run is created by the chat's service (intent router included) and executed by the same Celery task,
applied here instead of sent to a worker, so what the CLI shows is what the chat would have done.
Exit code 0 when the run finished (SUCCESS, degraded or not), 1 when it FAILED, 2 on bad arguments.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from config.commands import database_failures, require_migrated
from diagnosis.failures import FailureCode
from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.providers.base import ProviderConfigError
from diagnosis.providers.factory import PROVIDER_BUILDERS, build_models, config_from_settings
from diagnosis.reaper import fail_with_partial_trace
from diagnosis.submission import SubmissionError, run_create
from diagnosis.tasks import execute_run

CLI_USERNAME = "cli"


def released_claim_ids(run: DiagnosisRun) -> list[str]:
    return list((run.self_evaluation or {}).get("released_claim_ids", []))


def run_summary(run: DiagnosisRun) -> dict[str, Any]:
    """The documented ``--json`` shape."""
    return {
        "run_id": str(run.pk),
        "session_id": str(run.session_id),
        "status": run.status,
        "intent": run.intent,
        "degraded": run.degraded,
        "effective_verdict": run.effective_verdict or None,
        "final_answer": run.final_answer,
        "orchestration_trace": run.orchestration_trace,
        "released_claim_ids": released_claim_ids(run),
        "tool_invocations": [
            {"id": str(invocation.pk), "tool_name": invocation.tool_name, "status": invocation.status}
            for invocation in run.tool_invocations.order_by("seq")
        ],
        "usage": run_usage(run),
    }


def run_usage(run: DiagnosisRun) -> dict[str, Any]:
    """The run's stored token totals and cost (a decimal string, null without prices) and each step's tokens."""
    return {
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "reasoning_tokens": run.reasoning_tokens,
        "total_tokens": run.total_tokens,
        "cost": None if run.cost is None else str(run.cost),
        "steps": list(
            run.steps.order_by("seq").values(
                "seq", "node", "role", "attempt", "prompt_tokens", "completion_tokens", "reasoning_tokens"
            )
        ),
    }


def add_provider_arguments(parser) -> None:
    """``--provider`` and ``--script``, shared by the commands that run questions."""
    parser.add_argument("--provider", choices=sorted(PROVIDER_BUILDERS), help="Default: LLM_PROVIDER.")
    parser.add_argument("--script", metavar="FILE", help="Script for --provider scripted.")


def checked_provider(provider: str | None, script: str | None) -> str | None:
    """The provider to run with (``--script`` implies scripted); ``CommandError`` (exit 2) when it cannot be built."""
    if script and (provider or "scripted") != "scripted":
        raise CommandError("--script goes with --provider scripted", returncode=2)
    if script:
        provider = "scripted"
    try:
        # Built once up front only to validate: a bad script or a missing setting is an argument error.
        build_models(config_from_settings(name=provider, script_path=script))
    except ProviderConfigError as error:
        raise CommandError(str(error), returncode=2) from error
    return provider


def run_question(question: str, *, provider: str | None, script: str | None) -> DiagnosisRun:
    """Create the run as the chat would (as the CLI user) and execute its task in this process; the finished run."""
    user, _ = get_user_model().objects.get_or_create(username=CLI_USERNAME, defaults={"is_active": False})
    try:
        run = run_create(user=user, message=question)
    except SubmissionError as error:
        raise CommandError(error.message, returncode=2) from error
    # The task's own "succeeded in" line is worker chatter; the CLI prints the run instead.
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    try:
        execute_run.apply(args=(str(run.pk),), kwargs={"provider": provider, "script_path": script})
    except KeyboardInterrupt:
        # Nobody else will end it: no worker holds it, and the reaper would wait for its heartbeat to age.
        if _interrupted_mid_begin():
            # A new connection leaves that transaction behind (the database rolls it back) and starts clean.
            connection.close()
            connection.connect()
        run.refresh_from_db()
        fail_with_partial_trace(run, reason=FailureCode.INTERRUPTED, detail="Ctrl-C")
        raise CommandError(
            f"interrupted: run {run.pk} was ended as {FailureCode.INTERRUPTED}", returncode=130
        ) from None
    run.refresh_from_db()
    return run


def _interrupted_mid_begin() -> bool:
    """Whether Ctrl-C landed inside ``atomic()``'s entry, past its BEGIN: no ``__exit__`` will end that
    transaction, and the next ``atomic()`` would fail ("cannot start a transaction within a transaction")."""
    if connection.in_atomic_block:
        return not connection.atomic_blocks
    return not connection.get_autocommit() or bool(getattr(connection.connection, "in_transaction", False))


class Command(BaseCommand):
    help = "Diagnose a question through the intent router, the run task and the graph; print the run."

    def add_arguments(self, parser) -> None:
        parser.add_argument("question")
        add_provider_arguments(parser)
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the finished run as JSON.")

    def handle(self, *args, question: str, provider: str | None, script: str | None, as_json: bool, **options) -> None:
        provider = checked_provider(provider, script)
        require_migrated()
        with database_failures("a run it had created is left for the reaper to end"):
            run = run_question(question, provider=provider, script=script)
            self._print(run, as_json=as_json)
        if run.status != RunStatus.SUCCESS:
            raise SystemExit(1)

    def _print(self, run: DiagnosisRun, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(run_summary(run), ensure_ascii=False, indent=2))
            return
        self.stdout.write(run.final_answer or f"(no answer: {run.failure_reason})")
        trace = run.orchestration_trace or {}
        route = " → ".join([t["from"] for t in trace.get("transitions", [])] + [trace.get("final_node") or ""]).strip(
            " →"
        )
        self.stdout.write(
            f"\n[{run.status}{' degraded' if run.degraded else ''}] run {run.pk} intent {run.intent} "
            f"verdict {run.effective_verdict or '-'} route {route or '-'}"
        )
