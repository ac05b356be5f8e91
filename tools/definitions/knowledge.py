"""``lookup_knowledge(query, top_k)``: runbooks and postmortems from the knowledge base."""

from __future__ import annotations

from typing import Any

from tools.errors import ToolBackendError
from tools.jsonpath import format_path
from tools.names import ToolName
from tools.projection import clip, listing
from tools.tool import CallContext, Tool, ToolOutput
from tools.truncation import Truncation

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1000,
            "description": "What to look for, in words (English or Chinese): a symptom, an error, a service.",
        },
        "top_k": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many chunks at most."},
    },
    "required": ["query", "top_k"],
    "additionalProperties": False,
}


def handle(arguments: dict[str, Any], context: CallContext) -> ToolOutput:
    # Imported on first use so that building the registry never loads the search stack (bm25s, jieba).
    from tools.knowledge.dense import EmbeddingUnavailable
    from tools.knowledge.search import search_knowledge

    try:
        payload = search_knowledge(arguments["query"], arguments["top_k"], deadline=context.deadline)
    except EmbeddingUnavailable as error:
        # A configured embedding model that cannot answer fails this call, not the whole run.
        raise ToolBackendError("embedding_unavailable", f"the embedding model cannot answer: {error}") from error
    return ToolOutput(payload, row_count=len(payload["chunks"]))


def project(payload: dict[str, Any], budget: int) -> dict[str, Any]:
    chunks = list(enumerate(payload["chunks"]))
    return {"evidence_status": payload["evidence_status"], **listing("chunks", chunks, budget, _chunk_view)}


def _chunk_view(indexed: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    index, chunk = indexed
    return {
        "raw_path": format_path("$", "chunks", index, "text"),
        "title": chunk["title"],
        "document_id": chunk["document_id"],
        "chunk_id": chunk["chunk_id"],
        "score": chunk["score"],
        "text": clip(chunk["text"], 1200),
    }


def cites(segments: list[str | int], value: Any) -> bool:
    """A chunk's text and its title (the heading path it sits under); not the search's status, a score or
    an id."""
    return segments[:1] == ["chunks"] and segments[-1:] in (["text"], ["title"])


def cited_whole(segments: list[str | int]) -> bool:
    """A title, whole: a part of it is a heading cut from the headings that say what it is."""
    return segments[-1:] == ["title"]


LOOKUP_KNOWLEDGE = Tool(
    name=ToolName.LOOKUP_KNOWLEDGE,
    description=(
        "Search the knowledge base (runbooks, postmortems) for passages about a symptom or component. "
        "evidence_status is no_evidence when nothing relevant was found — that is an answer, not an error."
    ),
    parameters=PARAMETERS,
    handler=handle,
    project=project,
    # Chunks are ranked, so cutting trailing ones drops the weakest evidence first.
    truncation=Truncation("chunks"),
    evidence=cites,
    whole=cited_whole,
)
