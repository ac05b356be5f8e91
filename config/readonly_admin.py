"""Read-only admin building blocks for the audit records.

Audit rows are evidence of what a run did, so nobody edits them through the admin, superusers included:
add, change and delete are refused here rather than left to permissions, which a superuser always has.
Seeing them still needs the model's ``view`` permission (the ``auditors`` group grants it).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import flatten
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model, QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest
from django.utils.text import smart_split
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

#: The permission that makes a user an auditor, who may read every user's runs (``diagnosis.selectors``). The
#: diagnosis app's, named here as a string (config imports no app): the admin base below needs it.
AUDIT_PERMISSION = "diagnosis.view_diagnosisrun"

#: The lookups a changelist's query string may use on a field: its filters' and its links' (``__exact``,
#: dates' ``__gte``/``__lt``, ``__isnull``). Others (``__regex``, ``__year``, a JSON field's ``__contains``) are
#: a hand-written URL's, which the database may refuse at the query (a 500) or answer with a table scan.
PLAIN_LOOKUPS = frozenset({"exact", "iexact", "in", "isnull", "gt", "gte", "lt", "lte"})

#: Changelists page at 50 rows and never render more than this many at once ("Show all" included).
LIST_PER_PAGE = 50
LIST_MAX_SHOW_ALL = 200

#: A search uses at most this many words: Django's admin turns each into a condition of its own, and about a
#: thousand (a pasted stack trace) took SQLite past its expression depth (a 500).
MAX_SEARCH_WORDS = 20


class ReadOnlyAdminMixin:
    """No add, change or delete for anyone."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ReadOnlyModelAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Capped pages, no extra COUNTs (full result, filter facets): audit tables only grow; and only plain
    lookups in the query string (a 400 for others)."""

    list_per_page = LIST_PER_PAGE
    list_max_show_all = LIST_MAX_SHOW_ALL
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER
    actions = None

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        filter_parameters = {
            entry.parameter_name
            for entry in self.list_filter
            if isinstance(entry, type) and issubclass(entry, admin.SimpleListFilter)
        }
        plain = lookup in filter_parameters or _plain_lookup(self.model, lookup)
        return plain and super().lookup_allowed(lookup, value, request)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        words = list(smart_split(search_term))
        if len(words) > MAX_SEARCH_WORDS:
            messages.warning(
                request,
                gettext("Only the first %(count)d words of the search were used.") % {"count": MAX_SEARCH_WORDS},
            )
            search_term = " ".join(words[:MAX_SEARCH_WORDS])
        return super().get_search_results(request, queryset, search_term)


def _plain_lookup(model: type[Model], lookup: str) -> bool:
    """Fields, through relations, then at most one of ``PLAIN_LOOKUPS``: ``run__id__exact``, ``status``."""
    options = model._meta
    parts = lookup.split(LOOKUP_SEP)
    for index, part in enumerate(parts):
        try:
            field = options.get_field(part)
        except FieldDoesNotExist:
            return index > 0 and index == len(parts) - 1 and part in PLAIN_LOOKUPS
        if field.is_relation and field.related_model is not None:
            options = field.related_model._meta
        elif index < len(parts) - 1:  # a plain field: only one of the lookups may follow it
            return index + 2 == len(parts) and parts[-1] in PLAIN_LOOKUPS
    return True


class AuditRowsAdmin(ReadOnlyModelAdmin):
    """Rows of users' runs (sessions, steps, timeline, tool calls, feedback), every user's: for auditors.

    The model's view permission alone would show a staff member every other user's rows, which the chat page
    and the Trace API never do (an owner sees their own; an auditor all); so the audit permission is needed
    as well."""

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_view_permission(request, obj) and request.user.has_perm(AUDIT_PERMISSION)


class FieldValueFilter(admin.SimpleListFilter):
    """A filter by one value of the field ``parameter_name`` names, offered in ``lookups`` without Django's
    ``SELECT DISTINCT`` of the field over the whole table, which grows with every run."""

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        return queryset.filter(**{str(self.parameter_name): value}) if value else queryset


class RecentValuesFilter(FieldValueFilter):
    """The values of the field seen in the newest ``RECENT_ROWS`` rows, by their ever-growing id: those an
    auditor filters by are recent runs'."""

    RECENT_ROWS = 1000

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        rows = model_admin.model._default_manager.order_by("-pk")
        recent = rows.values_list(str(self.parameter_name), flat=True)[: self.RECENT_ROWS]
        return [(value, value) for value in sorted(set(recent)) if value]


class NodeFilter(RecentValuesFilter):
    title = _("node")
    parameter_name = "node"


class ReadOnlyTabularInline(ReadOnlyAdminMixin, admin.TabularInline):
    """An inline listing a run's rows in their sequence order; nothing to add, so no empty extra forms.

    Shown to whoever may read the run (the audit permission), as the Trace API shows a run's steps, tool
    calls, timeline and feedback: with each model's own view permission required as well, an auditor granted
    the run alone saw a run page without any of them, and the page's own Trace API link listed them all. The
    rows' own lists still need their own permission (``AuditRowsAdmin``)."""

    ordering = ("seq",)
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.has_perm(AUDIT_PERMISSION)

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> tuple[str, ...]:
        # Declared read-only too: the formset is still built, and ids and timestamps are not form fields.
        # Flattened as the admin flattens ``fields``: a tuple there groups fields on one line.
        return tuple(flatten(self.fields or ()))
