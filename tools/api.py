"""The documents API: upload (one file, or several at once), list (all, by status, by fault source), detail,
change, delete. Views validate and call services and selectors only.

Every signed-in user (session or token) may upload, list and read; only the uploader or staff may delete a
document or change its status and labels (``selectors.can_manage_document``). Auditors, staff or not, write nothing: the default API permissions refuse
them before these views run (docs/audit.md). Errors are ``{"error": {"code", "message"}}`` (``config.api_errors``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer, error_response
from config.api_parsers import MultiPartParser
from tools.knowledge.errors import DocumentGone, DocumentRejected
from tools.knowledge.ingest import delete_document, ingest_document, ingest_documents, update_document
from tools.knowledge.selectors import can_manage_document, document_get, document_list
from tools.knowledge.uploads import read_upload
from tools.models import DocumentSource, DocumentStatus, KnowledgeDocument
from tools.serializers import (
    FAULT_SOURCE_MAX_CHARS,
    DocumentDetailSerializer,
    DocumentLabelsInput,
    DocumentPageSerializer,
    DocumentSerializer,
    UploadedFileField,
)

REJECTION_STATUS = {
    "file_too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "unsupported_type": status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
    "knowledge_base_full": status.HTTP_409_CONFLICT,
    "uploader_quota_full": status.HTTP_409_CONFLICT,
}
#: What an upload may answer besides 201: a bad request or file, a read-only caller, a full knowledge base, a
#: file too large, a wrong type.
UPLOAD_ERRORS = {status_code: ErrorSerializer for status_code in (400, 403, 409, 413, 415)}
DOCUMENT_ID = OpenApiParameter("document_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class DocumentPagination(LimitOffsetPagination):
    """DRF's limit and offset, refusing (400) what DRF would quietly replace by its default: a client that
    asked for ``limit=abc`` or ``offset=-5`` gets an error, not a page it did not ask for."""

    default_limit = 50
    max_limit = 200

    def get_limit(self, request: Request) -> int | None:
        self._check(request, self.limit_query_param, minimum=1)
        return super().get_limit(request)

    def get_offset(self, request: Request) -> int:
        self._check(request, self.offset_query_param, minimum=0)
        return super().get_offset(request)

    @staticmethod
    def _check(request: Request, parameter: str, *, minimum: int) -> None:
        value = request.query_params.get(parameter)
        if value is not None and not (value.isascii() and value.isdigit() and int(value) >= minimum):
            reason = gettext("expected a whole number of at least %(minimum)d") % {"minimum": minimum}
            raise ValidationError({parameter: reason})


PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, description=f"At most {DocumentPagination.max_limit}."),
    OpenApiParameter("offset", int),
]


def _document_page(request: Request, view: APIView, documents: QuerySet[KnowledgeDocument]) -> Response:
    paginator = DocumentPagination()
    page = paginator.paginate_queryset(documents, request, view=view)
    return paginator.get_paginated_response(DocumentSerializer(page, many=True).data)


def _rejection(rejected: DocumentRejected) -> Response:
    status_code = REJECTION_STATUS.get(rejected.code, status.HTTP_400_BAD_REQUEST)
    return error_response(rejected.code, rejected.message, status_code=status_code)


class DocumentUploadApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema_serializer(component_name="DocumentUploadInput")
    class InputSerializer(DocumentLabelsInput):
        file = UploadedFileField(allow_empty_file=True, help_text="A .md, .markdown or .txt file, UTF-8.")
        title = serializers.CharField(
            required=False,
            default="",
            allow_blank=True,
            max_length=300,
            help_text="Title when the document has no heading.",
        )

    @extend_schema(
        operation_id="documents_upload",
        summary="Upload a markdown or text document; it is searchable at once",
        request={"multipart/form-data": InputSerializer},
        responses={201: DocumentSerializer, **UPLOAD_ERRORS},
    )
    def post(self, request: Request) -> Response:
        if len(request.FILES.getlist("file")) > 1:
            return error_response(
                "too_many_files", gettext("this endpoint takes one file; POST /api/upload takes several")
            )
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        upload = serializer.validated_data["file"]
        try:
            content = read_upload(upload, max_bytes=settings.KNOWLEDGE_MAX_UPLOAD_BYTES)
            document = ingest_document(
                title_hint=serializer.validated_data["title"],
                filename=upload.name,
                content=content,
                source=DocumentSource.UPLOAD,
                uploaded_by=request.user,
                category=serializer.validated_data.get("category", ""),
                fault_source=serializer.validated_data.get("fault_source", ""),
            )
        except DocumentRejected as rejected:
            return _rejection(rejected)
        location = reverse("tools:document-detail", kwargs={"document_id": document.id})
        return Response(
            DocumentSerializer(document).data, status=status.HTTP_201_CREATED, headers={"Location": location}
        )


class FilesUploadApi(APIView):
    """Seed 003's simple upload, ``POST /api/upload``: several files in one request, all stored or none."""

    parser_classes = [MultiPartParser]

    @extend_schema_serializer(component_name="FilesUploadInput")
    class InputSerializer(DocumentLabelsInput):
        file = serializers.ListField(
            child=UploadedFileField(allow_empty_file=True),
            allow_empty=False,
            help_text="One or more .md, .markdown or .txt files, UTF-8 (the field repeated).",
        )

    @extend_schema_serializer(component_name="FilesUploadOutput")
    class OutputSerializer(serializers.Serializer):
        documents = DocumentSerializer(many=True)

    @extend_schema(
        operation_id="upload_files",
        summary="Upload one or more documents with the same labels; all are searchable at once, or none is stored",
        request={"multipart/form-data": InputSerializer},
        responses={201: OutputSerializer, **UPLOAD_ERRORS},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        uploads = serializer.validated_data["file"]
        try:
            files = [(upload.name, _read_named(upload)) for upload in uploads]
            documents = ingest_documents(
                files,
                source=DocumentSource.UPLOAD,
                uploaded_by=request.user,
                category=serializer.validated_data.get("category", ""),
                fault_source=serializer.validated_data.get("fault_source", ""),
            )
        except DocumentRejected as rejected:
            return _rejection(rejected)
        output = self.OutputSerializer({"documents": documents})
        return Response(output.data, status=status.HTTP_201_CREATED)


def _read_named(upload: UploadedFile) -> str:
    """``read_upload``, its refusal naming the file: in a request of several, the message says which one."""
    try:
        return read_upload(upload, max_bytes=settings.KNOWLEDGE_MAX_UPLOAD_BYTES)
    except DocumentRejected as rejected:
        raise DocumentRejected(rejected.code, f"{upload.name}: {rejected.message}") from rejected


class DocumentListApi(APIView):
    @extend_schema_serializer(component_name="DocumentListFilter")
    class FilterSerializer(serializers.Serializer):
        source = serializers.ChoiceField(choices=DocumentSource.choices, required=False)
        scenario = serializers.CharField(required=False, max_length=100)
        status = serializers.ChoiceField(choices=DocumentStatus.choices, required=False)
        category = serializers.CharField(required=False, max_length=100)
        fault_source = serializers.CharField(required=False, max_length=FAULT_SOURCE_MAX_CHARS)
        q = serializers.CharField(
            required=False, max_length=200, help_text="Text in the title, file name, category or fault source."
        )

    @extend_schema(
        operation_id="documents_list",
        summary="List knowledge documents, newest first",
        parameters=[FilterSerializer, *PAGE_PARAMETERS],
        responses={200: DocumentPageSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        return _document_page(request, self, document_list(**filters.validated_data))


class DocumentStatusListApi(APIView):
    class PathSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=DocumentStatus.choices)

    @extend_schema(
        operation_id="documents_by_status",
        summary="Documents of one status (ACTIVE: searched; ARCHIVED: kept, not searched), newest first",
        parameters=[
            OpenApiParameter("status", str, OpenApiParameter.PATH, enum=DocumentStatus.values),
            *PAGE_PARAMETERS,
        ],
        responses={200: DocumentPageSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def get(self, request: Request, status: str) -> Response:
        path = self.PathSerializer(data={"status": status})
        path.is_valid(raise_exception=True)
        return _document_page(request, self, document_list(status=path.validated_data["status"]))


class DocumentFaultSourceListApi(APIView):
    class PathSerializer(serializers.Serializer):
        faultSource = serializers.CharField(max_length=FAULT_SOURCE_MAX_CHARS)

    @extend_schema(
        operation_id="documents_by_fault_source",
        summary="Documents about one fault source (exactly as labelled), newest first",
        parameters=[
            OpenApiParameter("fault_source", str, OpenApiParameter.PATH, description="e.g. database"),
            *PAGE_PARAMETERS,
        ],
        responses={200: DocumentPageSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def get(self, request: Request, fault_source: str) -> Response:
        path = self.PathSerializer(data={"faultSource": fault_source})
        path.is_valid(raise_exception=True)
        return _document_page(request, self, document_list(fault_source=path.validated_data["faultSource"]))


class DocumentDetailApi(APIView):
    """One URL, three operations (Django routes by path, not method): read, change and delete, each thin."""

    @extend_schema_serializer(component_name="DocumentChangeInput")
    class ChangeSerializer(DocumentLabelsInput):
        status = serializers.ChoiceField(
            choices=DocumentStatus.choices, required=False, help_text="ARCHIVED takes it out of search at once."
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if not attrs:
                raise serializers.ValidationError(_("give at least one of status, category, fault_source"))
            return attrs

    @extend_schema(
        operation_id="documents_retrieve",
        summary="A document with its chunks (the chunk ids lookup_knowledge cites)",
        parameters=[DOCUMENT_ID],
        responses={200: DocumentDetailSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, document_id: str) -> Response:
        return Response(DocumentDetailSerializer(_document_or_404(document_id, with_chunks=True)).data)

    @extend_schema(
        operation_id="documents_destroy",
        summary="Delete a document; it is gone from search at once (uploader or staff)",
        parameters=[DOCUMENT_ID],
        responses={204: None, 403: ErrorSerializer, 404: ErrorSerializer},
    )
    def delete(self, request: Request, document_id: str) -> Response:
        document = _manageable_document(
            request, document_id, gettext("only the uploader or staff may delete this document")
        )
        try:
            delete_document(document=document)
        except DocumentGone:  # deleted by another request since it was read
            raise NotFound(gettext("no such document")) from None
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="documents_partial_update",
        summary="Archive or restore a document, or relabel it (uploader or staff)",
        parameters=[DOCUMENT_ID],
        request=ChangeSerializer,
        responses={
            200: DocumentSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def patch(self, request: Request, document_id: str) -> Response:
        document = _manageable_document(
            request, document_id, gettext("only the uploader or staff may change this document")
        )
        changes = self.ChangeSerializer(data=request.data)
        changes.is_valid(raise_exception=True)
        try:
            changed = update_document(document=document, **changes.validated_data)
        except DocumentGone:  # deleted by another request since it was read
            raise NotFound(gettext("no such document")) from None
        except DocumentRejected as rejected:  # restored into a base that has no room for it
            return _rejection(rejected)
        return Response(DocumentSerializer(changed).data)


def _document_or_404(document_id: str, *, with_chunks: bool = False) -> KnowledgeDocument:
    document = document_get(document_id, with_chunks=with_chunks)
    if document is None:
        raise NotFound(gettext("no such document"))
    return document


def _manageable_document(request: Request, document_id: str, refusal: str) -> KnowledgeDocument:
    """The document if the caller may delete or change it; 404 when unknown, 403 ``forbidden`` with ``refusal``."""
    document = _document_or_404(document_id)
    if not can_manage_document(request.user, document):
        raise PermissionDenied(refusal, code="forbidden")
    return document
