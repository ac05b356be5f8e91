"""What ``tool_invocation`` keeps of a call's arguments: their digest and their shape, never their text.

The arguments (a whole SQL statement, a search text) can be as long and as sensitive as the data they ask
for, so the durable row holds only bounded metadata (seed 003 §4): the sha256 of the canonical bytes and
the arguments' shape, e.g. ``{"service": "str(15)", "limit": "int"}``. The bytes themselves go to the
invocation store with its TTL (``store.put_arguments``), where the digest can check them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.projection import clip
from tools.store import canonical_json, sha256_hex

# A model can send any keys (the schema refuses them, the row still records the call): keep a bounded few.
MAX_SHAPE_KEYS = 20
MAX_KEY_CHARS = 40

Shape = dict[str, str] | str


@dataclass(frozen=True)
class RecordedArguments:
    """``canonical`` goes to the invocation store; ``sha256`` and ``shape`` go to the row."""

    canonical: bytes
    sha256: str
    shape: Shape


def record_arguments(received: Any) -> RecordedArguments:
    """``received``: the parsed arguments, or what was sent when it did not parse (text, a list, ...).

    Parsed arguments are digested as canonical JSON, so equal arguments have equal digests however the
    model spaced them; text that did not parse is digested as it came.
    """
    canonical = (
        received.encode(errors="surrogatepass") if isinstance(received, str) else canonical_json(received, lenient=True)
    )
    return RecordedArguments(canonical, sha256_hex(canonical), shape_of(received))


def shape_of(value: Any) -> Shape:
    """Each top-level key with its value's type and length, or the type and length of a value that is no object."""
    if not isinstance(value, dict):
        return _kind(value)
    keys = sorted(value, key=str)
    shape = {clip(str(key), MAX_KEY_CHARS): _kind(value[key]) for key in keys[:MAX_SHAPE_KEYS]}
    if len(keys) > MAX_SHAPE_KEYS:
        shape["…"] = f"{len(keys) - MAX_SHAPE_KEYS} more keys"
    return shape


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return type(value).__name__
    if isinstance(value, str):
        return f"str({len(value)})"
    if isinstance(value, (list, tuple)):
        return f"array({len(value)})"
    if isinstance(value, dict):
        return f"object({len(value)})"
    return type(value).__name__
