"""Oversized bodies through a real uvicorn: refused while they arrive, before sign-in, never stored whole.

Under ASGI Django writes a request's whole body to a temporary file before any check; a review had a
server write 1.2 GB of an anonymous POST to disk before its 403 (``config/body_limit.py``).
"""

from __future__ import annotations

import json
import socket
from contextlib import ExitStack
from urllib.parse import urlsplit

import httpx
import pytest
import requests

from tests.integration.conftest import start_stack
from tests.support.clients import login

pytestmark = pytest.mark.django_db(transaction=True)

# A cap of 1 KiB of files plus Django's 2.5 MB of form data: a few MB are enough to pass it.
UPLOAD_ENV = {"KNOWLEDGE_MAX_UPLOAD_FILES": "1", "KNOWLEDGE_MAX_UPLOAD_BYTES": "1024"}
CAP = 1024 + 2_621_440


@pytest.fixture(scope="module")
def small_cap_stack(static_root, django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), ExitStack() as stack:
        yield start_stack(stack, static_root, **UPLOAD_ENV)


def raw_post(base: str, head: str, body: bytes = b"") -> tuple[int, dict]:
    """Send a request by hand (``head`` without its blank line, then ``body`` as it is) and read the status
    and JSON body of the answer (a 413 carries a Content-Length, not chunks)."""
    address = urlsplit(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
        connection.sendall(head.encode() + b"\r\n\r\n" + body)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head_part, _, answer = received.partition(b"\r\n\r\n")
    return int(head_part.split()[1]), json.loads(answer)


def chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


def test_an_announced_body_over_the_cap_is_refused_without_sign_in(small_cap_stack):
    """The client sends its body, then reads the 413: the server dropped the body (up to another cap of it)."""
    status, body = raw_post(
        small_cap_stack.base,
        f"POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {CAP + 1}",
        b"x" * (CAP + 1),
    )

    assert status == 413
    assert body["error"] == {"code": "request_too_large", "message": f"the request body is over {CAP} bytes"}


def test_a_client_waiting_to_be_told_to_send_is_refused_at_once(small_cap_stack):
    status, body = raw_post(
        small_cap_stack.base,
        "POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\nExpect: 100-continue",
    )

    assert status == 413 and body["error"]["code"] == "request_too_large"


def test_a_chunked_body_is_cut_off_at_the_cap(small_cap_stack):
    """Past the cap the body is dropped, not stored, and the client reads the 413 once it has sent it."""
    status, body = raw_post(
        small_cap_stack.base,
        "POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        "Content-Type: application/octet-stream",
        chunked(*[b"x" * 1_048_576] * 4),  # 4 MiB, past the cap, sent without a length
    )

    assert status == 413 and body["error"]["code"] == "request_too_large"
    # Still serving (a page of its own: /healthz also asks the workers, which a loaded machine may keep
    # waiting past the check's second).
    assert requests.get(f"{small_cap_stack.base}/accounts/login/", timeout=10).status_code == 200, "the server is fine"


def test_a_chunked_chat_message_is_read_as_a_message(small_cap_stack):
    """DRF alone reads a body without a Content-Length as no body: "message: This field is required"."""
    _, headers = login("chunked-sender")
    body = json.dumps({"message": "payment-service p99 latency tripled since 10:05, why?"}).encode()

    response = httpx.post(
        f"{small_cap_stack.base}/api/chat",
        content=iter([body[:10], body[10:]]),  # an iterator: httpx sends it chunked
        headers={**headers, "Content-Type": "application/json"},
        timeout=10,
    )

    assert response.status_code == 202, response.text
    assert response.request.headers["transfer-encoding"] == "chunked"


def test_a_body_within_the_cap_reaches_django(small_cap_stack):
    """Under the cap the request is Django's as before: here its sign-in check answers."""
    response = requests.post(f"{small_cap_stack.base}/api/chat", json={"message": "x" * 1000}, timeout=10)

    assert response.status_code == 403 and response.json()["error"]["code"] == "not_authenticated"
