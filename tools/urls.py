"""JSON API routes of the tools app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from tools import api

app_name = "tools"
urlpatterns = [
    # Before the detail route: "upload" would otherwise be read as a document id.
    path("documents/upload", api.DocumentUploadApi.as_view(), name="document-upload"),
    path("documents", api.DocumentListApi.as_view(), name="document-list"),
    # Seed 003's metadata endpoints; two segments, so never read as a document id.
    path("documents/status/<str:status>", api.DocumentStatusListApi.as_view(), name="document-status-list"),
    path(
        "documents/faultSource/<str:fault_source>",
        api.DocumentFaultSourceListApi.as_view(),
        name="document-fault-source-list",
    ),
    # Seed 003's simple upload: several files at once.
    path("upload", api.FilesUploadApi.as_view(), name="upload"),
    # A str, not a uuid converter: a malformed id must get the API's JSON 404, not Django's HTML one.
    path("documents/<str:document_id>", api.DocumentDetailApi.as_view(), name="document-detail"),
]
