"""Output serializers shared by the documents API (its input serializers are nested in each view)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api_fields import StrictCharField
from tools.models import DocumentSource, DocumentStatus

CATEGORY_MAX_CHARS = 50
FAULT_SOURCE_MAX_CHARS = 100


class DocumentSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    title = serializers.CharField()
    filename = serializers.CharField()
    source = serializers.ChoiceField(choices=DocumentSource.choices)
    scenario = serializers.CharField()
    category = serializers.CharField()
    fault_source = serializers.CharField()
    status = serializers.ChoiceField(choices=DocumentStatus.choices)
    size_bytes = serializers.IntegerField()
    chunk_count = serializers.IntegerField()
    content_sha256 = serializers.CharField()
    uploaded_by = serializers.CharField(source="uploaded_by.username", allow_null=True)
    created_at = serializers.DateTimeField()


class DocumentDetailSerializer(DocumentSerializer):
    class ChunkSerializer(serializers.Serializer):
        # The chunk_id that lookup_knowledge returns, so a citation can be traced to its section.
        id = serializers.UUIDField()
        ordinal = serializers.IntegerField()
        heading = serializers.CharField()
        text = serializers.CharField()

    chunks = ChunkSerializer(many=True, source="chunks.all")


class DocumentPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = DocumentSerializer(many=True)


@extend_schema_field(OpenApiTypes.BINARY)
class UploadedFileField(serializers.FileField):
    """A file in a multipart request: binary in the schema, where drf-spectacular would say "uri".

    drf-spectacular maps a plain ``FileField`` to a URI unless ``COMPONENT_SPLIT_REQUEST`` is on, because the
    same component then also describes responses; an upload's input component never does.
    """


class DocumentLabelsInput(serializers.Serializer):
    """Seed 003's labels of a document, as uploads and changes take them (both optional, blank allowed)."""

    category = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=CATEGORY_MAX_CHARS,
        help_text="A free label: runbook, postmortem, procedure…",
    )
    fault_source = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=FAULT_SOURCE_MAX_CHARS,
        help_text="What kind of fault it is about: a component or service (database, network, payment-service).",
    )
