"""Every 4xx under /api/ is the JSON error ``{"error": {"code", "message"}}``, whatever answered it: DRF, the
JSON parser's nesting limit, Django's request limits, or Django itself before any view ran."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from config.json_depth import MAX_JSON_DEPTH, nesting_exceeds
from diagnosis.models import ChatSession
from tools.models import KnowledgeDocument

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(owner) -> APIClient:
    # raise_request_exception=False: a server error must be seen as the 500 a client would get.
    client = APIClient(raise_request_exception=False)
    client.force_login(owner)
    return client


def _error(response) -> dict[str, str]:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.json()["error"]


def test_it_refuses_deeply_nested_json_as_a_parse_error(client):
    body = "[" * 2000 + "]" * 2000

    response = client.post("/api/chat", body, content_type="application/json")

    assert response.status_code == 400
    assert _error(response) == {
        "code": "parse_error",
        "message": f"the body is JSON nested deeper than {MAX_JSON_DEPTH} levels",
    }
    assert not ChatSession.objects.exists()


def test_a_body_that_is_not_json_is_a_parse_error_in_the_readers_language(client):
    response = client.post("/api/chat", "{bad", content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")

    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == "parse_error"
    assert error["message"].startswith("请求体不是有效的 JSON：Expecting property name"), error["message"]


def test_it_still_parses_json_nested_up_to_the_limit(client):
    nested = "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1)

    response = client.post("/api/chat", f'{{"message": {nested}}}', content_type="application/json")

    # Parsed: the serializer, not the parser, refuses a list as the message.
    assert response.status_code == 400
    assert _error(response)["code"] == "invalid_input"


UPLOAD = (
    b'--XX\r\nContent-Disposition: form-data; name="file"; filename="y\xc3\xa9.md"\r\n\r\n# Y\n\nbody\r\n--XX--\r\n'
)


@pytest.mark.parametrize(
    ("path", "content_type", "body", "charset"),
    [
        # idna refuses errors="replace", which the parsers decode with.
        ("/api/chat", "application/json", '{"message": "hé"}'.encode(), "idna"),
        ("/api/documents/upload", "multipart/form-data; boundary=XX", UPLOAD, "idna"),
        # punycode fails on non-ASCII bytes, or on a form's "=", whatever it is told.
        ("/api/chat", "application/json", '{"message": "hé"}'.encode(), "punycode"),
        ("/api/chat", "application/x-www-form-urlencoded", b"message=hi", "punycode"),
        ("/api/documents/upload", "multipart/form-data; boundary=XX", UPLOAD, "punycode"),
    ],
)
def test_a_body_its_charset_cannot_decode_is_a_parse_error(client, path, content_type, body, charset):
    response = client.post(path, body, content_type=f"{content_type}; charset={charset}")

    assert response.status_code == 400
    assert _error(response) == {
        "code": "parse_error",
        "message": f'the charset "{charset}" of the Content-Type cannot be read',
    }
    assert not ChatSession.objects.exists()
    assert not KnowledgeDocument.objects.exists()


@pytest.mark.parametrize(
    ("text", "exceeds"),
    [
        ("[" * 3 + "]" * 3, False),
        ("[" * 4 + "]" * 4, True),
        ('{"a": {"b": [1, {"c": 2}]}}', True),
        ('{"a": {"b": [1, 2]}, "c": {"d": 3}}', False),
        ('{"text": "[[[[{{{{"}', False),
        ('{"text": "quote \\" then [[[[{{{{"}', False),
        ('{"text": "backslash \\\\", "x": [[[[]]]]}', True),
    ],
)
def test_it_counts_nesting_outside_strings_only(text, exceeds):
    assert nesting_exceeds(text, 3) is exceeds


def test_a_string_left_open_is_read_once_not_once_per_quote():
    # An unclosed string of escaped quotes made the check quadratic (80 KB: 27 s; this: hours).
    text = '{"a": "' + '\\"' * 500_000 + "[[[["

    assert nesting_exceeds(text, 3) is False


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", json.dumps({"message": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE})),
        ("application/x-www-form-urlencoded", "message=" + "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE),
    ],
)
def test_it_answers_a_body_over_the_memory_limit_in_json(client, content_type, body):
    response = client.post("/api/chat", body, content_type=content_type)

    assert response.status_code == 413
    assert _error(response) == {
        "code": "request_too_large",
        "message": f"the request body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes",
    }
    assert not ChatSession.objects.exists()


def test_it_answers_too_many_files_in_json(client):
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
    files = [SimpleUploadedFile(f"{number}.md", b"# Title\n\ntext\n") for number in range(limit + 1)]

    response = client.post("/api/upload", {"file": files}, format="multipart")

    assert response.status_code == 400
    assert _error(response) == {"code": "too_many_files", "message": f"a request may carry at most {limit} files"}
    assert not KnowledgeDocument.objects.exists()
    # The knowledge page shows the message to whoever dropped the files, in their language.
    files = [SimpleUploadedFile(f"{number}.md", b"# Title\n\ntext\n") for number in range(limit + 1)]
    chinese = client.post("/api/upload", {"file": files}, format="multipart", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert _error(chinese) == {"code": "too_many_files", "message": f"一次请求最多只能携带 {limit} 个文件"}


@override_settings(DATA_UPLOAD_MAX_NUMBER_FIELDS=3)
def test_it_answers_too_many_fields_in_json(client):
    response = client.post("/api/chat", "a=1&b=2&c=3&d=4", content_type="application/x-www-form-urlencoded")

    assert response.status_code == 400
    assert _error(response)["code"] == "too_many_fields"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("path", ["/api/nothing-here", "/api/chat/", "/api/documents/a/b"])
def test_it_answers_an_unknown_api_path_with_the_json_404(client, path, debug):
    # With DEBUG, Django answers a 404 with its technical page, which no handler404 replaces.
    with override_settings(DEBUG=debug):
        response = client.get(path)

    assert response.status_code == 404
    assert _error(response) == {"code": "not_found", "message": "Not found: no API answers at this address"}


def test_the_message_of_an_error_django_answered_is_in_the_readers_language(client):
    response = client.get("/api/nothing-here", HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert response.status_code == 404
    assert _error(response) == {"code": "not_found", "message": "未找到：此地址没有 API"}


def test_a_404_django_raises_inside_a_view_has_the_not_found_code(client, owner):
    """An unknown ``?format=`` is Django's Http404, raised inside DRF's view: not the generic ``error``."""
    session = ChatSession.objects.create(owner=owner, title="t")

    response = client.get(f"/api/diagnosis/{session.pk}/trace?format=xml")

    assert response.status_code == 404
    assert _error(response)["code"] == "not_found"


def test_it_keeps_the_allow_header_of_a_405(client):
    response = client.get("/api/chat")

    assert response.status_code == 405
    assert _error(response)["code"] == "method_not_allowed"
    assert response["Allow"] == "POST, OPTIONS"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_an_unhandled_exception_is_a_json_500_that_names_nothing_inside(client, owner, monkeypatch, debug):
    session = ChatSession.objects.create(owner=owner, title="t")

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("diagnosis.trace.api.trace_session", broken)
    client.raise_request_exception = False
    with override_settings(DEBUG=debug):
        response = client.get(f"/api/diagnosis/{session.pk}/trace")

    assert response.status_code == 500
    assert _error(response) == {
        "code": "internal_server_error",
        "message": "Internal server error: the server's log says what failed",
    }
    assert b"secret internals" not in response.content


def test_it_leaves_errors_outside_the_api_to_django(client):
    response = client.get("/nothing-here")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_a_post_to_an_address_without_its_trailing_slash_is_a_404_not_a_500(client, debug):
    # Redirected, the POST would lose its body: Django refuses that with a RuntimeError under DEBUG.
    with override_settings(DEBUG=debug):
        response = client.post("/api/schema", {"a": 1}, content_type="application/json")
        read = client.get("/api/schema")

    assert response.status_code == 404
    assert _error(response)["code"] == "not_found"
    assert (read.status_code, read["Location"]) == (301, "/api/schema/")  # a read is still sent on


@pytest.mark.parametrize(
    ("body", "english", "chinese"),
    [
        ("null", "The request has no data: send a JSON object.", "请求没有数据：请发送一个 JSON 对象。"),
        (
            '{"message": "why\\u0000?"}',
            "message: Null characters (U+0000) are not allowed.",
            "message: 不允许空字符（U+0000）。",
        ),
    ],
)
def test_drf_texts_its_catalogue_gets_wrong_are_said_in_the_readers_language(client, owner, body, english, chinese):
    """DRF leaves "No data provided" English, and its Chinese for a NUL reads "empty strings are not allowed"."""
    client.force_login(owner)

    for language, said in (("en", english), ("zh-CN", chinese)):
        response = client.post("/api/chat", body, content_type="application/json", HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 400
        assert _error(response) == {"code": "invalid_input", "message": said}
