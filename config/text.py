"""Text a database can store."""

from __future__ import annotations


def is_unicode_text(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8: a lone surrogate (what a JSON ``\\ud800`` escape, or bytes that were
    not UTF-8 on a command line, become in Python) is no character, and no database's text column stores it."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True
