"""The JSONPath subset that citations use: ``$``, ``.key``, ``["any key"]`` and ``[3]`` — nothing else.

A citation must name exactly one value, so wildcards, filters, slices, recursive descent and negative
indexes are refused instead of being half-supported. The harness formats every ``raw_path`` it shows the
model with ``format_path``; the Gatekeeper resolves the model's paths with ``resolve``.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_PATH_CHARS = 500

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INDEX = re.compile(r"0|[1-9][0-9]*")
_QUOTED_KEY = re.compile(r'"(?:[^"\\]|\\.)*"')


class PathError(ValueError):
    """A path that is malformed, outside the subset, or names no value; ``reason`` says which."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


Segment = str | int


def parse(path: str) -> list[Segment]:
    """Split ``path`` into keys (str) and indexes (int), refusing anything outside the subset."""
    if not isinstance(path, str) or not path.startswith("$"):
        raise PathError("syntax", "a path starts with '$'")
    if len(path) > MAX_PATH_CHARS:
        raise PathError("syntax", f"a path is at most {MAX_PATH_CHARS} characters")
    segments: list[Segment] = []
    position = 1
    while position < len(path):
        segment, position = _segment_at(path, position)
        segments.append(segment)
    return segments


def _segment_at(path: str, position: int) -> tuple[Segment, int]:
    rest = path[position:]
    if rest.startswith(".."):
        raise PathError("recursive_descent", f"'..' (recursive descent) is not supported at offset {position}")
    if rest.startswith("."):
        if rest.startswith(".*"):
            raise PathError("wildcard", f"wildcards are not supported at offset {position}")
        match = _IDENTIFIER.match(path, position + 1)
        if match is None:
            raise PathError("syntax", f"expected a key name after '.' at offset {position}")
        return match.group(), match.end()
    if rest.startswith("["):
        return _bracket_at(path, position)
    raise PathError("syntax", f"expected '.' or '[' at offset {position}")


def _bracket_at(path: str, position: int) -> tuple[Segment, int]:
    inner_start = position + 1
    closing = path.find("]", inner_start)
    inner = path[inner_start:closing] if closing != -1 else path[inner_start:]
    if inner.startswith('"'):
        match = _QUOTED_KEY.match(path, inner_start)
        if match is None or not path.startswith("]", match.end()):
            raise PathError("syntax", f'unterminated ["key"] at offset {position}')
        try:
            return json.loads(match.group()), match.end() + 1
        except json.JSONDecodeError:
            raise PathError("syntax", f"invalid escape in the quoted key at offset {position}") from None
    if closing == -1:
        raise PathError("syntax", f"unterminated '[' at offset {position}")
    if inner == "*":
        raise PathError("wildcard", f"wildcards are not supported at offset {position}")
    if inner.startswith("?"):
        raise PathError("filter", f"filters are not supported at offset {position}")
    if ":" in inner:
        raise PathError("slice", f"slices are not supported at offset {position}")
    if "," in inner:
        raise PathError("union", f"unions are not supported at offset {position}")
    if inner.startswith("-"):
        raise PathError("negative_index", f"negative indexes are not supported at offset {position}")
    if _INDEX.fullmatch(inner) is None:
        raise PathError("syntax", f"expected an index or a quoted key in [...] at offset {position}")
    return int(inner), closing + 1


def resolve(payload: Any, path: str) -> Any:
    """The value that ``path`` names in ``payload``; ``PathError`` when it names none."""
    value = payload
    walked = "$"
    for segment in parse(path):
        if isinstance(segment, int):
            if not isinstance(value, list):
                raise PathError("not_a_list", f"{walked} is not a list, cannot take [{segment}]")
            if segment >= len(value):
                raise PathError("index_out_of_range", f"{walked} has {len(value)} items, no [{segment}]")
            value = value[segment]
        else:
            if not isinstance(value, dict):
                raise PathError("not_an_object", f"{walked} is not an object, cannot take key {segment!r}")
            if segment not in value:
                raise PathError("missing_key", f"{walked} has no key {segment!r}")
            value = value[segment]
        walked = format_path(walked, segment)
    return value


def format_path(base: str, *segments: Segment) -> str:
    """``base`` extended by ``segments``: identifiers as ``.key``, other keys as ``["key"]``, ints as ``[n]``."""
    parts = [base]
    for segment in segments:
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        elif _IDENTIFIER.fullmatch(segment):
            parts.append(f".{segment}")
        else:
            parts.append(f"[{json.dumps(segment, ensure_ascii=False)}]")
    return "".join(parts)
