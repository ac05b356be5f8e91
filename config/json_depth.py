"""How deeply a JSON text nests, read without decoding it (the standard library's decoder recurses once per
level): for the APIs' parser (``config.api_parsers``) and the scenario packs' reader (``tools.scenarios.pack``),
which must not need Django's settings to be imported. ``MAX_JSON_DEPTH`` is MariaDB's too: its JSON stores
no deeper documents.
"""

from __future__ import annotations

import re

MAX_JSON_DEPTH = 32

# A JSON string (escapes included; brackets inside it are text, not nesting), or a bracket. A string left
# open runs to the end of the text: matched so, every token is read once, left to right. (Requiring the
# closing quote made an unclosed string of escaped quotes, ``"\\"\\"\\"…``, a new failed match at each quote:
# quadratic, 27 s for 80 KB.)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def nesting_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON text opens more than ``limit`` arrays or objects at once; stops at the first excess.

    Exact for valid JSON; for invalid JSON either answer is fine, because the decoder refuses it anyway.
    """
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False
