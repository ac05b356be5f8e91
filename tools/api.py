"""The documents API: upload, list, detail, delete. Views validate and call services and selectors only.

Every signed-in user (session or token) may upload, list and read; only the uploader or staff may delete
(``selectors.can_delete_document``). Auditors, staff or not, write nothing: the default API permissions refuse
them before these views run (docs/audit.md). Errors are ``{"error": {"code", "message"}}`` (``config.api_errors``).
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer, error_response
from tools.knowledge.errors import DocumentRejected
from tools.knowledge.ingest import delete_document, ingest_document
from tools.knowledge.selectors import can_delete_document, document_get, document_list
from tools.knowledge.uploads import read_upload
from tools.models import DocumentSource, KnowledgeDocument
from tools.serializers import DocumentDetailSerializer, DocumentPageSerializer, DocumentSerializer, UploadedFileField

REJECTION_STATUS = {
    "file_too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "unsupported_type": status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
}
DOCUMENT_ID = OpenApiParameter("document_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class DocumentUploadApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema_serializer(component_name="DocumentUploadInput")
    class InputSerializer(serializers.Serializer):
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
        responses={
            201: DocumentSerializer,
            400: ErrorSerializer,
            403: ErrorSerializer,
            413: ErrorSerializer,
            415: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
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
            )
        except DocumentRejected as rejected:
            status_code = REJECTION_STATUS.get(rejected.code, status.HTTP_400_BAD_REQUEST)
            return error_response(rejected.code, rejected.message, status_code=status_code)
        location = reverse("tools:document-detail", kwargs={"document_id": document.id})
        return Response(
            DocumentSerializer(document).data, status=status.HTTP_201_CREATED, headers={"Location": location}
        )


class DocumentListApi(APIView):
    class Pagination(LimitOffsetPagination):
        default_limit = 50
        max_limit = 200

    @extend_schema_serializer(component_name="DocumentListFilter")
    class FilterSerializer(serializers.Serializer):
        source = serializers.ChoiceField(choices=DocumentSource.choices, required=False)
        scenario = serializers.CharField(required=False, max_length=100)

    @extend_schema(
        operation_id="documents_list",
        summary="List knowledge documents, newest first",
        parameters=[
            FilterSerializer,
            OpenApiParameter("limit", int, description=f"At most {Pagination.max_limit}."),
            OpenApiParameter("offset", int),
        ],
        responses={200: DocumentPageSerializer, 400: ErrorSerializer, 403: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = self.Pagination()
        page = paginator.paginate_queryset(document_list(**filters.validated_data), request, view=self)
        return paginator.get_paginated_response(DocumentSerializer(page, many=True).data)


class DocumentDetailApi(APIView):
    """One URL, two operations (Django routes by path, not method): read and delete, each thin."""

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
        document = _document_or_404(document_id)
        if not can_delete_document(request.user, document):
            return error_response(
                "forbidden",
                "only the uploader or staff may delete this document",
                status_code=status.HTTP_403_FORBIDDEN,
            )
        delete_document(document=document)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _document_or_404(document_id: str, *, with_chunks: bool = False) -> KnowledgeDocument:
    document = document_get(document_id, with_chunks=with_chunks)
    if document is None:
        raise NotFound("no such document")
    return document
