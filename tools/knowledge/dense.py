"""Optional dense scores, fused with BM25 by reciprocal rank fusion (RRF).

Dense retrieval is on only when ``EMBEDDING_MODEL`` names a model. The embeddings come from the same
OpenAI-compatible endpoint as the chat model (``LLM_BASE_URL``, ``LLM_API_KEY``: OpenAI, Qwen, vLLM, Ollama
all serve ``/v1/embeddings``), through the ``openai`` SDK the project already uses, so no model file is
loaded into this process. A model that cannot be reached or answers with an error raises
``EmbeddingUnavailable`` (an ``ImproperlyConfigured`` naming ``EMBEDDING_MODEL``): retrieval never quietly
drops to BM25-only when dense scores were asked for.

Every embeddings request has a wall-clock deadline, ``EMBEDDING_TIMEOUT_SECONDS`` from connecting to the last
byte, its one retry included, as the chat provider has (``diagnosis/providers/openai_provider.py``). The SDK's
own ``timeout`` bounds each attempt's connect and read waits and its ``max_retries`` does the retry, but httpx
restarts the read timeout with every chunk, so an endpoint that trickles its body would hold a knowledge
search for as long as it likes; the request therefore runs on the SDK's async client inside
``asyncio.timeout``, which cancels it wherever it is, on an event loop of its own that does not wait for a
host name still resolving (``config.bounded_http.run_on_own_loop``). A search is a tool call with its own,
short deadline (``TOOL_TIMEOUT_SECONDS``): an embedder sized for chat replies (``LLM_TIMEOUT_SECONDS``)
would outlast it. Its answer is asked for uncompressed and read up to what its vectors can fill
(``config.bounded_http.bounded_sdk_client``), as the chat provider's replies are.

RRF ranks rather than scores: ``score(d) = Σ 1 / (k + rank_r(d))`` over the rankings ``r`` that contain ``d``.
BM25 scores and cosine similarities live on different scales; ranks do not, so no weight needs tuning.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from typing import Protocol

import httpx2
import numpy as np
import openai
import pydantic
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.bounded_http import ResponseRefused, bounded_sdk_client, run_on_own_loop
from config.redaction import error_summary
from config.run_scope import waiting
from tools.errors import ToolTimeout

RRF_K = 60  # the constant of Cormack et al.; larger flattens the difference between adjacent ranks
# A chunk joins the dense ranking only when its cosine similarity to the query reaches this. Unrelated
# texts score 0.1-0.3 with common embedding models, paraphrases well above 0.5.
MIN_DENSE_SIMILARITY = 0.5
EMBED_BATCH_SIZE = 64
# What an answer is read up to: a vector of 8 192 dimensions written as JSON floats per text, and its envelope.
# Past it (or compressed) the endpoint is not answering the request, which must not fill the worker's memory.
RESPONSE_BYTES_PER_TEXT = 8192 * 32
ENVELOPE_BYTES = 64 * 1024


class _Vector(pydantic.BaseModel):
    index: int
    embedding: list[float]


class _Vectors(pydantic.BaseModel):
    """What is read of an embeddings answer (servers differ in the rest: ``usage`` is often empty)."""

    data: list[_Vector]


class EmbeddingUnavailable(ImproperlyConfigured):
    """``EMBEDDING_MODEL`` is set but the model cannot produce embeddings."""


class EmbeddingCut(ToolTimeout):
    """An embeddings request was sent and cut at the tool call's deadline (not the endpoint's own limit)."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str], *, deadline: float | None = None) -> np.ndarray:
        """One unit-length row per text, so a dot product is the cosine similarity; ``ToolTimeout`` rather
        than a request past ``deadline`` (``time.monotonic()``: the tool call's)."""


class OpenAICompatibleEmbedder:
    def __init__(self, *, model: str, base_url: str, api_key: str, timeout: float) -> None:
        """``timeout``: the wall-clock limit of one embeddings request, retry included."""
        self.name = f"{model}@{base_url}"
        self._model = model
        self._timeout = timeout
        # A new client per request: an async client's connections belong to the event loop that opened them.
        self._new_client = functools.partial(
            openai.AsyncOpenAI,
            base_url=base_url,
            # Local servers (vLLM, Ollama) take any key; the SDK refuses an empty one.
            api_key=api_key or "unused",
            timeout=timeout,
            max_retries=1,
        )

    def embed(self, texts: Sequence[str], *, deadline: float | None = None) -> np.ndarray:
        rows: list[list[float]] = []
        waiting()
        for start in range(0, len(texts), EMBED_BATCH_SIZE):
            batch = list(texts[start : start + EMBED_BATCH_SIZE])
            timeout = self._timeout if deadline is None else min(self._timeout, deadline - time.monotonic())
            if timeout <= 0:
                raise ToolTimeout()
            try:
                response = run_on_own_loop(self._create(batch, timeout))
            except (TimeoutError, openai.APITimeoutError) as error:
                if timeout < self._timeout:  # cut short by the call's deadline, not the endpoint's slowness
                    raise EmbeddingCut() from error
                raise EmbeddingUnavailable(
                    f"EMBEDDING_MODEL: {self.name} cannot embed: no whole response within {self._timeout:.3g} s"
                    " (EMBEDDING_TIMEOUT_SECONDS)"
                ) from error
            except ResponseRefused as error:  # our own words: over the bound, or compressed
                raise EmbeddingUnavailable(f"EMBEDDING_MODEL: {self.name} cannot embed: {error}") from error
            except (openai.OpenAIError, httpx2.TransportError, pydantic.ValidationError) as error:
                # Class and status only: the endpoint's error body may echo the request, key included.
                raise EmbeddingUnavailable(
                    f"EMBEDDING_MODEL: {self.name} cannot embed: {error_summary(error)}"
                ) from error
            if len(response.data) != len(batch):
                raise EmbeddingUnavailable(
                    f"EMBEDDING_MODEL: {self.name} returned {len(response.data)} vectors for {len(batch)} texts"
                )
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        vectors: np.ndarray | None
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except ValueError:  # vectors of different lengths: no matrix, and no endpoint to trust
            vectors = None
        if vectors is None or vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbeddingUnavailable(f"EMBEDDING_MODEL: {self.name} returned vectors of different dimensions")
        return unit_rows(vectors)

    async def _create(self, batch: list[str], timeout: float) -> _Vectors:
        """One embeddings request, from connecting to the body's last byte, cancelled at the deadline, its
        answer read uncompressed up to what ``batch``'s vectors can fill (floats: the SDK's own base64 would
        be decoded past the bound)."""
        async with (
            bounded_sdk_client(len(batch) * RESPONSE_BYTES_PER_TEXT + ENVELOPE_BYTES) as http,
            self._new_client(http_client=http) as client,
            asyncio.timeout(timeout),
            client.embeddings.with_streaming_response.create(
                model=self._model, input=batch, encoding_format="float"
            ) as response,
        ):
            body = await response.read()
        return _Vectors.model_validate_json(body)


def configured_embedder() -> Embedder | None:
    """The embedder the settings ask for, or None for BM25-only retrieval."""
    if not settings.EMBEDDING_MODEL:
        return None
    if not settings.LLM_BASE_URL:
        raise EmbeddingUnavailable("EMBEDDING_MODEL: needs LLM_BASE_URL, the endpoint that serves the embeddings")
    return OpenAICompatibleEmbedder(
        model=settings.EMBEDDING_MODEL,
        base_url=settings.LLM_BASE_URL,
        api_key=settings.LLM_API_KEY,
        timeout=settings.EMBEDDING_TIMEOUT_SECONDS,
    )


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], *, k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse best-first rankings of item ids into one, best first; ties keep first-seen order."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda pair: -pair[1])
