"""The OpenAPI schema of the documents API is generated without warnings and describes what the views do."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema


def _schema() -> dict:
    GENERATOR_STATS.reset()
    schema = SchemaGenerator(patterns=[path("api/", include("tools.urls"))]).get_schema(request=None, public=True)
    assert not GENERATOR_STATS, "drf-spectacular warned while generating the documents API schema"
    validate_schema(schema)
    return schema


def test_it_describes_every_documents_operation():
    paths = _schema()["paths"]
    assert set(paths["/api/documents/upload"]) == {"post"}
    assert set(paths["/api/documents"]) == {"get"}
    assert set(paths["/api/documents/{document_id}"]) == {"get", "delete", "patch"}
    assert set(paths["/api/upload"]) == {"post"}
    assert set(paths["/api/documents/status/{status}"]) == {"get"}
    assert set(paths["/api/documents/faultSource/{fault_source}"]) == {"get"}


def test_it_describes_the_seed_003_metadata():
    schema = _schema()
    components = schema["components"]["schemas"]
    assert {"category", "fault_source", "status"} <= set(components["Document"]["properties"])
    assert components["DocumentStatusEnum"]["enum"] == ["ACTIVE", "ARCHIVED"]
    parameters = schema["paths"]["/api/documents/status/{status}"]["get"]["parameters"]
    [status_parameter] = [parameter for parameter in parameters if parameter["name"] == "status"]
    assert status_parameter["schema"]["enum"] == ["ACTIVE", "ARCHIVED"]
    files = components["FilesUploadInput"]["properties"]["file"]
    assert (files["type"], files["items"]["format"]) == ("array", "binary")


def test_it_describes_the_upload_as_a_multipart_file():
    schema = _schema()
    upload = schema["paths"]["/api/documents/upload"]["post"]
    assert list(upload["requestBody"]["content"]) == ["multipart/form-data"]
    form = schema["components"]["schemas"]["DocumentUploadInput"]
    assert (form["properties"]["file"]["type"], form["properties"]["file"]["format"]) == ("string", "binary")
    assert form["required"] == ["file"]
    assert set(upload["responses"]) == {"201", "400", "403", "409", "413", "415"}


def test_it_describes_errors_and_path_ids():
    schema = _schema()
    error = schema["components"]["schemas"]["Error"]
    assert error["properties"]["error"]["$ref"] == "#/components/schemas/ErrorBody"
    delete = schema["paths"]["/api/documents/{document_id}"]["delete"]
    assert delete["parameters"][0]["schema"] == {"type": "string", "format": "uuid"}
    assert set(delete["responses"]) == {"204", "403", "404"}
