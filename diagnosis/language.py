"""The language of a question: ``zh`` when it holds a Han character, ``en`` otherwise.

One definition for every place that answers in the question's language: the intent router, the offline
composer (its task carries the question), the fallback templates and the fixed texts of the knowledge and
system chat paths. A question mixing English identifiers with Chinese words (``payment-service 为什么慢``)
is Chinese: the identifiers are names, the Chinese words are how the asker talks.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def is_han(character: str) -> bool:
    """Whether ``character`` is a Han (CJK ideograph) character."""
    return _HAN.fullmatch(character) is not None


def language_of(text: str | None) -> Language:
    """``zh`` if ``text`` contains a Han (CJK ideograph) character, else ``en``."""
    return "zh" if text and _HAN.search(text) else "en"
