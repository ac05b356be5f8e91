"""API permissions every view gets (``REST_FRAMEWORK["DEFAULT_PERMISSION_CLASSES"]``), beside signing in.

Auditors read every run and document but write nothing: not a chat message, not a document upload or
delete, nor any write endpoint added later, because the default applies to every API view that does not
replace its permission classes. Staff status does not lift it (a staff auditor opens the admin, read-only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _
from rest_framework.permissions import SAFE_METHODS, BasePermission

from diagnosis.selectors import is_read_only

if TYPE_CHECKING:
    # Annotations only: DRF imports this class while it defines APIView.
    from rest_framework.request import Request
    from rest_framework.views import APIView


class AuditorsReadOnly(BasePermission):
    message = _("auditors have read-only access")
    code = "read_only"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in SAFE_METHODS or not is_read_only(request.user)
