"""JSON API routes of the tools app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from tools import api

app_name = "tools"
urlpatterns = [
    # Before the detail route: "upload" would otherwise be read as a document id.
    path("documents/upload", api.DocumentUploadApi.as_view(), name="document-upload"),
    path("documents", api.DocumentListApi.as_view(), name="document-list"),
    # A str, not a uuid converter: a malformed id must get the API's JSON 404, not Django's HTML one.
    path("documents/<str:document_id>", api.DocumentDetailApi.as_view(), name="document-detail"),
]
