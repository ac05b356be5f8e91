"""Answer rendering: markdown to HTML, then sanitised, because answers quote tool data verbatim.

Log lines and documents are attacker-influenced text; ``nh3`` (Ammonia) strips anything but a small set
of formatting tags, so a quoted ``<script>`` or ``javascript:`` link never reaches the page as markup.
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")

ALLOWED_TAGS = {
    "p",
    "br",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "a",
    "hr",
    "sup",
}


def render_answer(markdown: str) -> str:
    html = _markdown.render(markdown)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes={"http", "https"},
        link_rel="noopener noreferrer nofollow",
    )
