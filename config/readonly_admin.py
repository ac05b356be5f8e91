"""Read-only admin building blocks for the audit records.

Audit rows are evidence of what a run did, so nobody edits them through the admin, superusers included:
add, change and delete are refused here rather than left to permissions, which a superuser always has.
Seeing them still needs the model's ``view`` permission (the ``auditors`` group grants it).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import flatten
from django.db.models import Model
from django.http import HttpRequest

#: The permission that makes a user an auditor, who may read every user's runs (``diagnosis.selectors``).
AUDIT_PERMISSION = "diagnosis.view_diagnosisrun"

#: Changelists page at 50 rows and never render more than this many at once ("Show all" included).
LIST_PER_PAGE = 50
LIST_MAX_SHOW_ALL = 200


class ReadOnlyAdminMixin:
    """No add, change or delete for anyone."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ReadOnlyModelAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Capped pages, and no extra COUNTs (full result, filter facets): audit tables only grow."""

    list_per_page = LIST_PER_PAGE
    list_max_show_all = LIST_MAX_SHOW_ALL
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER
    actions = None


class AuditRowsAdmin(ReadOnlyModelAdmin):
    """Rows of users' runs (sessions, steps, timeline, tool calls, feedback), every user's: for auditors.

    The model's view permission alone would show a staff member every other user's rows, which the chat page
    and the Trace API never do (an owner sees their own; an auditor all); so the audit permission is needed
    as well."""

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_view_permission(request, obj) and request.user.has_perm(AUDIT_PERMISSION)


class ReadOnlyTabularInline(ReadOnlyAdminMixin, admin.TabularInline):
    """An inline listing a run's rows in their sequence order; nothing to add, so no empty extra forms."""

    ordering = ("seq",)
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> tuple[str, ...]:
        # Declared read-only too: the formset is still built, and ids and timestamps are not form fields.
        # Flattened as the admin flattens ``fields``: a tuple there groups fields on one line.
        return tuple(flatten(self.fields or ()))
