"""Request body parsers of the JSON APIs (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``).

The standard library's JSON decoder recurses once per nesting level, so a few kilobytes of ``[[[[…`` from
any signed-in user raise ``RecursionError`` — a 500, and with ``DEBUG`` a page full of settings. No request
of these APIs nests deeper than a few levels: a body nested deeper than ``MAX_JSON_DEPTH`` is refused as a
parse error (400) before it is decoded.

Its errors are in the reader's language: DRF's own (``JSON parse error - …``) are not marked for translation.
The decoder's reason (where the text stopped being JSON) is kept as it is.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import IO, Any

from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding

from config.json_depth import MAX_JSON_DEPTH, nesting_exceeds


class DepthLimitedJSONParser(JSONParser):
    """DRF's JSON parser behind a nesting check, so the decoder never recurses deeper than ``MAX_JSON_DEPTH``."""

    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        raw = stream.read()
        # Undecodable bytes cannot be brackets or quotes; the decoder below reports them as a parse error.
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
