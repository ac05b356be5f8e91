"""Request body parsers of the JSON APIs (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``).

The standard library's JSON decoder recurses once per nesting level, so a few kilobytes of ``[[[[…`` from
any signed-in user raise ``RecursionError`` — a 500, and with ``DEBUG`` a page full of settings. No request
of these APIs nests deeper than a few levels: a body nested deeper than ``MAX_JSON_DEPTH`` is refused as a
parse error (400) before it is decoded.

Its errors are in the reader's language: DRF's own (``JSON parse error - …``) are not marked for translation.
The decoder's reason (where the text stopped being JSON) is kept as it is.

A body its own charset cannot decode is a parse error in every parser: DRF refuses the codecs that are no
text encodings, but ``idna`` refuses ``errors="replace"`` and ``punycode`` fails on non-ASCII bytes whatever it
is told, and ``Content-Type: …; charset=idna`` was a 500 on every write.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any

from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import get_encoding

from config.json_depth import MAX_JSON_DEPTH, nesting_exceeds


@contextmanager
def charset_decoded(parser_context: Mapping[str, Any] | None) -> Iterator[None]:
    """A ``UnicodeError`` of decoding the body in its charset as a ``ParseError`` (400): a codec may refuse
    ``errors="replace"`` (``idna``) or fail whatever it is told (``punycode`` on non-ASCII bytes)."""
    try:
        yield
    except UnicodeError:
        charset = get_encoding(parser_context or {})
        raise ParseError(
            gettext('the charset "%(charset)s" of the Content-Type cannot be read') % {"charset": charset}
        ) from None


class DepthLimitedJSONParser(parsers.JSONParser):
    """DRF's JSON parser behind a nesting check, so the decoder never recurses deeper than ``MAX_JSON_DEPTH``."""

    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        raw = stream.read()
        # Undecodable bytes cannot be brackets or quotes; the decoder below reports them as a parse error.
        with charset_decoded(parser_context):
            text = raw.decode(get_encoding(parser_context or {}), errors="replace")
        if nesting_exceeds(text, MAX_JSON_DEPTH):
            raise ParseError(
                gettext("the body is JSON nested deeper than %(limit)d levels") % {"limit": MAX_JSON_DEPTH}
            )
        try:
            return super().parse(io.BytesIO(raw), media_type, parser_context)
        except ParseError as error:
            reason = str(error.detail).removeprefix("JSON parse error - ")
            raise ParseError(gettext("the body is not valid JSON: %(reason)s") % {"reason": reason}) from error


class _CharsetDecoded(parsers.BaseParser):
    """A DRF parser whose body its charset cannot decode is refused (the parser after this one in the MRO)."""

    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        with charset_decoded(parser_context):
            return super().parse(stream, media_type, parser_context)


class FormParser(_CharsetDecoded, parsers.FormParser):
    """DRF's form parser, a body its charset cannot decode refused."""


class MultiPartParser(_CharsetDecoded, parsers.MultiPartParser):
    """DRF's multipart parser, a body its charset cannot decode refused."""
