"""Salient tokens: the parts of a sentence that state a checkable fact, and whether evidence contains them.

A sentence may paraphrase freely, but the tokens a reader acts on must come from the evidence it cites:
numbers with their units, times and dates, identifiers (anything with digits, ``_``, ``.``, ``/``, ``-``,
``::``, ``@`` or CamelCase: ``HikariPool-1``, ``db_pool_pending``, ``10.0.3.7``, ``MySQL``), quoted strings
and code spans, and the names of services, tables and metrics this run knows. Each is compared in a
normal form: NFKC (full-width ``５０`` is ``50``), case folded, whitespace collapsed, markdown emphasis
dropped, ISO times written one way (``2026-04-22T14:02:37Z`` and ``2026-04-22 14:02:37`` are the same).

Numbers are compared by value and unit (``44`` is ``44.0``; ``30 s`` is not ``30 ms``, nor the unitless
count ``waiting=30``), never as substrings of longer numbers or of timestamps, so a wrong ``pool size 50``
is not "found" in ``10:50``; a number written without a unit claims only its value.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property, lru_cache

from diagnosis.language import is_han
from diagnosis.release.draft import LINE_BREAK, link_text, protected_spans, shown_inside, visible

UNITS = {
    "ns": "ns", "nanosecond": "ns", "nanoseconds": "ns", "纳秒": "ns",
    "us": "us", "μs": "us", "microsecond": "us", "microseconds": "us", "微秒": "us",
    "ms": "ms", "msec": "ms", "millisecond": "ms", "milliseconds": "ms", "毫秒": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "秒": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min", "分钟": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "小时": "h",
    "d": "d", "day": "d", "days": "d", "天": "d",
    "%": "%", "percent": "%",
    "b": "b", "byte": "b", "bytes": "b", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb",
    "kib": "kib", "mib": "mib", "gib": "gib",
    # Multipliers: "44 K" and "44万" are not the 44 of the evidence, nor its "44k" a bare 44.
    "k": "k", "thousand": "k", "千": "k", "万": "万", "million": "million", "mn": "million", "m": "million",
    "亿": "亿", "billion": "billion", "bn": "billion", "g": "billion", "x": "x", "×": "x", "倍": "x",
}  # fmt: skip
MULTIPLIERS = frozenset({"k", "万", "million", "亿", "billion", "x"})
_UNIT_PATTERN = "|".join(sorted((re.escape(unit) for unit in UNITS), key=len, reverse=True))
_NUMBER_BODY = r"\d+(?:,\d{3})*(?:\.\d+)?"
# Not the head of a dotted identifier: "10.0.3.7" and "1.5.3" state no 10.0 or 1.5.
_NUMBER = re.compile(rf"({_NUMBER_BODY})(?:\s?({_UNIT_PATTERN})(?![a-z0-9_])|(?![a-z0-9_]|\.\d))")
# A sentence's numbers are read where they stand, in the sentence's own case.
_NUMBER_ANY_CASE = re.compile(_NUMBER.pattern, re.IGNORECASE)
_NUMBER_TOKEN = re.compile(rf"({_NUMBER_BODY})({_UNIT_PATTERN})?")
_DATE = r"\d{4}-\d{2}-\d{2}"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
_TIME_TOKEN = re.compile(rf"(?:{_DATE}(?:[t ]{_CLOCK})?|{_CLOCK})(?:z|[+-]\d{{2}}:?\d{{2}})?")
# In evidence, a clock's milliseconds may follow a comma (Python's and log4j's "14:02:37,123"): part of the time.
_EVIDENCE_CLOCK = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
_TIME_ANYWHERE = re.compile(rf"{_DATE}(?:[t ]{_EVIDENCE_CLOCK})?(?:z|[+-]\d{{2}}:?\d{{2}})?|{_EVIDENCE_CLOCK}z?")
# A number with thousands separators first, so that "1,234" is one token and not "1" and "234".
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?%?(?!\d|,\d)|[a-z0-9_%][a-z0-9_./:@%\-]*", re.IGNORECASE)
_CAMEL = re.compile(r"[a-z][A-Z]")
_IDENTIFIER_MARK = re.compile(r"[\d_./@\-]|::")
_TRAILING = ".:/-@"
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "a.m", "p.m"})
_EMPHASIS = re.compile(r"[*`]")
_WHITESPACE = re.compile(r"\s+")
_ISO_SEPARATOR = re.compile(rf"({_DATE})t(\d{{1,2}}:\d{{2}})")
_UTC_SUFFIX = re.compile(r"(\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)z\b")
_NUMBER_UNIT_SPACE = re.compile(rf"(\d)\s+({_UNIT_PATTERN})(?![a-z0-9])")


class Kind:
    NUMBER = "number"
    TIME = "time"
    IDENTIFIER = "identifier"
    QUOTE = "quote"
    NAME = "name"


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    """As written in the sentence."""
    norm: str
    """The normal form compared with the evidence."""
    attached: str = ""
    """A number written straight after a letter of a script other than Latin, with the words around it
    (``_attached_form``): where the evidence does not state such a number, the same words around it still
    ground it."""


# Dashes a reader takes for a minus sign (NFKC leaves them): "−36" states a negative number as "-36" does.
_MINUS_CHARACTERS = "-\u2212\u2012\u2013\u2014\u2015\ufe58"
_MINUS_SIGNS = dict.fromkeys(_MINUS_CHARACTERS[1:], "-")


# Superscript and subscript digits: NFKC makes "10⁴" the "104" it is not; apart, "10 4" states both numbers.
_RAISED_DIGITS = str.maketrans({char: " " + str(unicodedata.digit(char)) for char in "⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉"})
_DIGIT = re.compile(r"\d")


# Hyphens a reader takes for the ASCII one, which NFKC leaves (U+2011 it makes U+2010): "order‐service" is the
# service name "order-service", not the words "order" and "service".
_HYPHENS = dict.fromkeys("\u2010\u2011\u2043\u02d7\ufe63", "-")
# Both read as ASCII's "-", in one pass.
_DASHES = str.maketrans({**_MINUS_SIGNS, **_HYPHENS})
# A thin, narrow or no-break space (or a typographic apostrophe) between digit groups: "1 500 ms" is 1500 ms
# to a reader, not the numbers 1 and 500 ms that NFKC's plain space would make of it.
_LIST_COMMA = re.compile(r"(?<=[0-9])\uff0c(?=[0-9])")
_GROUP_SEPARATOR = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f\u2019](?=\d{3}(?!\d))")
# Numbers no NFKC decomposes ("❺⓿⓿" is 500 to a reader): other numbers and letter numbers outside Chinese.
_NUMBER_CHARACTER = re.compile(r"[^\x00-\x7f\u3000-\u9fff]")


def _plain(text: str) -> str:
    if text.isascii():
        return text
    text = _GROUP_SEPARATOR.sub(",", text)
    # Chinese separates a list with "，" and writes no space after it: "3，100" is 3 and 100, not 3,100 (between
    # full-width digits, "３，１００", it is the full-width form of 3,100).
    text = _LIST_COMMA.sub("\uff0c ", text)
    text = unicodedata.normalize("NFKC", text.translate(_RAISED_DIGITS)).translate(_DASHES)
    if text.isascii():
        return text
    # Other scripts' digits ("٤٤٠" is 440) are numbers to a reader; NFKC leaves them as they are.
    text = _DIGIT.sub(lambda match: str(unicodedata.digit(match.group(0))), text)
    return _NUMBER_CHARACTER.sub(_number_character, text)


def _number_character(match: re.Match[str]) -> str:
    char = match.group(0)
    value = unicodedata.numeric(char, None) if unicodedata.category(char) in ("No", "Nl") else None
    if value is None:
        return char
    return str(int(value)) if value == int(value) else str(value)


# Pure and asked again and again about the same texts (every sentence's check normalises the evidence).
@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """The comparable form of a sentence or an evidence text."""
    text = _plain(visible(text)).casefold()
    text = _EMPHASIS.sub(" ", text)  # apart, not joined: "2*20" of a runbook is no "220"
    text = _ISO_SEPARATOR.sub(r"\1 \2", text)
    text = _UTC_SUFFIX.sub(r"\1", text)
    return _WHITESPACE.sub(" ", text).strip()


# A date written the Chinese way: "2026年11月12日", "11月12日" (or 号).
_CHINESE_DATE = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
# A number written straight after a Chinese word is read only after a word that introduces an amount
# ("为5分钟", "超过80%", "重试了5次", "剩余3个", "耗时5秒"), not after one it is part of or that turns it (负3, 第3,
# 11月12, 14点30, 1万5, 周3, 千米); and only followed by a unit, a counting word or the end of the phrase, but
# not a range's mark ("3-5次", "3〜5次") or a label's (3#).
_INTRODUCES_AMOUNT = frozenset(
    "为為是达達到过過约約共了有用至于於在剩余餘仅僅只近超高低增减減降升涨漲跌加多少内內等时時"
)
_COUNTING_WORDS = "次个個条條台项項笔筆家位名人例行张張份"
_PHRASE_END = re.compile(rf"\s|$|[{_COUNTING_WORDS}]|[^\w\-~～〜∼⁓#]")
_MULTIPLIER_CHARACTERS = "万萬千百亿億兆"


def _iso_date(match: re.Match[str]) -> str:
    """A Chinese date in ISO's form: "2026-11-12", or ISO's "--11-12" for a month and day of no year."""
    year, month, day = match.groups()
    month_day = f"{int(month):02d}-{int(day):02d}"
    return f"{int(year)}-{month_day}" if year else f"--{month_day}"


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each span blanked out, the positions of the rest kept."""
    for low, high in spans:
        text = text[:low] + " " * (high - low) + text[high:]
    return text


def salient_tokens(text: str, known_names: Collection[str] = ()) -> list[Token]:
    """The salient tokens of ``text`` (markers already removed), quoted strings and Chinese dates first."""
    spans = protected_spans(text)
    tokens = [_quote(text[low:high]) for low, high in spans]
    outside = _blank(text, spans)
    # "11月12日" is the date of the evidence's "2026-11-12" to a reader: not the numbers 11 and 12, nor the
    # range "11-12秒".
    dates = list(_CHINESE_DATE.finditer(outside))
    tokens += [Token(Kind.TIME, date.group(0), _iso_date(date)) for date in dates]
    plain = _plain(_blank(outside, (date.span() for date in dates)))
    names = {normalise(name) for name in known_names}
    for match in _WORD.finditer(plain):
        # The unit is read after the number in the same text as the number (NFKC changes lengths).
        token = _classify(match.group(0).strip(_TRAILING).lstrip("."), names, plain, match.end())
        if token is not None and token.kind == Kind.NUMBER and _signed(plain, match.start()):
            if plain[match.start() - 1] in _MINUS_CHARACTERS and is_han(plain[max(0, match.start() - 2)]):
                # "变为-3" states -3, "从库-2" names replica 2: either way, both must be grounded.
                tokens.append(token)
            token = Token(Kind.NUMBER, "-" + token.text, "-" + token.norm)
        elif token is not None and token.kind == Kind.NUMBER:
            number = _NUMBER_ANY_CASE.match(plain, match.start())
            attached = _attached_form(plain, number, spaced=True) if number else ""
            if attached.split("|")[1:2] == [token.norm]:
                token = Token(Kind.NUMBER, token.text, token.norm, attached)
        if token is not None:
            tokens.append(token)
    return [token for token in tokens if token.norm]


def _quote(span: str) -> Token:
    """A quote as written (where the sentence has it), compared as the page shows it (``shown_inside``)."""
    shown = shown_inside(span)
    return Token(Kind.QUOTE, span[1:-1], normalise(shown) if re.search(r"\w", shown) else "")


def _classify(word: str, names: set[str], text: str, end: int) -> Token | None:
    if not word:
        return None
    norm = normalise(word)
    if _TIME_TOKEN.fullmatch(norm) and (":" in norm or "-" in norm):
        return Token(Kind.TIME, word, norm)
    number = _NUMBER_TOKEN.fullmatch(norm)
    if number:
        unit = number.group(2) or _unit_after(text, end)
        return Token(Kind.NUMBER, word, _number_form(number.group(1), unit))
    if norm in _ABBREVIATIONS:
        return None
    if _IDENTIFIER_MARK.search(word) or _CAMEL.search(word):
        return Token(Kind.IDENTIFIER, word, norm)
    if norm in names:
        return Token(Kind.NAME, word, norm)
    return None


def _signed(text: str, start: int, *, in_evidence: bool = False) -> bool:
    """Whether the number at ``start`` carries a minus sign: a ``-`` (or a dash a reader takes for one) that
    does not join two words (``-98.5`` and ``to -98.5``, not ``HikariPool-1`` or ``2-3``).

    A sentence's dash after a Chinese word, a colon or a slash is a sign ("变为-3", "温度：-3"), and so is 负 or
    零下 ("负3%"): read as signs, such numbers must be grounded as negative ones. In evidence (``in_evidence``)
    such a dash is not read as one, and the number after it is not read at all: it may join a name
    ("节点-3")."""
    if start == 0:
        return False
    if not in_evidence and (
        (text[start - 1] in "负負" and text[max(0, start - 2)] not in "正") or text[max(0, start - 2) : start] == "零下"
    ):
        return True
    if text[start - 1] not in _MINUS_CHARACTERS:
        return False
    before = text[start - 2] if start >= 2 else " "
    if in_evidence:
        return not (before.isalnum() or before in "_./:-")
    return not ((before.isascii() and before.isalnum()) or before in "_.-")


def _unit_after(text: str, end: int) -> str | None:
    # Not before a "-" either: the "us" of "3 us-east-1 pods" is a region's name, not microseconds.
    match = re.match(rf"\s?({_UNIT_PATTERN})(?![a-z0-9_-])", text[end:].casefold())
    return match.group(1) if match else None


def _number_form(digits: str, unit: str | None) -> str:
    """``44.0`` and ``44`` alike, exactly (no float rounding), with the unit's canonical name."""
    shown = format(Decimal(digits.replace(",", "")).normalize(), "f")
    return f"{shown} {UNITS[unit]}" if unit else shown


class Evidence:
    """The texts a sentence may draw on (facts and matched excerpts of the claims it cites).

    A review builds one for every sentence, over the same few evidence texts: each text's numbers are read
    once (``_numbers_in``), and only when a sentence states a number.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        self._raw = [text for text in texts if text]
        self.texts = [normalise(text) for text in self._raw]

    @cached_property
    def _as_read(self) -> list[str]:
        """The raw texts, and those holding links as a reader reads them (``link_text``): a copy of a runbook's
        "see the [procedure](https://wiki/p)" is written as "see the procedure" (an answer holds no link)."""
        return self._raw + [read for text in self._raw if (read := link_text(text)) != text]

    @cached_property
    def _read_texts(self) -> list[str]:
        return self.texts + [normalise(text) for text in self._as_read[len(self._raw) :]]

    @cached_property
    def _after_headings(self) -> list[str]:
        """The lines that follow a markdown heading, normalised: a heading is a title, not a sentence, so
        the line after it begins one ("## Mitigation", then "Restart the pool.")."""
        after = []
        for text in self._as_read:
            lines = LINE_BREAK.split(text)
            after += [normalise(line) for before, line in itertools.pairwise(lines) if _HEADING.match(before)]
        return [line for line in after if line]

    @cached_property
    def _items(self) -> frozenset[str]:
        """The evidence's list items, each whole and normalised, without its marker and final full stop."""
        return frozenset(
            item
            for text in self._as_read
            for line in LINE_BREAK.split(text)
            if (marker := _ITEM_MARKER.match(line)) and (item := normalise(line[marker.end() :]).rstrip(".。"))
        )

    @cached_property
    def _dated(self) -> list[str]:
        """The texts with their Chinese dates in ISO's form, as a sentence's are read."""
        return [_CHINESE_DATE.sub(lambda date: f" {_iso_date(date)} ", text) for text in self.texts]

    @cached_property
    def _numbers(self) -> set[str]:
        """Every number of the evidence with its unit."""
        return {number for text in self.texts for number in _numbers_in(text)[0]}

    @cached_property
    def _values(self) -> set[str]:
        """Every number of the evidence, unit left out."""
        return {value for text in self.texts for value in _numbers_in(text)[1]}

    @cached_property
    def _attached(self) -> set[str]:
        """The numbers the evidence writes straight after a word it does not state them after, each with the
        words around it (``_attached_form``)."""
        return {number for text in self.texts for number in _numbers_in(text)[2]}

    def contains(self, token: Token) -> bool:
        if token.kind == Kind.QUOTE:
            return any(occurs_whole(token.norm, text) for text in self.texts)
        if token.kind == Kind.NUMBER:
            # A unit is part of the claim ("36 s" is not the count "waiting=36"); no unit claims none.
            return token.norm in (self._numbers if " " in token.norm else self._values) or (
                bool(token.attached) and token.attached in self._attached
            )
        if token.kind == Kind.TIME:
            if token.norm.startswith("--"):  # a month and day: of any year, not a range ("11-12秒")
                month_day = re.escape(token.norm[2:])
                # A log's "11-12 02:58:20" is a date too.
                pattern = re.compile(
                    rf"(?:(?<!\d)\d{{4}}-|(?<![\d-])--){month_day}(?!\d)|(?<![\d-]){month_day}(?=[ t]\d{{1,2}}:\d{{2}})"
                )
            else:
                fraction = "." in token.norm.rsplit(":", 1)[-1]
                after = r"" if fraction else r"(?!\d)"
                pattern = re.compile(rf"(?<![\d:]){re.escape(token.norm)}{after}")
            return any(pattern.search(text) for text in self._dated)
        # "_" binds like a letter: db_pool is not db_pool_pending; "-" does not (payment-service's hosts).
        pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(token.norm)}(?![a-z0-9_])")
        return any(pattern.search(text) for text in self.texts)

    def states(self, quote: Token) -> bool:
        """Whether a quote's text stands in the evidence as said, not only as the words after a negation of
        their clause ("raise connectionTimeout" of "Do not raise connectionTimeout")."""
        return any(occurs_whole(quote.norm, text, cited=True) for text in self.texts)

    def quotes(self, text: str) -> bool:
        """Whether ``text`` is a word-for-word copy of one evidence text (or a part of one, no number cut)."""
        norm = normalise(text)
        return bool(norm) and any(occurs_whole(norm, evidence) for evidence in self.texts)

    def copies(self, text: str) -> bool:
        """Whether ``text``, unquoted, is a copy of one evidence text from the start of one of its sentences
        (the line after a heading begins one): a part cut from mid-sentence may leave out what governs it
        ("No errors on order-db since 10:05")."""
        norm = normalise(text)
        return bool(norm) and (
            any(occurs_whole(norm, evidence, from_sentence_start=True) for evidence in self._read_texts)
            or any(occurs_whole(norm, line, from_sentence_start=True) for line in self._after_headings)
        )

    def copies_item(self, text: str) -> bool:
        """Whether ``text`` is one of the evidence's list items, whole (a runbook's step copied as a step).
        An item may sit under a line that governs it ("Not affected:"): the release policy, which grounds
        every name and number, does not take an item for a copy; the semantic guard's word check does."""
        return bool(self._items) and normalise(text).rstrip(".。") in self._items

    def copies_or_lists(self, text: str) -> bool:
        """Whether ``text`` is a copy of an evidence sentence (``copies``) or one of its list items, whole."""
        return self.copies(text) or self.copies_item(text)


# Pure, and asked about the same evidence texts for every sentence of every draft of a run.
@lru_cache(maxsize=4096)
def _numbers_in(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The numbers of one normalised evidence text: with their units, as bare values, and those attached to
    the word before them (``Evidence._attached``)."""
    numbers: set[str] = set()
    values: set[str] = set()
    attached: set[str] = set()
    # A date states no number: not the 11 of "11月12日", nor the 3 written after it ("11月12日3点", kept after 日).
    undated = _CHINESE_DATE.sub(lambda date: " " + date.group(0)[-1], text)
    # A time is blanked by a mark, not a space: the ":37" left of "3:14:02:37" is no port standing alone.
    plain = _NUMBER_UNIT_SPACE.sub(r"\1\2", _TIME_ANYWHERE.sub(_TIME_MARK, undated))
    for match in _NUMBER.finditer(plain):
        sign = "-" if _signed(plain, match.start(), in_evidence=True) else ""
        if not sign and _part_of_a_word(plain, match):
            if form := _attached_form(plain, match):
                attached.add(form)
            continue
        numbers.add(sign + _number_form(match.group(1), match.group(2)))
        if match.group(2) is None or UNITS[match.group(2)] not in MULTIPLIERS:  # 44k is no bare 44
            values.add(sign + _number_form(match.group(1), None))
    return frozenset(numbers), frozenset(values), frozenset(attached)


_TIME_MARK = "\u2063"  # INVISIBLE SEPARATOR: neither a letter, a digit nor a space


def _part_of_a_word(text: str, match: re.Match[str]) -> bool:
    """Whether the evidence's digits at ``match`` are part of something else: an identifier (HikariPool-1,
    10/10's second half), a version, or a Chinese phrase they do not state as a number."""
    before = text[match.start() - 1] if match.start() else " "
    if is_han(before):
        return not _stated_after_ideograph(text, match)
    if before == ":" and (match.start() == 1 or text[match.start() - 2].isspace()):
        return False  # a port standing alone ("listener :443"), as a sentence reads it; not IPv6's "::1"
    return before.isalnum() or before in "_.-/:"


def _stated_after_ideograph(text: str, match: re.Match[str]) -> bool:
    """Whether a number written straight after a Chinese word states that number (``_INTRODUCES_AMOUNT``): a
    false refusal costs a retry, a false grounding releases a number no evidence states."""
    start, end = match.span()
    # Nor after a unit it is the rest of (the 时 of 小时, or of its traditional 小時: the 30 of "1小时30分钟" is
    # part of 90 minutes).
    if text[start - 1] not in _INTRODUCES_AMOUNT or text.endswith((*_COMPOUND_BEFORE, "小時"), 0, start):
        return False
    if match.group(2):  # a unit, not followed by a further multiplier ("3千万" is no 3k)
        return not (end < len(text) and text[end] in _MULTIPLIER_CHARACTERS)
    return bool(_PHRASE_END.match(text, end))


# The units not written in ASCII (the Chinese ones, "μs", "×").
_CHINESE_UNITS = tuple(unit for unit in UNITS if not unit.isascii())
# Units written in Chinese, and the characters of spoken numbers: a number right after one is the rest of a
# compound ("1小时30分钟", "一万5", "2万零5"), not an amount of its own.
_COMPOUND_BEFORE = (*_CHINESE_UNITS, *_MULTIPLIER_CHARACTERS, "零")
# What turns a counted number into a span or a rate after its counting word ("5个月", "5个小时", "5次/秒").
_COUNTED_BEFORE_UNIT = (*_CHINESE_UNITS, "月", "年", "周", "星期", "钟", "/", "每")
# Where a clause ends after a number: not a list's, a range's, an alternative's or a fraction's mark
# ("3、5次", "3～5次", "3/5", "5+").
_AMOUNT_END = re.compile(r"$|[，。；：！？,;:!?)）」』”\"']")
_WINDOW = 2


def _attached_form(text: str, match: re.Match[str], *, spaced: bool = False) -> str:
    """The number at ``match`` with the words around it: the (at most two) letters written straight before
    it, its value and unit, and the counting word after it ("重试|5|次", "等待|5 s|"), which a sentence that
    copies it writes the same way; "" where no letter of a script other than Latin comes before it, or it is
    the rest of a compound, a range's or a list's bound, a label followed by more ("节点3宕机"), or followed by
    a further multiplier or unit. ``spaced``, a sentence's: the spaces a draft writes around a number in
    Chinese ("重试 5 次") are not read (the evidence's "重试 5 次" states its 5 outright)."""
    start, end = match.span()
    left = text[:start].rstrip() if spaced else text[:start]
    window = ""
    for char in reversed(left[-_WINDOW:]):  # the letters before it, up to a clause's or a word's edge
        if not (char.isalpha() and not char.isascii()):
            break
        window = char + window
    if not window or left.endswith(_COMPOUND_BEFORE) or any(char.isdigit() for char in left[-_WINDOW:]):
        return ""
    unit = match.group(2)
    rest = text[end:].lstrip()
    if unit:
        if rest[:1] and rest[0] in _MULTIPLIER_CHARACTERS:
            return ""
        ending = ""
    elif rest[:1] and rest[0] in _COUNTING_WORDS:
        if rest[1:].lstrip().startswith(_COUNTED_BEFORE_UNIT):
            return ""
        ending = rest[0]
    elif _AMOUNT_END.match(rest):
        ending = ""
    else:
        return ""
    return f"{window.casefold()}|{_number_form(match.group(1), unit and unit.casefold())}|{ending}"


# Words that turn a statement round; a cited part of a clause they govern states its opposite.
NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|without|cannot|neither|nor|avoid|refrain|forbidden|prohibited"
    r"|dont|doesnt|cant|shouldnt|mustnt|isnt|arent|wasnt)\b"
    r"|n['\u2019\u02bc]t\b|不|没有|没|未|无|并非|请勿|切勿|禁止|严禁|避免"
    # 别 ("don't"), not the 别 of 级别 (level), 识别, 区别, 特别, 类别, 有别于 and the like, nor the "other" of
    # 别的, nor 别名 (alias); 个别 ("a few") only before what it counts (个别请求), 分别 ("respectively") only
    # before 是, 为, 在…: "这个别重启" and "这部分别改" say "don't". 别人 and 别处 stay negations ("别人工重启",
    # "先别处理"): a negation read where there is none costs a retry, one missed a reversed instruction.
    r"|(?<![级识区特类告差性派辨鉴判送离道惜辞临职国组有])(?!(?<=个)别[请节实服用次主页机台条些例])"
    r"(?!(?<=分)别[是为在对从于属达占由])别(?![的名称])",
    re.IGNORECASE,
)
# Where the clause a cut starts in begins: after a sentence's or a clause's punctuation, a line break, or a
# list item's marker or a heading's (the gatekeeper reads a value with its line breaks made spaces).
# A list item's or a heading's marker ("- ", "3. ", "## ") standing at the start or after a space.
_MARKER = r"(?:[-*+•]|\d{1,3}[.)]|#{1,6})"
_CLAUSE_START = re.compile(rf"[.!?;:,\n。！？；：，、](?!\d)|(?:^|\s){_MARKER}\s")


def occurs_whole(excerpt: str, text: str, *, from_sentence_start: bool = False, cited: bool = False) -> bool:
    """``excerpt`` occurs in ``text`` without changing what it says: cutting a number (``waiting=3`` is not
    in ``waiting=36``, nor ``latency 15`` in ``latency 1500ms``) or a word (``available`` of
    ``unavailable``); ``cited``, an excerpt that stands alone as a claim's evidence, nor leaving out the
    negation of its clause before it (``raise connectionTimeout`` of "Do not raise connectionTimeout", or of
    "Never, ever raise connectionTimeout"; a quote in a draft has the draft's sentence around it), nor the
    negative value a key is given right after it (``tmp_cleanup.enabled`` of ``tmp_cleanup.enabled=false``). The gatekeeper's test of a cited excerpt, and the release
    policy's of a quote; with ``from_sentence_start``, only where a sentence (or a list item, "3. Roll back")
    of ``text`` begins."""
    start = text.find(excerpt)
    while start != -1:
        end = start + len(excerpt)
        whole = not (
            _cuts_number(text, start, before=True, edge=excerpt[0])
            or _cuts_number(text, end, edge=excerpt[-1])
            or _cuts_word(text, start, end)
            or (cited and (_negated_before(text, start) or _negated_after(text, end)))
        )
        if whole and (not from_sentence_start or text[:start].rstrip()[-1:] in _SENTENCE_ENDS):
            return True
        start = text.find(excerpt, start + 1)
    return False


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
# A list item's marker ("- ", "* ", "3. ", "2) "), not a minus sign ("- 36.0 s").
_ITEM_MARKER = re.compile(r"^\s*(?:[-*+](?!\s+\d)|\d{1,9}[.)])\s+")
# What may stand before a sentence's first character, spaces aside: nothing, or a sentence's (or a label's) end.
_SENTENCE_ENDS = ("", *".!?;:。！？；：")


def _cuts_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` begins or ends inside a word of Latin letters, digits and underscores
    (``READY`` of ``NOT_READY``; Chinese has no spaces between its words to cut at: there the number and
    negation tests are what hold)."""
    return (start > 0 and _joined(text[start - 1], text[start])) or (
        end < len(text) and _joined(text[end - 1], text[end])
    )


def _joined(left: str, right: str) -> bool:
    """Two characters of one word; a number and its unit are two (``latency 1500`` of ``1500ms``)."""
    if not (_word(left) and _word(right)):
        return False
    return not ((left.isdigit() and right.isalpha()) or (left.isalpha() and right.isdigit()))


def _word(character: str) -> bool:
    return character.isascii() and (character.isalnum() or character == "_")


def _negated_before(text: str, start: int) -> bool:
    """Whether the clause ``start`` falls in says "not" (or "no", 不, 没有...) before it, or the sentence it
    falls in starts by forbidding: "Do not restart payment-db, drop the archive or purge the queue" forbids all
    three ("请勿扩容、重启或回滚"), unless a "but", "instead", "then"... turns it round before ``start``. A clause
    or sentence that is a negation alone ("Never, ever raise it", "NEVER! Raise it") does not end there."""
    # As a reader sees it: "Ｄｏ ｎｏｔ" in full-width letters says "Do not", "Do _not_" (emphasis) and
    # "n\u200bot" (an invisible character inside) say "Do not" too.
    before = _EMPHASIS_MARKS.sub(" ", visible(unicodedata.normalize("NFKC", text[:start])))
    if NEGATION.search(before[_start_of(_CLAUSE_START, before) :]):
        return True
    sentence = before[_start_of(_SENTENCE_END, before) :]
    return bool(_FORBIDS.match(sentence)) and not _TURN.search(sentence)


# Markdown's emphasis and code marks, which the page does not show: an underscore only at a word's edge
# ("_not_", "__Do not__"), not inside one ("NOT_READY", "tmp_cleanup").
_EMPHASIS_MARKS = re.compile(r"[*~`]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")


def _start_of(ends: re.Pattern[str], before: str) -> int:
    """Where the last clause (or sentence) of ``before`` starts: after its last end that follows more than a
    negation alone, or than a short aside after one ("Never, under any load, raise it")."""
    start = piece = 0
    governed = False
    for match in ends.finditer(before):
        if _NEGATION_ALONE.fullmatch(before[start : match.start()]):
            governed = True
        elif not (governed and _is_aside(before[piece : match.start()], match)):
            governed = False
            start = match.end()
        piece = match.end()
    return start


def _is_aside(piece: str, end: re.Match[str]) -> bool:
    """Whether ``piece`` is an aside a negation alone governs across: nothing (an ellipsis), or a few words
    set off by commas or dashes ("Never, under any load, raise it", "Never, e.g. at peak, raise it"); not a
    clause ended by a semicolon or a sentence's end ("The job should not, by design, run at peak; it ran")."""
    return not piece.strip() or (bool(_ASIDE.fullmatch(piece)) and not _CLOSED.match(end.string, end.start()))


# Who (or what) a "must not" or "should never" is said of: a few words, not a condition ("If it does not,
# restart it"). A goal stated before what to do ("Writes must not be lost, so fail over") is turned round by
# its "so" (``_TURN``).
_ADDRESSEE = r"(?!(?:if|when|whenever|unless|whether|once|in\s+case)\b)(?:[\w'\u2019-]+\s+){0,2}[\w'\u2019-]+"
# A clause of a negation alone: "Never", "Do not, ever", "You must never, ever", "Don't ever", "Operators
# should never" ("No" answers a question, "If not" and "If it does not" set a condition: not these).
_NEGATION_ALONE = re.compile(
    rf"\s*(?:please\s+)?(?:{_ADDRESSEE}\s+)?(?:(?:do|does|should|must|shall|may|can)\s+)?"
    r"(?:never|not|cannot|\w+n['\u2019\u02bc]t"
    # "Under no circumstances, even at peak, restart it", "It is forbidden, even at peak, to restart it".
    r"|(?:under|in)\s+no\s+(?:circumstances?|case)|at\s+no\s+time"
    r"|it\s+is\s+(?:forbidden|prohibited|not\s+allowed|not\s+permitted))"
    r"(?:[\s,!—–-]*ever)?[\s!—–-]*",
    re.IGNORECASE,
)
# An aside of a few words between a negation alone and what it governs: "under any load", "even then".
_ASIDE = re.compile(r"\s*[(\[]?(?:[\w'\u2019-]+[\s)\]]*){1,5}", re.IGNORECASE)
# The ends that close a clause for good: a semicolon, a line break, a sentence's end (a full stop before a
# capital or the end, not the one of "e.g." or "payment-db.prod").
_CLOSED = re.compile(r"[;!?\n。！？；]|\.(?=\s*(?:[A-Z]|$))")
# Where a sentence ends: its punctuation, a line break, or the marker of the next list item or heading (the
# gatekeeper reads a value with its line breaks made spaces: "- Do not restart it - Roll back the change").
_SENTENCE_END = re.compile(rf"[.!?;\n。！？；](?!\d)|(?:^|\s){_MARKER}\s")
# A sentence that starts by forbidding (after a list item's marker or a "please"; "Operators must never
# restart", not the state "The cache should not be flushed", which says nothing of what follows it).
_FORBIDS = re.compile(
    rf"\s*(?:{_MARKER}\s+)?(?:please\s+)?"
    rf"(?:{_ADDRESSEE}\s+(?:must|should|shall)\s+(?:not|never)\s+(?!be\b)|do\s+not|don['\u2019\u02bc]t|never|must\s+not|should\s+not|avoid|refrain\s+from|请勿|切勿|不要|禁止|严禁|避免|别|不得)",
    re.IGNORECASE,
)
# Words after which a forbidding sentence goes on to say what to do.
_TURN = re.compile(
    r"\b(?:but|instead|rather|however|then|otherwise|unless|except|so|therefore|thus|hence)\b"
    r"|而是|但|改为|然后|而应|否则|除非|所以|因此",
    re.I,
)
# A key given a negative value right after it, its name quoted or not: "enabled=false", "disk_full: no",
# '"tmp_cleanup.enabled": false', "healthy == 0", "cleanup is off".
_NEGATIVE_VALUE = re.compile(
    r"[\"'\u201d\u2019]?\s*(?:==|:=|=>|->|[=:\uff1a]|\bis\b)\s*[\"'\u201c\u2018]?"
    r"(?:false|no|off|disabled|none|null|nil|n|f|0(?:\.0+)?)(?![\w.])",
    re.IGNORECASE,
)


def _negated_after(text: str, end: int) -> bool:
    """Whether the excerpt ending at ``end`` is a key whose negative value follows it."""
    return bool(_NEGATIVE_VALUE.match(unicodedata.normalize("NFKC", text[end : end + 40])))


def _cuts_number(text: str, at: int, *, edge: str, before: bool = False) -> bool:
    """Whether a cut at ``at`` (just before the excerpt's first character ``edge``, or just after its last)
    splits digits: a digit on both sides, or a decimal point between them; or, before a number, leaves out
    its minus sign (``36.0`` of ``-36.0``, not ``1`` of ``HikariPool-1``)."""
    if not edge.isdigit():
        return False
    # The character next to the cut, and the one after it (a decimal point is only a point between digits).
    near, far = (at - 1, at - 2) if before else (at, at + 1)
    if not 0 <= near < len(text):
        return False
    if before and text[near] in _MINUS_CHARACTERS:
        return _signed(text, at, in_evidence=True)
    return text[near].isdigit() or (text[near] in ".," and 0 <= far < len(text) and text[far].isdigit())
