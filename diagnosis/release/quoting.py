"""Evidence written into an answer so that the page shows it as it is, and the release policy accepts it.

Quotes, facts and runbook passages are copied from tool results, which hold markdown of their own: a log line's
``<redacted>`` or a runbook's ``<topic>`` is raw HTML to markdown-it, a runbook's
``[the deploy procedure](https://wiki/deploy)`` a link, a JSON log's ``https:\\/\\/`` an escape. The release
policy refuses raw HTML and links (they render hidden or elsewhere), and the page's sanitiser drops them; a
runbook cited with a link ended every such run in the fallback. Inside a quote the policy accepts a backslash
escape (``shown`` reads it as the character alone), so the markup is escaped there and shown as text.

A writer puts the evidence between quotation marks the policy reads as one quote around all of it
(``in_quotation_marks``), writes the line whole, then escapes it (``as_text(line, quoted_only=True)``): a "[" is
judged with what follows it on the line (a title's "[" and a passage's "](" make one link), and escapes land only
where the policy reads a quote.
"""

from __future__ import annotations

import re

from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.rules_inline.autolink import AUTOLINK_RE, EMAIL_RE

from diagnosis.language import Language
from diagnosis.release.draft import (
    ASCII_PUNCTUATION,
    CODE_SPAN,
    REFERENCE_AFTER_AMPERSAND,
    protected_spans,
    visible,
    within,
)

# What may open markup in a quote: a "<" (raw HTML, an autolink), a "[" (a link, an image), a "&" (a character
# reference: "&#x202E;" shows a character no check read), a backslash before punctuation (an escape).
_MARKUP_CHARACTER = re.compile(rf"<|\[|&(?={REFERENCE_AFTER_AMPERSAND})|\\(?={ASCII_PUNCTUATION})")


def as_text(evidence: str, *, quoted_only: bool = False) -> str:
    """``evidence`` written so that the page shows it as it is, for a quote: outside code spans, what would
    open markup is escaped (a "<" that markdown-it reads as raw HTML or an autolink, a "[" that may open a link,
    a "&" that starts a character reference), and so is a backslash before punctuation, which the page would
    not show. Inside a code span a backslash would show; none is needed there. ``quoted_only``: only inside
    the quotes of a text that quotes (a fact), since the release policy refuses an escape outside a quote.

    Invisible characters go first (``visible``), as the policy reads the text: ``\\<U+200B>[notes](…)`` is a
    backslash then a link, whose bracket an escape of its own must cover."""
    evidence = visible(evidence)
    codes = [match.span() for match in CODE_SPAN.finditer(evidence)]
    quotes = protected_spans(evidence) if quoted_only else [(0, len(evidence))]

    def escaped(match: re.Match[str]) -> str:
        at, character = match.start(), match.group(0)
        if within(codes, at) or not within(quotes, at):
            return character
        if character == "<" and not _opens_markup(evidence, at):
            return character
        if character == "[" and "](" not in evidence[at:]:
            # It opens nothing: no "](" follows ("[pool-1]", "arr[0][1]"; a reference "[a][b]" needs a
            # definition, which the policy refuses). Left as it is: a log's own quote mark may have closed the
            # quote before it, and an escape outside a quote is refused.
            return character
        return "\\" + character

    return _MARKUP_CHARACTER.sub(escaped, evidence)


def _opens_markup(text: str, at: int) -> bool:
    """Whether the "<" at ``at`` opens what markdown-it reads as raw HTML or as an autolink."""
    if HTML_TAG_RE.match(text, at):
        return True
    close = text.find(">", at + 1)
    inside = text[at + 1 : close] if close != -1 else "<"
    return "<" not in inside and bool(AUTOLINK_RE.search(inside) or EMAIL_RE.search(inside))


# The quotation marks a quote may be written in, in the order each language prefers them.
_QUOTATION_MARKS: dict[Language, tuple[tuple[str, str], ...]] = {
    "en": (('"', '"'), ("“", "”"), ("「", "」"), ("『", "』"), ("＂", "＂")),
    "zh": (("“", "”"), ("「", "」"), ("『", "』"), ("＂", "＂"), ('"', '"')),
}


def in_quotation_marks(text: str, language: Language = "en") -> str:
    """``text`` between the first quotation marks (in ``language``'s order) that the release policy reads as
    one quote around all of it (``draft.protected_spans``): a log line's own '"' or a runbook's “保存” would close
    the usual ones early, and what follows would be read as the answer's own prose, its escapes refused."""
    marks = _QUOTATION_MARKS[language]
    for opening, closing in marks:
        quote = f"{opening}{text}{closing}"
        if protected_spans(quote)[:1] == [(0, len(quote))]:
            return quote
    opening, closing = marks[0]
    return f"{opening}{text}{closing}"
