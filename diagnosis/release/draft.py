"""A draft answer read the way the page renders it: units of text with their citation markers.

markdown-it-py parses the draft with the same CommonMark rules as ``diagnosis.rendering``, so the policy
checks exactly the text a reader will see, and nothing can hide where the policy does not look:

- a *unit* is one sentence of a paragraph (block quotes included), a whole list item, a heading, or a
  table row; a list item is one unit because a bullet is one statement even when it quotes a fact with
  several sentences;
- markdown that could carry text the policy cannot tie to a citation is *refused*, never rendered: raw
  HTML, images, links (a destination or a title is text no sentence check covers, and an answer has
  nothing to link to), footnotes, link reference definitions and code blocks.

A marker is ``[id]`` (or ``[id1, id2]``) whose ids look like claim ids (``c1``, ``k2``) or are claim ids
of this run. Quoted strings and code spans are kept whole when sentences are split, because a quoted log
line has full stops of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_block.table import escapedSplit
from markdown_it.token import Token

# html=True so that raw HTML is seen as HTML (and refused) instead of passing as text.
_parser = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table")

_MARKER_GROUP = re.compile(r"\[([^\[\]\n]{1,200})\]")
_CLAIM_ID_SHAPE = re.compile(r"[A-Za-z]{1,3}\d{1,4}")
# "[c1, c2]", "[c1，c2]" and, as Chinese lists things, "[c1、c2]".
_MARKER_SEPARATOR = re.compile(r"[,，、]")
# A quoted span may not swallow a marker, so an unbalanced quote inside a log line cannot hide one.
_PROTECTED = re.compile(
    r"`[^`]*`"
    r"|\"(?:(?!\[[A-Za-z]{1,3}\d{1,4}\])[^\"])*\""
    r"|“[^”]*”|「[^」]*」|『[^』]*』|＂[^＂]*＂"
    # Not a ‘ after a letter or digit: "payment-service‘s pool" is an apostrophe, not a quote to its next ’.
    r"|(?<![A-Za-z0-9])‘(?:(?!\[[A-Za-z]{1,3}\d{1,4}\])[^’])*’"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "cf")
"""Abbreviations whose period ends no sentence, in either case: "e.g. restart the pool" is one instruction.
Every sentence splitter (the release review's, the offline provider's) reads this one list."""
_ABBREVIATION_END = re.compile(rf"\b(?:{'|'.join(map(re.escape, ABBREVIATIONS))})\.$", re.IGNORECASE)
_MARKER_AFTER_STOP = re.compile(r"([.!?])((?:\[[^\[\]\n]{1,200}\])+)(?=\s|$)")
_FOOTNOTE = re.compile(r"\[\^[^\]]*\]")
# Runs of whitespace, but not a lone thin, narrow or no-break space between digit groups: "1 500" is one number.
_WHITESPACE = re.compile(r"(?:(?!(?<=\d)[\u00a0\u2007\u2009\u202f]\d{3}(?!\d))\s)+")


# A backslash before ASCII punctuation, and a character reference: CommonMark shows the character alone.
ASCII_PUNCTUATION = r"[!-/:-@\[-`{-~]"
REFERENCE_AFTER_AMPERSAND = r"(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});"
_BACKSLASH_ESCAPE = re.compile(rf"\\({ASCII_PUNCTUATION})")
_ESCAPE = re.compile(rf"{_BACKSLASH_ESCAPE.pattern}|&{REFERENCE_AFTER_AMPERSAND}")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
"""CommonMark's code span: a run of backticks, closed by the next run of the same length."""


class RefusedMarkup:
    """The rule names of markdown a released answer may not contain."""

    RAW_HTML = "raw_html"
    IMAGE = "image"
    LINK = "link"
    FOOTNOTE = "footnote"
    LINK_REFERENCE = "link_reference"
    CODE_BLOCK = "code_block"
    ESCAPE = "escape"
    EMPHASIS_IN_WORD = "emphasis_in_word"
    CODE_IN_WORD = "code_in_word"
    TABLE_CELLS = "table_cells"
    FOREIGN_SCRIPT = "foreign_script"
    COMBINING_MARK = "combining_mark"


# The scripts the checks read: Latin (with its accents), Chinese and Japanese kana, and the Greek mu that NFKC
# makes of the micro sign (µs). A word in any other script (Cyrillic, Greek, Hangul...) is a sentence no check
# reads, or a homoglyph of a Latin one ("rооt cаսѕе" in Cyrillic and Armenian letters): it is refused.
_READ_LETTERS = re.compile(
    r"[a-zA-Z\u00aa\u00b5\u00ba\u00c0-\u024f\u1e00-\u1eff\u03bc\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
)


def foreign_letters(text: str) -> list[str]:
    """The letters of ``text`` (NFKC, as a reader sees them) in a script the checks do not read."""
    if text.isascii():
        return []
    plain = unicodedata.normalize("NFKC", text)
    return sorted(
        {char for char in plain if unicodedata.category(char).startswith("L") and not _READ_LETTERS.match(char)}
    )


def stray_marks(text: str) -> list[str]:
    """Combining marks (NFC, as a reader sees them) on no letter: ``36\u03320`` shows 360 where the checks
    read 36 and 0, a keycap (``1\u20e3``) draws a digit in a box. A letter's accent is its letter's."""
    if text.isascii():
        return []
    plain = unicodedata.normalize("NFC", text)
    return sorted(
        {
            mark
            for before, mark in zip(" " + plain, plain, strict=False)
            if unicodedata.category(mark) in ("Mn", "Mc", "Me")
            and (unicodedata.category(mark) == "Me" or not unicodedata.category(before).startswith(("L", "M")))
        }
    )


@dataclass(frozen=True)
class Refusal:
    rule: str
    detail: str


@dataclass(frozen=True)
class Unit:
    """One checkable piece of the draft."""

    block: int
    """Units of one paragraph, list item, heading or table row share a block number."""
    kind: str
    """``sentence`` (of a paragraph), ``item``, ``heading`` or ``row``."""
    text: str
    """Whitespace-normalised inline markdown, markers included."""
    markers: tuple[str, ...]


@dataclass(frozen=True)
class Draft:
    units: list[Unit]
    refusals: list[Refusal] = field(default_factory=list)

    @property
    def markers(self) -> set[str]:
        return {marker for unit in self.units for marker in unit.markers}

    def block_markers(self, block: int) -> set[str]:
        return {marker for unit in self.units if unit.block == block for marker in unit.markers}


# Default-ignorable characters that are not format characters (Cf): the combining grapheme joiner, the
# variation selectors, the Mongolian free variation selectors and the Hangul fillers show nothing either.
_INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810), *range(0xFE00, 0xFE10)]
).union(range(0xE0100, 0xE01F0))


#: Lines as markdown-it counts them (``str.splitlines`` also breaks at \u2028, \x0c...).
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _written_cells(line: str) -> int:
    """The cells a table row's source line holds, split as markdown-it splits it (escaped pipes kept)."""
    cells = escapedSplit(re.sub(r"^[\s>]*", "", line).strip())
    return len(cells) - (cells[0] == "") - (len(cells) > 1 and cells[-1] == "")


# An inline link or image as a runbook writes it: [text](destination) or ![alt](source), a title allowed.
_INLINE_LINK = re.compile(
    r"!?\[(?P<text>[^\[\]\n]*)\]\(\s*(?:<(?P<angled>[^<>\n]*)>|(?P<bare>[^()\s<>]*))"
    r"(?:\s+(?P<title>\"[^\"]*\"|'[^']*'))?\s*\)"
)


def link_text(text: str) -> str:
    """``text`` with each inline link or image written out as text, its words then where it points: a
    released answer holds no link (``RefusedMarkup.LINK``), and a recommended action copied from a runbook
    ("see the [rollback procedure](https://wiki/rollback)") is shown, and compared, as "see the rollback
    procedure (https://wiki/rollback)". Nothing is left out: a title can say what the words do not ("only
    after failing over")."""
    if "](" not in text:
        return text

    def written(link: re.Match[str]) -> str:
        target = " ".join(filter(None, (link["angled"] or link["bare"], link["title"])))
        return f"{link['text']} ({target})" if target else link["text"]

    return _INLINE_LINK.sub(written, text)


def visible(text: str) -> str:
    """``text`` as a reader sees it: invisible characters (zero-width spaces, bidi marks, the combining
    grapheme joiner...) removed, so that ``db\u200b-host`` is checked as the ``db-host`` the page shows and
    ``10\u034f36`` as ``1036``. ASCII has none."""
    if text.isascii():
        return text
    return "".join(char for char in text if unicodedata.category(char) != "Cf" and ord(char) not in _INVISIBLE)


def read_draft(markdown: str, claim_ids: Collection[str] = ()) -> Draft:
    """Units and refusals of ``markdown``; ``claim_ids`` are ids that count as markers whatever their shape.

    The release policy and the offline semantic guard each read every draft: it is parsed once (a draft is
    read, never changed, by its readers).
    """
    return _read_draft(markdown, frozenset(claim_ids))


@dataclass
class _OpenList:
    """A list being read: the number its next item shows, and whether the items are read with theirs."""

    next: int
    read: bool


@lru_cache(maxsize=64)
def _read_draft(markdown: str, claim_ids: frozenset[str]) -> Draft:
    markdown = visible(markdown)
    env: dict[str, object] = {}
    tokens = _parser.parse(markdown, env)
    # markdown-it collects link reference definitions in ``env["references"]``, a dict keyed by label.
    references = env.get("references")
    labels = references if isinstance(references, dict) else {}
    refusals = [Refusal(RefusedMarkup.LINK_REFERENCE, f"[{label}]") for label in labels]
    refusals += [Refusal(RefusedMarkup.FOOTNOTE, match.group(0)) for match in _FOOTNOTE.finditer(markdown)]
    if foreign := foreign_letters(markdown):
        refusals.append(Refusal(RefusedMarkup.FOREIGN_SCRIPT, "".join(foreign[:10])))
    if marks := stray_marks(markdown):
        refusals.append(Refusal(RefusedMarkup.COMBINING_MARK, " ".join(f"U+{ord(mark):04X}" for mark in marks[:10])))
    units: list[Unit] = []
    block = 0
    list_depth = 0
    lists: list[_OpenList] = []
    next_number = 1  # the number an ordered list that goes on from the last one closed would start at
    item_number: int | None = None
    row: list[str] = []
    lines = LINE_BREAK.split(markdown)
    source = ""
    for index, token in enumerate(tokens):
        previous = tokens[index - 1].type if index else ""
        if token.type in ("list_item_open", "list_item_close"):
            list_depth += 1 if token.type == "list_item_open" else -1
            if token.type == "list_item_open" and lists:
                if lists[-1].read:
                    item_number = lists[-1].next
                lists[-1].next += 1
            elif token.type == "list_item_close" and item_number is not None:  # an item with no text: "500."
                block += 1
                units.append(_unit(block, "item", f"{item_number}.", claim_ids))
                item_number = None
        elif token.type in ("ordered_list_open", "bullet_list_open"):
            if item_number is not None:  # "500. 7. Restart": the outer item shows its number before the list
                block += 1
                units.append(_unit(block, "item", f"{item_number}.", claim_ids))
                item_number = None
            # A list from 500 shows 500, 501... (where the markdown is rendered as written: the sinks, an API's
            # reader): numbers the item's text must account for, as if written in it ("500. pending"). A list
            # from 1, or one that goes on from the list before it (2. after a paragraph), numbers its items.
            start = int(token.attrs.get("start", 1)) if token.type == "ordered_list_open" else 1
            lists.append(_OpenList(start, read=start not in (1, next_number)))
        elif token.type in ("ordered_list_close", "bullet_list_close"):
            closed = lists.pop()
            if token.type == "ordered_list_close":
                next_number = closed.next
        elif token.type in ("fence", "code_block"):
            refusals.append(Refusal(RefusedMarkup.CODE_BLOCK, _clip(token.content)))
        elif token.type == "html_block":
            refusals.append(Refusal(RefusedMarkup.RAW_HTML, _clip(token.content)))
        elif token.type == "tr_open":
            row = []
            # A header row is read whole; a body row's source may hold more cells than the header's.
            source = lines[token.map[0]] if token.map and previous != "thead_open" else ""
        elif token.type == "tr_close":
            if source and _written_cells(source) > len(row):
                # The table keeps a row's first cells, as many as its header has, and drops the rest unread;
                # the markdown, which chat-ops and API readers show as written, keeps them.
                refusals.append(Refusal(RefusedMarkup.TABLE_CELLS, _clip(source)))
            block += 1
            units.append(_unit(block, "row", " | ".join(row), claim_ids))
        elif token.type == "inline":
            refusals.extend(_inline_refusals(token))
            text = normalise_space(token.content)
            refusals.extend(_hidden_splits(text))
            if previous in ("th_open", "td_open"):
                row.append(text)
                continue
            block += 1
            if previous == "heading_open":
                units.append(_unit(block, "heading", text, claim_ids))
            elif list_depth:
                if item_number is not None:
                    text, item_number = f"{item_number}. {text}", None
                units.append(_unit(block, "item", text, claim_ids))
            else:
                units.extend(_unit(block, "sentence", sentence, claim_ids) for sentence in split_sentences(text))
    return Draft([unit for unit in units if unit.text], refusals)


def normalise_space(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def markers_in(text: str, claim_ids: Collection[str] = ()) -> tuple[str, ...]:
    """The claim ids cited by ``text``'s markers, in order, without repeats."""
    return tuple(dict.fromkeys(marker for _, ids in marker_groups(text, claim_ids) for marker in ids))


def marker_groups(text: str, claim_ids: Collection[str] = ()) -> Iterator[tuple[re.Match[str], list[str]]]:
    for match in _MARKER_GROUP.finditer(text):
        ids = [part.strip() for part in _MARKER_SEPARATOR.split(match.group(1))]
        if ids and all(_CLAIM_ID_SHAPE.fullmatch(part) or part in claim_ids for part in ids):
            yield match, ids


def strip_markers(text: str, claim_ids: Collection[str] = ()) -> str:
    for match, _ in reversed(list(marker_groups(text, claim_ids))):
        text = text[: match.start()] + " " + text[match.end() :]
    return normalise_space(text)


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Quoted strings and code spans: text a sentence quotes rather than states."""
    return [match.span() for match in _PROTECTED.finditer(text)]


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph; never inside a quote; a marker after a full stop stays with its sentence."""
    # "full.[c1] Next" ends a sentence too: the marker closes it, so a space goes after the full stop.
    text = _MARKER_AFTER_STOP.sub(_space_before_marker, text)
    spans = protected_spans(text)
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start()
        if any(low < end < high for low, high in spans) or _ABBREVIATION_END.search(text[start:end]):
            continue
        pieces.append(text[start:end])
        start = match.end()
    pieces.append(text[start:])
    sentences: list[str] = []
    for piece in (normalise_space(piece) for piece in pieces):
        leading = re.match(r"(?:\[[^\[\]\n]{1,200}\]\s*)+", piece)
        if sentences and leading and markers_in(leading.group(0)):
            sentences[-1] += " " + leading.group(0).strip()
            piece = piece[leading.end() :].strip()
        if piece:
            sentences.append(piece)
    return sentences


def _space_before_marker(match: re.Match[str]) -> str:
    return f"{match.group(1)} {match.group(2)}" if markers_in(match.group(2)) else match.group(0)


def _unit(block: int, kind: str, text: str, claim_ids: Collection[str]) -> Unit:
    return Unit(block=block, kind=kind, text=text, markers=markers_in(text, claim_ids))


def within(spans: list[tuple[int, int]], index: int) -> bool:
    """Whether ``index`` falls in one of ``spans`` (``(start, end)`` pairs, end excluded)."""
    return any(low <= index < high for low, high in spans)


def shown_inside(span: str) -> str:
    """What a protected span (``protected_spans``, with its delimiters) shows between them: a code span its
    content as written; a quote its text as the page shows it (``shown``: a log line's ``<topic>`` is quoted
    as ``\\<topic>`` so it is no HTML tag)."""
    return span[1:-1] if span.startswith("`") else shown(span[1:-1])


def shown(text: str) -> str:
    """``text`` with each backslash escape outside a code span read as the page shows it, the character alone:
    ``not\\_ready`` shows ``not_ready``, which says no "not"."""
    if "\\" not in text:
        return text
    codes = [match.span() for match in CODE_SPAN.finditer(text)]
    return _BACKSLASH_ESCAPE.sub(
        lambda escape: escape.group(0) if within(codes, escape.start()) else escape.group(1), text
    )


def _hidden_splits(text: str) -> list[Refusal]:
    """A backslash escape outside a quote, or a character reference outside a code span: the page joins what
    the checks read apart (``10\\:10`` shows ``10:10``, ``&#49;500`` shows ``1500``), and a reference shows a
    character the checks never read, inside a quote too (``&#x202E;`` turns the rest of the line round). A
    quote's evidence writes its "&" escaped (``release.quoting``). Emphasis inside a word is the other
    (``_inline_refusals``)."""
    spans = protected_spans(text)
    codes = [match.span() for match in CODE_SPAN.finditer(text)]
    return [
        Refusal(RefusedMarkup.ESCAPE, _clip(text[max(0, match.start() - 20) : match.end() + 20]))
        for match in _ESCAPE.finditer(text)
        if not within(spans, match.start()) or (match.group(0).startswith("&") and not within(codes, match.start()))
    ]


_EMPHASIS = frozenset({"em_open", "em_close", "strong_open", "strong_close", "s_open", "s_close"})


def _inline_refusals(token: Token) -> list[Refusal]:
    refusals = []
    children = token.children or []
    for index, child in enumerate(children):
        before, after = _shown_beside(children, index)
        if child.type in _EMPHASIS and (
            (before and after and before[-1].isalnum() and after[0].isalnum()) or _joins_number(before, after)
        ):
            # ``10**0**`` shows ``100``, ``10.**36**`` shows ``10.36``: the markers vanish and join what the
            # checks read as two tokens.
            refusals.append(Refusal(RefusedMarkup.EMPHASIS_IN_WORD, _clip(token.content)))
        if child.type == "code_inline" and (
            _joins_number(before, child.content) or _joins_number(child.content, after)
        ):
            refusals.append(Refusal(RefusedMarkup.CODE_IN_WORD, _clip(token.content)))
        if child.type == "image":
            refusals.append(Refusal(RefusedMarkup.IMAGE, str(child.attrs.get("src", ""))))
        elif child.type == "html_inline":
            refusals.append(Refusal(RefusedMarkup.RAW_HTML, child.content))
        elif child.type == "link_open":
            refusals.append(Refusal(RefusedMarkup.LINK, str(child.attrs.get("href", ""))))
    return refusals


_SHOWN = frozenset({"text", "code_inline"})


def _shown_beside(children: list[Token], index: int) -> tuple[str, str]:
    """The text the page shows right before and right after ``children[index]``: across emphasis markers
    and the empty text between them, which show nothing (``**10**`36``` shows ``1036``)."""

    def shown(step: int) -> str:
        at = index + step
        while 0 <= at < len(children) and (
            children[at].type in _EMPHASIS or (children[at].type == "text" and not children[at].content)
        ):
            at += step
        return children[at].content if 0 <= at < len(children) and children[at].type in _SHOWN else ""

    return shown(-1), shown(1)


# What a number may go on with, on its left besides a digit: a sign, a decimal or thousands mark, a colon.
_NUMBER_MARKS = frozenset(".,:/-+\u2212")


def _joins_number(left: str, right: str) -> bool:
    """Whether ``left`` and ``right``, which the checks read apart, show as one number on the page: a digit
    after a digit, a sign or a mark (``waiting=`-`36`` shows ``-36``, ``10:`36``` shows ``10:36``), a mark
    and a digit after a digit (``10``.5``), or a percent sign or a ratio's slash after one (``36``%``).
    Letters may touch (``HikariPool-1`s``): the page shows them as they are written."""
    if not left or not right:
        return False
    return (right[0].isdigit() and (left[-1].isdigit() or left[-1] in _NUMBER_MARKS)) or (
        left[-1].isdigit() and (right[0] in "%/" or (right[0] in ".,:" and right[1:2].isdigit()))
    )


def _clip(text: str, limit: int = 200) -> str:
    return normalise_space(text)[:limit]
