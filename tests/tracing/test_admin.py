"""The auditors' admin: who gets in, that nobody can write, what the run page shows, and what lists cost."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.contrib.admin import site
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from diagnosis.models import DiagnosisRun, RunStatus
from tests.tracing.factories import (
    CANCELLED_TRACE,
    FAILED_TRACE,
    FALLBACK_TRACE,
    HAPPY_TRACE,
    REASONING_SECRET,
    RETRIED_TRACE,
    make_run,
    make_session,
)
from tools.harness import ToolHarness
from tools.store import arguments_key

pytestmark = pytest.mark.django_db

RUNS = "/admin/diagnosis/diagnosisrun/"
LIST_PAGES = [
    RUNS,
    "/admin/diagnosis/chatsession/",
    "/admin/tracing/agentstep/",
    "/admin/tracing/diagnosistraceevent/",
    "/admin/tools/toolinvocation/",
    "/admin/tools/knowledgedocument/",
]
REASONING = "/admin/tracing/agentreasoningaudit/"


def run_page(run) -> str:
    return f"{RUNS}{run.pk}/change/"


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def change_pages(run) -> list[str]:
    """The page of the run and of one row of each of its audit tables (the reasoning audit's included)."""
    return [
        run_page(run),
        f"/admin/diagnosis/chatsession/{run.session_id}/change/",
        f"/admin/tracing/agentstep/{run.steps.first().pk}/change/",
        f"/admin/tracing/diagnosistraceevent/{run.trace_events.first().pk}/change/",
        f"/admin/tools/toolinvocation/{run.tool_invocations.first().pk}/change/",
        f"{REASONING}{run.reasoning_audits.first().pk}/change/",
    ]


@pytest.mark.parametrize("who", ["owner", "other_user", "anonymous"])
def test_it_sends_everyone_but_staff_to_the_login(request, owned_run, who):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    client = client_for(user)

    for url in [*LIST_PAGES, REASONING, *change_pages(owned_run)]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/")


def test_it_opens_every_audit_page_to_auditors(auditor, owned_run):
    client = client_for(auditor)

    for url in [*LIST_PAGES, REASONING, *change_pages(owned_run)]:
        assert client.get(url).status_code == 200, url


def test_staff_with_view_permissions_but_not_the_audit_one_read_no_users_rows(owned_run):
    """``view_chatsession`` or ``view_agentstep`` alone would show every other user's sessions and steps,
    which the Trace API never shows a non-auditor."""
    from django.contrib.auth.models import Permission

    from tests.conftest import make_staff

    staff = make_staff("partial")
    codenames = ["view_chatsession", "view_agentstep", "view_diagnosistraceevent", "view_toolinvocation"]
    staff.user_permissions.add(*Permission.objects.filter(codename__in=[*codenames, "view_runfeedback"]))
    client = client_for(staff)

    pages = [*LIST_PAGES[1:5], "/admin/diagnosis/runfeedback/", *change_pages(owned_run)[1:5]]
    for url in pages:
        assert client.get(url).status_code == 403, url
    assert owned_run.session.title not in client.get("/admin/").content.decode()


def test_it_shows_an_invocations_arguments_only_while_the_store_keeps_them(auditor, owned_run):
    called = ToolHarness(owned_run.pk).call("query_mysql", {"sql": "SELECT card_number FROM payments"})
    page = f"/admin/tools/toolinvocation/{called.invocation_id}/change/"
    client = client_for(auditor)

    assert "card_number" in client.get(page).content.decode()
    # The run page lists invocations by their durable row: the shape, not the text.
    run = client.get(run_page(owned_run)).content.decode()
    assert "str(32)" in run and "card_number" not in run
    cache.delete(arguments_key(called.invocation_id))
    assert "card_number" not in client.get(page).content.decode()


def test_an_invocation_page_stands_when_the_store_cannot_be_reached(auditor, owned_run, settings):
    """Redis down: the arguments (kept only in the store) are said to be out of reach; the rest of the page,
    from the database, is there."""
    invocation = owned_run.tool_invocations.first()
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
    }

    response = client_for(auditor).get(f"/admin/tools/toolinvocation/{invocation.pk}/change/")

    assert response.status_code == 200
    assert "the invocation store cannot be reached now" in response.content.decode()


def test_the_pages_own_labels_are_in_the_readers_language(auditor, owned_run):
    client = client_for(auditor)
    client.cookies["django_language"] = "zh-hans"

    runs = client.get(RUNS).content.decode()
    invocation = client.get(f"/admin/tools/toolinvocation/{owned_run.tool_invocations.first().pk}/change/")

    assert ">未定价<" in runs and ">无（未用模型令牌）<" in runs and ">unpriced<" not in runs
    assert "不在调用存储中" in invocation.content.decode()
    # The runs' status, intent and verdict are the auditor's words too, and so are their fields' names
    # (every model's and field's label: test_admin_field_labels.py).
    assert ">成功<" in runs and ">诊断<" in runs and ">Success<" not in runs
    assert ">意图<" in runs and ">Intent<" not in runs


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", r"(?:\d{1,2}(?::\d{2})? [ap]\.m\.|noon|midnight) UTC<"), ("zh-hans", r"日 \d{2}:\d{2} UTC<")],
)
def test_it_shows_every_time_with_its_zone(auditor, owned_run, language, shown):
    """The server keeps UTC, as the evidence does: a time without its zone reads as local at UTC+8."""
    client = client_for(auditor)
    client.cookies["django_language"] = language

    runs = client.get(RUNS).content.decode()
    run = client.get(run_page(owned_run)).content.decode()

    assert re.search(shown, runs) and re.search(shown, run)


def test_it_keeps_the_reasoning_audit_from_staff_without_the_permission(run_auditor, owned_run):
    client = client_for(run_auditor)

    page = client.get(run_page(owned_run)).content.decode()

    assert client.get(RUNS).status_code == 200
    assert client.get(REASONING).status_code == 403
    assert "reasoning-link" not in page and REASONING_SECRET not in page
    assert "agentreasoningaudit" not in client.get("/admin/").content.decode()


def test_it_links_the_reasoning_audit_for_its_holders(auditor, owned_run):
    page = client_for(auditor).get(run_page(owned_run)).content.decode()
    audit_list = client_for(auditor).get(f"{REASONING}?run__id__exact={owned_run.pk}").content.decode()

    assert f'{REASONING}?run__id__exact={owned_run.pk}" class="reasoning-link"' in page
    assert REASONING_SECRET not in page
    assert audit_list.count('class="field-step_seq"') == 3


def test_it_shows_a_non_auditor_holder_only_the_reasoning_of_their_own_runs(owner, other_user, owned_run):
    from django.contrib.auth.models import Permission

    foreign_run = make_run(make_session(other_user))
    owner.is_staff = True
    owner.save()
    owner.user_permissions.add(Permission.objects.get(content_type__app_label="tracing", codename="view_reasoning"))
    client = client_for(owner)

    own = client.get(f"{REASONING}?run__id__exact={owned_run.pk}").content.decode()
    foreign = client.get(f"{REASONING}?run__id__exact={foreign_run.pk}").content.decode()

    assert own.count('class="field-step_seq"') == 3
    assert foreign.count('class="field-step_seq"') == 0
    assert client.get(f"{REASONING}{foreign_run.reasoning_audits.first().pk}/change/").status_code == 302


def test_it_refuses_every_write_even_to_superusers(superuser, owned_run):
    client = client_for(superuser)

    for page in change_pages(owned_run):
        assert client.get(page).status_code == 200, page
        assert client.post(page, {"query": "rewritten", "summary": "rewritten"}).status_code == 403, page
        assert client.post(page.replace("/change/", "/delete/"), {"post": "yes"}).status_code == 403, page
    assert client.get(f"{RUNS}add/").status_code == 403
    owned_run.refresh_from_db()
    assert owned_run.query.startswith("payment-service")


def test_it_offers_no_add_button_or_bulk_action(superuser, owned_run):
    page = client_for(superuser).get(RUNS).content.decode()

    assert f"{RUNS}add/" not in page
    assert 'name="action"' not in page


def node_classes(page: str, node: str) -> set[str]:
    match = re.search(rf'<g class="([^"]*)" data-node="{node}"', page)
    assert match, f"{node} is not drawn"
    return set(match.group(1).split())


@pytest.mark.parametrize(
    ("trace", "status", "taken", "final"),
    [
        (HAPPY_TRACE, RunStatus.SUCCESS, ("verifier", "composer"), "composer"),
        (RETRIED_TRACE, RunStatus.SUCCESS, ("verifier", "evidence_retry"), "composer"),
        (FALLBACK_TRACE, RunStatus.SUCCESS, ("executor", "fallback"), "fallback"),
        (FAILED_TRACE, RunStatus.FAILED, ("executor", "gatekeeper"), "gatekeeper"),
        (CANCELLED_TRACE, RunStatus.FAILED, ("verified_input", "verifier"), "verifier"),
    ],
    ids=["happy", "retried", "fallback", "failed", "cancelled"],
)
def test_it_draws_the_path_of_each_kind_of_run(auditor, owner, trace, status, taken, final):
    run = make_run(make_session(owner), trace=trace, status=status)

    page = client_for(auditor).get(run_page(run)).content.decode()

    source, target = taken
    assert re.search(rf'<g class="edge taken[^"]*" data-from="{source}" data-to="{target}" data-count="1"', page)
    assert "final" in node_classes(page, final)
    assert ("failed" in node_classes(page, final)) is (status == RunStatus.FAILED)
    assert ("degraded" in node_classes(page, "fallback")) is (final == "fallback")
    assert '<table class="transitions">' in page
    assert "step 1 produced a plan" in page  # the steps inline
    assert "query_logs" in page  # the invocations inline
    assert "node_finished" in page  # the timeline inline


def test_it_marks_retries_and_the_fallback_in_the_transitions_table(auditor, owner):
    retried = make_run(make_session(owner), trace=RETRIED_TRACE)
    degraded = make_run(make_session(owner), trace=FALLBACK_TRACE)
    client = client_for(auditor)

    retried_page = client.get(run_page(retried)).content.decode()
    degraded_page = client.get(run_page(degraded)).content.decode()

    assert '<tr class="technical-retry">' in retried_page and '<tr class="evidence-retry">' in retried_page
    assert '<tr class="degraded-fallback">' in degraded_page
    assert "fallback_executor_tool_blocked" in degraded_page


def test_it_shows_when_a_cancelled_run_was_asked_to_stop_and_where_it_stopped(auditor, owner):
    run = make_run(make_session(owner), trace=CANCELLED_TRACE, status=RunStatus.FAILED)
    DiagnosisRun.objects.filter(pk=run.pk).update(failure_reason="cancelled", cancel_requested_at=run.started_at)

    page = client_for(auditor).get(run_page(run)).content.decode()

    assert "Cancel requested at" in page
    assert "(<code>cancelled</code>)" in page  # the termination reason under the transitions


def test_it_shows_why_each_draft_was_released_or_blocked(auditor, owner):
    run = make_run(make_session(owner))
    decisions = [
        {"attempt": 1, "decision": "blocked", "rule": "ungrounded_token", "rules": ["ungrounded_token"]},
        {"attempt": 2, "decision": "released", "rule": "passed", "rules": []},
    ]
    run.self_evaluation = {
        **run.self_evaluation,
        "release": {"policy_version": "release-policy-v1", "decisions": decisions},
    }
    run.save(update_fields=["self_evaluation"])

    client = client_for(auditor)
    page = client.get(run_page(run)).content.decode()

    assert "attempt 1: blocked (ungrounded_token); attempt 2: released (passed)" in page
    client.cookies["django_language"] = "zh-hans"
    # The decisions in the reader's language, as the chat page's progress says them; a rule is an identifier.
    chinese = client.get(run_page(run)).content.decode()
    assert "第 1 次：已拦截（ungrounded_token）; 第 2 次：已放行（通过）" in chinese
    assert f"<title>{run.pk} 成功 |" in chinese  # the run's status, in its title and breadcrumb


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status__exact=FAILED", "failed"),
        ("degraded__exact=1", "fallback"),
        ("intent__exact=SYSTEM_CHAT", "chat"),
        ("effective_verdict__exact=LOW_CONFID", "low"),
    ],
)
def test_it_filters_runs(auditor, owner, query, expected):
    session = make_session(owner)
    runs = {
        "failed": make_run(session, trace=FAILED_TRACE, status=RunStatus.FAILED),
        "fallback": make_run(session, trace=FALLBACK_TRACE),
        "chat": make_run(session, trace=None, intent="SYSTEM_CHAT", verdict=""),
        "low": make_run(session, verdict="LOW_CONFID"),
    }

    page = client_for(auditor).get(f"{RUNS}?{query}").content.decode()

    assert [name for name, run in runs.items() if run_page(run) in page] == [expected]


@pytest.mark.parametrize(
    "url",
    [
        f"{RUNS}?query__regex=[",
        "/admin/diagnosis/chatsession/?title__regex=[",
        "/admin/tracing/agentstep/?summary__regex=(",
        "/admin/diagnosis/chatsession/?created_at__year=99999999999999999999",
        "/admin/tools/toolinvocation/?created_at__year=99999999999999999999",
        f"{RUNS}?figures__contains=x",
        "/admin/tracing/diagnosistraceevent/?details__key__exact=x",
    ],
)
def test_a_hand_written_lookup_is_a_400_not_a_500(auditor, owned_run, url):
    assert client_for(auditor).get(url).status_code == 400


def test_the_filters_and_links_of_the_pages_still_narrow_their_lists(auditor, owner, owned_run):
    other = make_run(make_session(owner))
    client = client_for(auditor)
    step = owned_run.steps.order_by("seq").first()
    invocation = owned_run.tool_invocations.first()

    def listed(url: str, row_url: str) -> bool:
        response = client.get(url)
        assert response.status_code == 200, url
        return row_url in response.content.decode()

    steps_of = f"/admin/tracing/agentstep/?run__id__exact={owned_run.pk}&node={step.node}"
    assert listed(steps_of, f"/admin/tracing/agentstep/{step.pk}/change/")
    assert not listed(steps_of, f"/admin/tracing/agentstep/{other.steps.first().pk}/change/")
    by_tool = f"/admin/tools/toolinvocation/?tool_name={invocation.tool_name}&run__id__exact={owned_run.pk}"
    assert listed(by_tool, f"/admin/tools/toolinvocation/{invocation.pk}/change/")
    assert listed(f"{RUNS}?session__id__exact={owned_run.session_id}&status__exact=SUCCESS", run_page(owned_run))
    assert not listed(f"{RUNS}?session__id__exact={owned_run.session_id}", run_page(other))
    since = "/admin/diagnosis/chatsession/?created_at__gte=2000-01-01+00:00:00%2B00:00"
    assert listed(since, str(owned_run.session_id))


LIST_PAGES = [
    "/admin/diagnosis/chatsession/",
    "/admin/diagnosis/runfeedback/",
    "/admin/tracing/agentstep/",
    "/admin/tools/toolinvocation/",
    "/admin/alerts/notificationdelivery/",
    REASONING,
]


@pytest.mark.parametrize("url", LIST_PAGES)
def test_no_list_page_reads_a_whole_table_for_its_filters_or_counts(auditor, owned_run, url):
    """``SELECT DISTINCT`` of a field's values and a ``GROUP BY`` of sessions with their runs grow with every run."""
    with CaptureQueriesContext(connection) as captured:
        assert client_for(auditor).get(url).status_code == 200

    sql = [query["sql"].upper() for query in captured.captured_queries]
    assert not [statement for statement in sql if "DISTINCT" in statement or "GROUP BY" in statement]


@pytest.mark.parametrize("url", LIST_PAGES)
def test_no_list_page_sorts_a_whole_table(auditor, owned_run, url):
    """A page of the newest rows is read from an index in its order, not sorted out of every row there is:
    its ordering leads with an indexed column, and SQLite's plan of the page's query (the embedded database,
    where the plan of a few rows is the plan of many) sorts no scan of the table."""
    model_admin = next(admin for model, admin in site._registry.items() if url.endswith(f"/{model._meta.model_name}/"))
    model = model_admin.model
    first = (model_admin.ordering or model._meta.ordering)[0].lstrip("-")
    leading = {index.fields[0].lstrip("-") for index in model._meta.indexes} | {"id", model._meta.pk.name}
    assert first in leading, (model.__name__, first)
    with CaptureQueriesContext(connection) as captured:
        assert client_for(auditor).get(url).status_code == 200
    _assert_no_page_sorts_every_row(captured, url)


def _assert_no_page_sorts_every_row(captured: CaptureQueriesContext, what: str) -> None:
    """On SQLite (the embedded database, where the plan of a few rows is the plan of many), no page query of
    ``captured`` sorts rows it read: these lists are not narrowed to a run, so a sort, after a SCAN or after a
    search for every session (`session IN (...)`), is a sort of every row. MariaDB's optimizer sorts a
    handful of rows whatever the indexes: its plan says nothing here."""
    if connection.vendor != "sqlite":
        return
    # One page, so Django reads the list without a LIMIT: the plan of that ORDER BY is the one a page takes.
    pages = [query["sql"] for query in captured.captured_queries if "ORDER BY" in query["sql"]]
    assert pages, what
    with connection.cursor() as cursor:
        for sql in pages:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            plan = " / ".join(row[-1] for row in cursor.fetchall())
            assert "TEMP B-TREE FOR ORDER BY" not in plan, (what, sql, plan)


def _sortable_columns(model_admin: Any) -> list[int]:
    """The positions of the list's columns a reader can sort by (the admin's ``?o=``)."""
    columns = []
    for position, name in enumerate(model_admin.list_display):
        attribute = getattr(model_admin, name, None)
        if attribute is not None and callable(attribute):
            if getattr(attribute, "admin_order_field", None):
                columns.append(position)
        elif name in {field.name for field in model_admin.model._meta.fields}:
            columns.append(position)
    return columns


def test_no_column_of_the_run_list_sorts_the_whole_table(auditor, owned_run):
    """Each column a reader can sort the run list by is read from an index in that order (tokens and cost
    have theirs; the owner's name, in another table, could not be, and is not sortable)."""
    model_admin = site._registry[DiagnosisRun]
    client = client_for(auditor)
    for position in _sortable_columns(model_admin):
        for order in (f"{position}", f"-{position}"):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(RUNS, {"o": order}).status_code == 200
            _assert_no_page_sorts_every_row(captured, model_admin.list_display[position])


def test_the_session_list_counts_each_sessions_runs(auditor, owner):
    session = make_session(owner, title="three runs")
    for _ in range(3):
        make_run(session, steps=0, invocations=0, events=0)

    page = client_for(auditor).get("/admin/diagnosis/chatsession/").content.decode()

    assert re.search(r'<td class="field-run_count">3</td>', page)


def test_it_searches_runs_by_run_id_session_id_and_query(auditor, owner):
    first = make_run(make_session(owner), query="checkout errors since noon")
    second = make_run(make_session(owner), query="payment latency")
    client = client_for(auditor)

    def found(term: str) -> list[bool]:
        page = client.get(RUNS, {"q": term}).content.decode()
        return [run_page(first) in page, run_page(second) in page]

    assert found(str(first.pk)) == [True, False]
    assert found(str(second.session_id)) == [False, True]
    assert found("checkout") == [True, False]
    assert found("not-a-uuid") == [False, False]


def test_it_lists_10_and_200_runs_with_the_same_queries(auditor, owner, django_assert_num_queries):
    def add_runs(count: int) -> None:
        for index in range(count):
            make_run(make_session(owner, title=f"s{index}"), steps=0, invocations=0, events=0)

    client = client_for(auditor)
    add_runs(10)
    with CaptureQueriesContext(connection) as ten:
        assert client.get(RUNS, {"all": ""}).content.decode().count('class="field-owner"') == 10
    add_runs(190)

    with django_assert_num_queries(len(ten)):
        assert client.get(RUNS, {"all": ""}).content.decode().count('class="field-owner"') == 200


def test_it_creates_the_auditors_group_with_view_permissions_only():
    permissions = set(Group.objects.get(name="auditors").permissions.values_list("codename", flat=True))

    assert "view_reasoning" in permissions
    assert {
        "view_diagnosisrun",
        "view_chatsession",
        "view_agentstep",
        "view_diagnosistraceevent",
        "view_toolinvocation",
        "view_agentreasoningaudit",
    } <= permissions
    assert all(codename.startswith("view_") for codename in permissions)


def test_staff_cannot_probe_which_ids_exist_through_the_view_on_site_redirect(owned_run):
    """Django's ``admin/r/<type>/<id>/`` answered any staff member, whatever they may read, differently for
    an object that exists and one that does not (a malformed id was a 500)."""
    staff = type(owned_run.session.owner).objects.create_user("staff-only", password="x", is_staff=True)
    client = client_for(staff)
    sessions = ContentType.objects.get_for_model(owned_run.session).pk

    answers = {
        client.get(f"/admin/r/{sessions}/{owned_run.session_id}/").status_code,
        client.get(f"/admin/r/{sessions}/{uuid.uuid4()}/").status_code,
        client.get(f"/admin/r/{sessions}/1/").status_code,
    }

    assert answers == {404}
