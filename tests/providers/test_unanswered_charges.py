"""Which failed requests the run's token budget charges: those the server may have computed, whole.

A request that brought no usage back is charged its estimated prompt and its whole output cap when the
server may have done the work anyway (a 5xx, a connection lost after the request went out), and nothing
when it cannot have (a connection never made, a 4xx or a 429 refused before any work).
"""

from __future__ import annotations

import gzip
import json
import socket
import socketserver
import threading
from collections.abc import Iterator

import httpcore2
import pytest

from config.bounded_http import bounded_sdk_client
from diagnosis.providers.base import ErrorCode, ProviderConfig, ProviderError, no_invocations
from diagnosis.providers.openai_provider import build_models
from diagnosis.providers.token_budget import TokenBudget
from diagnosis.providers.token_estimate import prompt_tokens
from tests.support.fake_openai import FakeResponse, chat_completion

MESSAGES = [{"role": "system", "content": "You plan."}, {"role": "user", "content": "why is payment slow?"}]
CAP = 100
WHOLE = prompt_tokens(MESSAGES) + CAP


class CutBody(socketserver.StreamRequestHandler):
    """Reads the whole request, then sends a complete reply's headers and half its body and hangs up: the
    model computed it all, a proxy between dropped the connection."""

    def handle(self) -> None:
        length = 0
        while (line := self.rfile.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        self.rfile.read(length)
        body = json.dumps(chat_completion(content="{}")).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        self.wfile.write(head.encode() + body[: len(body) // 2])


@pytest.fixture
def cutting_server() -> Iterator[str]:
    """The base URL of a loopback server whose every reply is cut half-way."""
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), CutBody) as server:
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        server.shutdown()


def fail(model) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        model.complete(MESSAGES)
    return caught.value


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_5xx_is_charged_whole_for_every_request_sent(fake_openai, make_model, status):
    fake_openai.enqueue(*[FakeResponse(status=status, headers={"retry-after-ms": "1"})] * 2)
    budget = TokenBudget(100_000)

    error = fail(make_model(max_retries=1, max_output_tokens=CAP, token_budget=budget))

    assert (error.code, error.attempts) == (ErrorCode.SERVER_ERROR, 2)
    assert budget.spent == 2 * WHOLE
    assert error.unreported_calls == 2  # billed, maybe, and nobody knows for how much: the cost is unknown


def test_a_reply_after_a_5xx_counts_the_failed_request_as_unreported(fake_openai, make_model):
    """The retry's reply reports its own usage only; the 502 before it may have been computed and billed."""
    fake_openai.enqueue(FakeResponse(status=502, headers={"retry-after-ms": "1"}), FakeResponse(body=chat_completion()))
    budget = TokenBudget(100_000)

    reply = make_model(max_retries=1, max_output_tokens=CAP, token_budget=budget).complete(MESSAGES)

    assert (reply.attempts, reply.unreported_calls, reply.usage.reported) == (2, 1, True)


def test_a_body_cut_after_the_request_was_sent_is_charged_whole(cutting_server, make_model):
    budget = TokenBudget(100_000)

    error = fail(make_model(max_retries=2, max_output_tokens=CAP, token_budget=budget, base_url=cutting_server))

    assert (error.code, error.attempts, error.unreported_calls) == (ErrorCode.CONNECTION, 3, 3)
    assert budget.spent == 3 * WHOLE


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, ErrorCode.BAD_REQUEST), (401, ErrorCode.AUTH), (408, ErrorCode.TIMEOUT), (429, ErrorCode.RATE_LIMIT)],
)
def test_a_request_a_4xx_refused_is_not_charged(fake_openai, make_model, status, code):
    fake_openai.enqueue(FakeResponse(status=status))
    budget = TokenBudget(100_000)

    error = fail(make_model(max_retries=0, max_output_tokens=CAP, token_budget=budget))

    assert error.code is code and len(fake_openai.requests) == 1
    assert budget.spent == 0 and error.unreported_calls == 0


def test_a_connection_never_made_is_not_charged(make_model):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    budget = TokenBudget(100_000)

    error = fail(make_model(max_output_tokens=CAP, token_budget=budget, base_url=f"http://127.0.0.1:{closed_port}/v1"))

    assert (error.code, error.attempts) == (ErrorCode.CONNECTION, 3)
    assert budget.spent == 0


@pytest.mark.parametrize(
    ("base_url", "api_key"), [("ftp://127.0.0.1/v1", "sk-test"), (None, "sk-test\n")], ids=["scheme", "key-header"]
)
def test_a_request_no_server_could_receive_is_not_charged(fake_openai, base_url, api_key):
    """A scheme the client cannot speak, a header it cannot write: it fails before anything is sent."""
    budget = TokenBudget(100_000)
    config = ProviderConfig(
        name="openai",
        base_url=base_url or fake_openai.base_url,
        api_key=api_key,
        model="fake-model",
        max_retries=0,
        output_tokens={"planner": CAP},
        token_budget=budget,
    )

    error = fail(build_models(config, resolve_invocation=no_invocations).planner)

    assert error.code is ErrorCode.CONNECTION and fake_openai.requests == []
    assert budget.spent == 0


def test_a_reply_bigger_than_its_cap_can_fill_is_not_read_and_is_charged_whole(fake_openai, make_model):
    """A server ignoring the cap, or a proxy's dump: read on, it would fill the worker's memory."""
    fake_openai.enqueue(FakeResponse(body=chat_completion(content="x" * (CAP * 32 + 70_000), completion_tokens=5)))
    budget = TokenBudget(100_000)

    error = fail(make_model(max_retries=2, max_output_tokens=CAP, token_budget=budget))

    assert error.code is ErrorCode.MALFORMED_RESPONSE and "over" in error.message
    assert len(fake_openai.requests) == 1 and budget.spent == WHOLE


def test_a_compressed_reply_is_refused_unread(fake_openai, make_model):
    """Asked for uncompressed: a kilobyte of gzip can inflate to gigabytes before it could be counted."""
    body = gzip.compress(json.dumps(chat_completion(content="{}")).encode())
    fake_openai.enqueue(FakeResponse(body=body, headers={"Content-Encoding": "gzip"}))

    error = fail(make_model(max_retries=0, max_output_tokens=CAP, token_budget=TokenBudget(100_000)))

    assert error.code is ErrorCode.MALFORMED_RESPONSE and "compressed" in error.message
    assert fake_openai.requests[0].headers["accept-encoding"] == "identity"


@pytest.mark.parametrize(
    ("status", "code", "charged"), [(429, ErrorCode.RATE_LIMIT, 0), (503, ErrorCode.SERVER_ERROR, 2)]
)
def test_an_error_answer_is_cut_at_the_same_bound_and_judged_by_its_status(
    fake_openai, make_model, status, code, charged
):
    """The SDK reads an error's body itself: a proxy's error page of megabytes was read whole before. Cut at
    the bound, it is still the error its status says: a 429 is retried and costs nothing."""
    page = FakeResponse(
        status=status, body=b"x" * (CAP * 32 + 70_000), content_type="text/html", headers={"retry-after-ms": "1"}
    )
    fake_openai.enqueue(page, page)
    budget = TokenBudget(100_000)

    error = fail(make_model(max_retries=1, max_output_tokens=CAP, token_budget=budget))

    assert error.code is code and len(fake_openai.requests) == 2
    assert budget.spent == charged * WHOLE


def test_the_bounded_client_keeps_the_proxies_of_the_environment(monkeypatch):
    """httpx takes no proxy from the environment for a client given a transport: behind an egress proxy the
    model was unreachable."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")

    client = bounded_sdk_client(1024)

    proxied = [transport for transport in client._mounts.values() if transport is not None]
    assert proxied and all(isinstance(transport._inner._pool, httpcore2.AsyncHTTPProxy) for transport in proxied)
