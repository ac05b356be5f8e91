"""Admin list filters for what a run spent: token totals and cost, in ranges an auditor thinks in.

Both filter the stored columns (``total_tokens``, ``cost``), so filtering and sorting stay one query with
an index, whatever the number of runs. "Unpriced" is its own choice: a run without a cost is unknown,
not free.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from diagnosis.models import DiagnosisRun

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise  # the stubs' lazy string: none at run time


class _RangeFilter(admin.SimpleListFilter):
    """A filter whose choices are named ``Q`` conditions on one column."""

    ranges: dict[str, tuple[str | _StrPromise, Q]] = {}

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str | _StrPromise]]:
        return [(key, label) for key, (label, _) in self.ranges.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[DiagnosisRun]) -> QuerySet[DiagnosisRun]:
        chosen = self.ranges.get(self.value() or "")
        return queryset if chosen is None else queryset.filter(chosen[1])


class TokensFilter(_RangeFilter):
    title = _("tokens")
    parameter_name = "tokens"
    ranges = {
        "none": (_("none (no model tokens)"), Q(total_tokens=0)),
        "lt10k": ("1 – 9,999", Q(total_tokens__gt=0, total_tokens__lt=10_000)),
        "10k-100k": ("10,000 – 99,999", Q(total_tokens__gte=10_000, total_tokens__lt=100_000)),
        "gte100k": (_("100,000 or more"), Q(total_tokens__gte=100_000)),
    }


class CostFilter(_RangeFilter):
    title = _("cost")
    parameter_name = "cost"
    ranges = {
        "unpriced": (_("unpriced"), Q(cost__isnull=True)),
        "free": ("0", Q(cost=0)),
        "lt0.01": (_("under 0.01"), Q(cost__gt=0, cost__lt=Decimal("0.01"))),
        "0.01-1": ("0.01 – 0.99", Q(cost__gte=Decimal("0.01"), cost__lt=1)),
        "gte1": (_("1 or more"), Q(cost__gte=1)),
    }
