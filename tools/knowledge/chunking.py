"""Markdown chunking: one chunk per heading section, long sections cut with a small overlap.

Policy (``docs/knowledge.md`` explains the choice):

- Headings are found by a CommonMark parser (markdown-it-py), so a ``#`` line inside a code fence is not a
  heading and setext headings (``Title`` over ``=====``) are. Headings nested in lists or quotes are text.
- The first heading is the document's title. Every chunk carries its heading path, title first
  (``DB pool runbook > Mitigation > Roll back``), so a section titled only "Mitigation" still says what it
  mitigates. Text before the first heading belongs to the title.
- A section whose text fits in ``MAX_CHUNK_CHARS`` is one chunk. A longer one is cut at the strongest break in
  the second half of the window: a blank line, else a line end, else a sentence end (``.`` ``。`` ``！`` …), else
  a space, else hard at the cap (unpunctuated Chinese). A break outside a code block or a table is taken
  before one inside it (a piece that starts inside a fence holds commands without their fence and language,
  one inside a table rows without their header); inside one only when the window has no other. The next
  piece starts up to ``OVERLAP_CHARS`` earlier, at the earliest break inside that tail, so a sentence cut
  across two chunks is whole in one of them (not inside a block the piece before held whole).
  Sections are never merged: a heading is where a runbook author changes subject.
- A heading with no text of its own (only subheadings) makes no chunk; it lives on in its children's paths.
- Plain text files have no headings: their title comes from the caller and they are cut by the same rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

MAX_CHUNK_CHARS = 1200
OVERLAP_CHARS = 200
MAX_HEADING_CHARS = 300  # KnowledgeChunk.heading and KnowledgeDocument.title
PATH_SEPARATOR = " > "

# Blocks only: the headings' text is their inline token's source, and no inline markup is read (a sixth of a
# large document's parse).
_PARSER = MarkdownIt("commonmark").enable("table").disable("inline")
_BLOCKS = frozenset({"fence", "code_block", "table_open"})
# Break kinds, strongest first; a piece ends right after the match.
_BREAKS = (re.compile(r"\n[ \t]*\n"), re.compile(r"\n"), re.compile(r"[.!?;](?=\s)|[。！？；]"), re.compile(r"\s"))


@dataclass(frozen=True)
class Chunk:
    heading: str
    text: str


@dataclass(frozen=True)
class ChunkedDocument:
    title: str
    chunks: list[Chunk]


@dataclass(frozen=True)
class _Heading:
    first_line: int
    body_line: int
    level: int
    text: str


def chunk_markdown(content: str, *, fallback_title: str) -> ChunkedDocument:
    """Chunks of a markdown document; ``fallback_title`` names a document that has no heading."""
    lines = _normalise_newlines(content).split("\n")
    headings = _headings("\n".join(lines))
    if not headings:
        return chunk_plain_text(content, fallback_title=fallback_title)
    title = _clip(headings[0].text)
    sections: list[tuple[tuple[str, ...], str]] = [((), "\n".join(lines[: headings[0].first_line]))]
    sections.append(((), "\n".join(lines[headings[0].body_line : _next_start(headings, 0, len(lines))])))
    open_headings: list[_Heading] = []
    for position in range(1, len(headings)):
        heading = headings[position]
        while open_headings and open_headings[-1].level >= heading.level:
            open_headings.pop()
        open_headings.append(heading)
        body = "\n".join(lines[heading.body_line : _next_start(headings, position, len(lines))])
        sections.append((tuple(item.text for item in open_headings), body))
    return ChunkedDocument(title=title, chunks=_chunks(title, sections))


def chunk_plain_text(content: str, *, fallback_title: str) -> ChunkedDocument:
    """Chunks of a text without headings: one section, titled by the caller."""
    title = _clip(fallback_title)
    return ChunkedDocument(title=title, chunks=_chunks(title, [((), _normalise_newlines(content))]))


def _normalise_newlines(content: str) -> str:
    return content.replace("\r\n", "\n").replace("\r", "\n")


def _headings(content: str) -> list[_Heading]:
    """Top-level headings with text, in order (markdown-it gives each block its source line range)."""
    tokens = _PARSER.parse(content)
    headings = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        text = " ".join(tokens[index + 1].content.split())
        if text:
            headings.append(_Heading(token.map[0], token.map[1], int(token.tag[1:]), text))
    return headings


def _next_start(headings: list[_Heading], position: int, line_count: int) -> int:
    return headings[position + 1].first_line if position + 1 < len(headings) else line_count


def _chunks(title: str, sections: list[tuple[tuple[str, ...], str]]) -> list[Chunk]:
    chunks: list[Chunk] = []
    for path, body in sections:
        heading = _clip(PATH_SEPARATOR.join((title, *path)))
        chunks.extend(Chunk(heading=heading, text=piece) for piece in split_text(body))
    return chunks


def split_text(body: str) -> list[str]:
    """``body`` cut into pieces of at most ``MAX_CHUNK_CHARS`` by the policy of this module."""
    body = body.strip()
    pieces = []
    start = 0
    blocks = _block_spans(body) if len(body) > MAX_CHUNK_CHARS else []
    while len(body) - start > MAX_CHUNK_CHARS:
        end = _break_before(body, start, blocks)
        pieces.append(body[start:end].strip())
        start = _overlap_start(body, start, end, blocks)
    pieces.append(body[start:].strip())
    return [piece for piece in pieces if piece]


def _block_spans(body: str) -> list[tuple[int, int]]:
    """Character spans of the top-level code blocks and tables of ``body``, from their first line to the
    start of the line after them."""
    line_starts = [0]
    for line in body.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)
    return [
        (line_starts[token.map[0]], line_starts[min(token.map[1], len(line_starts) - 1)])
        for token in _PARSER.parse(body)
        if token.type in _BLOCKS and token.level == 0 and token.map
    ]


def _break_before(body: str, start: int, blocks: list[tuple[int, int]]) -> int:
    """End of the strongest break in the second half of the window, so no piece is under half the cap:
    outside a code block or table if the window has one."""
    floor, limit = start + MAX_CHUNK_CHARS // 2, start + MAX_CHUNK_CHARS
    found: list[int] = []
    for pattern in _BREAKS:
        ends = [match.end() for match in pattern.finditer(body, floor, limit)]
        outside = [end for end in ends if not any(first < end < after for first, after in blocks)]
        if outside:
            return outside[-1]
        found = found or ends
    return found[-1] if found else limit


def _overlap_start(body: str, start: int, end: int, blocks: list[tuple[int, int]]) -> int:
    """Start of the next piece: the earliest, strongest break in the last ``OVERLAP_CHARS`` before ``end``;
    after a code block or table the piece holds whole rather than inside it."""
    window = max(end - OVERLAP_CHARS, start + 1)
    chosen = window
    for pattern in _BREAKS:
        match = pattern.search(body, window, end)
        if match and match.end() < end:
            chosen = match.end()
            break
    return next((after for first, after in blocks if first < chosen < after <= end), chosen)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_HEADING_CHARS else text[: MAX_HEADING_CHARS - 1] + "…"
