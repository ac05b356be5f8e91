"""The run page lists the run's rows to whoever may read the run, as the Trace API does, and links each tool
call to its own page (which adds the arguments)."""

from __future__ import annotations

import re

from diagnosis.models import FeedbackRating, RunFeedback
from tests.tracing.test_admin import client_for, run_page

INLINES = ("steps", "tool_invocations", "trace_events", "feedback")


def formsets(page: str) -> list[str]:
    """The inline sections of an admin change page, by their formset prefix."""
    return [prefix for prefix in INLINES if f'id="{prefix}-group"' in page]


def test_an_auditor_granted_the_run_alone_sees_its_rows_as_the_trace_api_does(run_auditor, owner, owned_run):
    RunFeedback.objects.create(run=owned_run, user=owner, rating=FeedbackRating.DOWN, comment="wrong")
    client = client_for(run_auditor)

    page = client.get(run_page(owned_run)).content.decode()
    trace = client.get(f"/api/diagnosis/{owned_run.session_id}/trace", {"runId": owned_run.pk}).json()

    assert trace["steps"] and trace["toolInvocations"]
    assert len(formsets(page)) == 4, formsets(page)
    for step in owned_run.steps.all():
        assert step.summary in page
    # Their own lists and pages still ask for their own permission, and the page links to none of them.
    assert client.get("/admin/tracing/agentstep/").status_code == 403
    assert "/admin/tools/toolinvocation/" not in page


def test_each_tool_call_on_the_run_page_links_to_its_own_page(auditor, owned_run):
    page = client_for(auditor).get(run_page(owned_run)).content.decode()

    for invocation in owned_run.tool_invocations.all():
        assert f'href="/admin/tools/toolinvocation/{invocation.pk}/change/"' in page


def test_a_steps_unreported_calls_show_on_the_run_page(auditor, owned_run):
    owned_run.steps.update(unreported_calls=7)

    page = client_for(auditor).get(run_page(owned_run)).content.decode()

    assert re.search(r'class="field-unreported_calls">\s*<p>7</p>', page)
