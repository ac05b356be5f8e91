"""The knowledge page: the shared documents with search and a status filter, drag-and-drop upload, and
archive, restore and delete where the signed-in user may (static/js/knowledge.js calls the documents API).

It lives in the diagnosis app, beside the chat page, because who writes nothing (auditors) is decided here
(``diagnosis.selectors.is_read_only``) and the tools app below must not import it; every rule on documents
is still the tools app's (``tools.knowledge.selectors``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.utils.translation import gettext_lazy as _
from django.views.generic import TemplateView

from diagnosis.selectors import is_read_only
from tools.knowledge.selectors import can_manage_document, document_list
from tools.knowledge.uploads import ALLOWED_SUFFIXES
from tools.models import DocumentStatus, KnowledgeDocument

DOCUMENTS_PER_PAGE = 50


class DocumentSearchForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    status = forms.ChoiceField(
        label=_("Status"), required=False, choices=[("", _("Any status")), *DocumentStatus.choices]
    )


@dataclass(frozen=True)
class DocumentRow:
    document: KnowledgeDocument
    # Whether this user may archive, restore or delete it (the uploader or staff, never an auditor).
    manageable: bool


class KnowledgePageView(LoginRequiredMixin, TemplateView):
    template_name = "knowledge/knowledge.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        user = self.request.user
        read_only = is_read_only(user)
        search = DocumentSearchForm(self.request.GET)
        # A field that does not validate is left out of the filters and shown with its error (the template).
        search.is_valid()
        filters = {key: value for key, value in search.cleaned_data.items() if value}
        page = Paginator(document_list(**filters), DOCUMENTS_PER_PAGE).get_page(self.request.GET.get("page"))
        # The search, kept in the links to other pages: "q=…&status=…&", or nothing.
        kept = self.request.GET.copy()
        kept.pop("page", None)
        context.update(
            search=search,
            page=page,
            page_query=f"{kept.urlencode()}&" if kept else "",
            rows=[DocumentRow(document, not read_only and can_manage_document(user, document)) for document in page],
            can_upload=not read_only,
            accepted=",".join(ALLOWED_SUFFIXES),
            max_files=settings.KNOWLEDGE_MAX_UPLOAD_FILES,
            archived=DocumentStatus.ARCHIVED,
        )
        return context
