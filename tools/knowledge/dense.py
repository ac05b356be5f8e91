"""Optional dense scores, fused with BM25 by reciprocal rank fusion (RRF).

Dense retrieval is on only when ``EMBEDDING_MODEL`` names a model. The embeddings come from the same
OpenAI-compatible endpoint as the chat model (``LLM_BASE_URL``, ``LLM_API_KEY``: OpenAI, Qwen, vLLM, Ollama
all serve ``/v1/embeddings``), through the ``openai`` SDK the project already uses, so no model file is
loaded into this process. A model that cannot be reached or answers with an error raises
``EmbeddingUnavailable`` (an ``ImproperlyConfigured`` naming ``EMBEDDING_MODEL``): retrieval never quietly
drops to BM25-only when dense scores were asked for.

RRF ranks rather than scores: ``score(d) = Σ 1 / (k + rank_r(d))`` over the rankings ``r`` that contain ``d``.
BM25 scores and cosine similarities live on different scales; ranks do not, so no weight needs tuning.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import openai
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.redaction import error_summary

RRF_K = 60  # the constant of Cormack et al.; larger flattens the difference between adjacent ranks
# A chunk joins the dense ranking only when its cosine similarity to the query reaches this. Unrelated
# texts score 0.1-0.3 with common embedding models, paraphrases well above 0.5.
MIN_DENSE_SIMILARITY = 0.5
EMBED_BATCH_SIZE = 64


class EmbeddingUnavailable(ImproperlyConfigured):
    """``EMBEDDING_MODEL`` is set but the model cannot produce embeddings."""


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text, so a dot product is the cosine similarity."""


class OpenAICompatibleEmbedder:
    def __init__(self, *, model: str, base_url: str, api_key: str, timeout: float) -> None:
        self.name = f"{model}@{base_url}"
        self._model = model
        # Local servers (vLLM, Ollama) take any key; the SDK refuses an empty one.
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=1)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), EMBED_BATCH_SIZE):
            batch = list(texts[start : start + EMBED_BATCH_SIZE])
            try:
                response = self._client.embeddings.create(model=self._model, input=batch)
            except openai.OpenAIError as error:
                # Class and status only: the endpoint's error body may echo the request, key included.
                raise EmbeddingUnavailable(
                    f"EMBEDDING_MODEL: {self.name} cannot embed: {error_summary(error)}"
                ) from error
            if len(response.data) != len(batch):
                raise EmbeddingUnavailable(
                    f"EMBEDDING_MODEL: {self.name} returned {len(response.data)} vectors for {len(batch)} texts"
                )
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        return unit_rows(np.asarray(rows, dtype=np.float32))


def configured_embedder() -> Embedder | None:
    """The embedder the settings ask for, or None for BM25-only retrieval."""
    if not settings.EMBEDDING_MODEL:
        return None
    if not settings.LLM_BASE_URL:
        raise EmbeddingUnavailable("EMBEDDING_MODEL: needs LLM_BASE_URL, the endpoint that serves the embeddings")
    return _embedder(
        settings.EMBEDDING_MODEL, settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_TIMEOUT_SECONDS
    )


@functools.lru_cache(maxsize=4)
def _embedder(model: str, base_url: str, api_key: str, timeout: float) -> OpenAICompatibleEmbedder:
    """One client per configuration and process: it keeps its HTTP connection pool between searches."""
    return OpenAICompatibleEmbedder(model=model, base_url=base_url, api_key=api_key, timeout=timeout)


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
