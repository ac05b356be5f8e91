"""A draft is read as the page renders it, so the policy checks exactly what a reader will see.

Units are what a citation can vouch for (a sentence of a paragraph, a whole list item, a heading, a table
row); sentence splitting must never cut a quoted log line apart or leave a marker behind its full stop;
markdown that could carry text outside every unit (raw HTML, images, links, footnotes, link
references, code blocks) is refused rather than rendered.
"""

from __future__ import annotations

import pytest

from diagnosis.release.draft import (
    RefusedMarkup,
    markers_in,
    read_draft,
    shown_inside,
    split_sentences,
    strip_markers,
    visible,
)
from diagnosis.rendering import render_answer


def units(markdown: str, claim_ids=()) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(unit.kind, unit.text, unit.markers) for unit in read_draft(markdown, claim_ids).units]


def refusals(markdown: str) -> list[tuple[str, str]]:
    return [(refusal.rule, refusal.detail) for refusal in read_draft(markdown).refusals]


# --- units -------------------------------------------------------------------------------------------------


def test_it_reads_each_sentence_of_a_paragraph_as_its_own_unit():
    assert units("Pool exhausted [c1]. Requests timed out [c2].") == [
        ("sentence", "Pool exhausted [c1].", ("c1",)),
        ("sentence", "Requests timed out [c2].", ("c2",)),
    ]


def test_it_reads_a_list_item_whole_even_when_it_has_several_sentences():
    assert units("- Pool exhausted. Requests timed out [c1]\n- Check the pool") == [
        ("item", "Pool exhausted. Requests timed out [c1]", ("c1",)),
        ("item", "Check the pool", ()),
    ]


def test_it_reads_ordered_and_nested_list_items_as_items():
    kinds = [kind for kind, _, _ in units("1. First step. Then more.\n2. Second\n   - nested point")]

    assert kinds == ["item", "item", "item"]


def test_it_reads_a_heading_as_one_unit():
    assert units("## Likely root cause [c1]\n\nText.") == [
        ("heading", "Likely root cause [c1]", ("c1",)),
        ("sentence", "Text.", ()),
    ]


def test_it_reads_a_table_row_as_one_unit_with_its_cells_joined():
    markdown = "| claim | fact |\n|---|---|\n| c1 | pool exhausted [c1] |\n| c2 | timed out [c2] |"

    assert units(markdown) == [
        ("row", "claim | fact", ()),
        ("row", "c1 | pool exhausted [c1]", ("c1",)),
        ("row", "c2 | timed out [c2]", ("c2",)),
    ]


def test_it_splits_the_sentences_of_a_block_quote_like_a_paragraph():
    assert units("> Pool exhausted.\n> Requests timed out [c1].") == [
        ("sentence", "Pool exhausted.", ()),
        ("sentence", "Requests timed out [c1].", ("c1",)),
    ]


def test_units_of_one_block_share_its_number_and_the_next_block_gets_a_new_one():
    draft = read_draft("One [c1]. Two [c2].\n\n- Item [c3]\n\n## Heading")

    assert [unit.block for unit in draft.units] == [1, 1, 2, 3]
    assert draft.block_markers(1) == {"c1", "c2"}
    assert draft.block_markers(2) == {"c3"}
    assert draft.markers == {"c1", "c2", "c3"}


def test_it_normalises_whitespace_inside_a_unit():
    assert units("Pool   was\nexhausted [c1].") == [("sentence", "Pool was exhausted [c1].", ("c1",))]


def test_it_reads_invisible_format_characters_as_the_page_shows_them():
    assert visible("db\u200b-host\u200e") == "db-host"
    assert units("db\u200b-host failed [c\u200b1].") == [("sentence", "db-host failed [c1].", ("c1",))]


def test_an_empty_draft_has_no_units_and_no_refusals():
    draft = read_draft("")

    assert draft.units == [] and draft.refusals == []


# --- sentence splitting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two! Three? Four.", ["One.", "Two!", "Three?", "Four."]),
        (
            'The log says "Pool exhausted. Retry later." at 10:05 [c1]. Next.',
            ['The log says "Pool exhausted. Retry later." at 10:05 [c1].', "Next."],
        ),
        ("The log says “Pool full. Retry.” [c1]. Next.", ["The log says “Pool full. Retry.” [c1].", "Next."]),
        (
            "日志写道「连接池耗尽。请求超时。」[c1]。随后恢复。",
            ["日志写道「连接池耗尽。请求超时。」[c1]。", "随后恢复。"],
        ),
        ("日志写道『连接池耗尽。』[c1]。", ["日志写道『连接池耗尽。』[c1]。"]),
        ("日志写道‘连接池耗尽。’[c1]。随后恢复。", ["日志写道‘连接池耗尽。’[c1]。", "随后恢复。"]),
        ("日志写道＂连接池耗尽。＂[c1]。", ["日志写道＂连接池耗尽。＂[c1]。"]),
        # A ‘ after a letter is an apostrophe, not the start of a quote running to the next ’.
        (
            "payment-service‘s pool is full [c1]. Then api-gateway’s errors began [c2].",
            ["payment-service‘s pool is full [c1].", "Then api-gateway’s errors began [c2]."],
        ),
        ("Run `SELECT 1. FROM x` now [c1]. Next.", ["Run `SELECT 1. FROM x` now [c1].", "Next."]),
        ('He said "a. b" and `c. d`. Done [c1].', ['He said "a. b" and `c. d`.', "Done [c1]."]),
    ],
)
def test_it_never_splits_inside_a_quote_or_a_code_span(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Pool was exhausted. [c1] Requests failed.", ["Pool was exhausted. [c1]", "Requests failed."]),
        ("Pool was exhausted. [c1][c2] Next.", ["Pool was exhausted. [c1][c2]", "Next."]),
        ("Pool was exhausted. [c1, c2] Next.", ["Pool was exhausted. [c1, c2]", "Next."]),
        ("Pool was exhausted [c1]. [c2] Next.", ["Pool was exhausted [c1]. [c2]", "Next."]),
        ("Pool was exhausted. [c1]", ["Pool was exhausted. [c1]"]),
        ("连接池耗尽了。[c1]随后请求超时！[c2]", ["连接池耗尽了。 [c1]", "随后请求超时！ [c2]"]),
    ],
)
def test_it_keeps_a_marker_written_after_the_full_stop_with_its_sentence(text, sentences):
    assert split_sentences(text) == sentences


def test_a_bracket_after_a_full_stop_that_is_no_marker_starts_the_next_sentence():
    assert split_sentences("Pool full. [ERROR] was logged.") == ["Pool full.", "[ERROR] was logged."]


def test_a_marker_moved_back_still_counts_for_its_sentence_unit():
    assert units("Pool was exhausted. [c1] Requests failed.") == [
        ("sentence", "Pool was exhausted. [c1]", ("c1",)),
        ("sentence", "Requests failed.", ()),
    ]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Check a setting, e.g. the size. Then restart.", ["Check a setting, e.g. the size.", "Then restart."]),
        ("One store, i.e. the primary. Next.", ["One store, i.e. the primary.", "Next."]),
        ("Pool vs. queue. Next.", ["Pool vs. queue.", "Next."]),
        ("Logs, metrics etc. are listed. Next.", ["Logs, metrics etc. are listed.", "Next."]),
        ("See the runbook, cf. the postmortem. Next.", ["See the runbook, cf. the postmortem.", "Next."]),
        ("Check a pool setting, E.G. the size. Next.", ["Check a pool setting, E.G. the size.", "Next."]),
    ],
)
def test_it_does_not_end_a_sentence_at_an_abbreviation(text, sentences):
    assert split_sentences(text) == sentences


def test_an_unbalanced_quote_cannot_swallow_a_marker_and_hide_the_sentences_after_it():
    assert split_sentences('The "unbalanced quote [c1]. Next sentence [c2]. End') == [
        'The "unbalanced quote [c1].',
        "Next sentence [c2].",
        "End",
    ]


def test_a_full_stop_inside_a_number_or_an_identifier_is_no_sentence_end():
    assert split_sentences("Host 10.0.3.7 and v1.2 failed [c1]. Next.") == [
        "Host 10.0.3.7 and v1.2 failed [c1].",
        "Next.",
    ]


# --- markers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "markers"),
    [
        ("Pool exhausted [c1].", ("c1",)),
        ("Pool exhausted [c1, c2].", ("c1", "c2")),
        ("Pool exhausted [c1,c2].", ("c1", "c2")),
        ("连接池耗尽 [c1，c2]。", ("c1", "c2")),
        ("连接池耗尽 [c1、c2]。", ("c1", "c2")),
        ("Pool exhausted [c1][c2].", ("c1", "c2")),
        ("Pool [c2] exhausted [c1] again [c2].", ("c2", "c1")),
        ("Knowledge [k2] and metrics [m13].", ("k2", "m13")),
        ("Pool exhausted [ c1 ].", ("c1",)),
        ("No markers here.", ()),
    ],
)
def test_it_finds_markers_that_look_like_claim_ids(text, markers):
    assert markers_in(text) == markers


@pytest.mark.parametrize(
    "text",
    [
        "The log line said [ERROR] pool exhausted.",
        "The check [mq-health] failed.",
        "See [the runbook] for details.",
        "Mixed [c1, ERROR] group.",
        "Too many digits [c12345].",
        "Too many letters [abcd1].",
        "Just a number [42].",
        "Footnote-like [^1].",
    ],
)
def test_brackets_that_are_no_claim_ids_are_not_markers(text):
    assert markers_in(text) == ()


def test_ids_of_this_run_count_as_markers_whatever_their_shape():
    assert markers_in("Pool exhausted [claim-7] and [mq-health].", ["claim-7"]) == ("claim-7",)
    assert units("Pool exhausted [claim-7].", ["claim-7"]) == [("sentence", "Pool exhausted [claim-7].", ("claim-7",))]


def test_strip_markers_removes_only_markers():
    assert strip_markers("Pool [ERROR] exhausted [c1, c2] now [c3][c4].") == "Pool [ERROR] exhausted now ."
    assert strip_markers("Pool exhausted [claim-7].", ["claim-7"]) == "Pool exhausted ."


# --- refused markup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("<div>pool exhausted</div>", [(RefusedMarkup.RAW_HTML, "<div>pool exhausted</div>")]),
        ("<script>alert(1)</script>", [(RefusedMarkup.RAW_HTML, "<script>alert(1)</script>")]),
        ("<!-- hidden note -->", [(RefusedMarkup.RAW_HTML, "<!-- hidden note -->")]),
        ("Pool <b>exhausted</b> [c1].", [(RefusedMarkup.RAW_HTML, "<b>"), (RefusedMarkup.RAW_HTML, "</b>")]),
        ("Pool <!-- hidden --> exhausted.", [(RefusedMarkup.RAW_HTML, "<!-- hidden -->")]),
        (
            "Pool <span title=x>full</span>.",
            [(RefusedMarkup.RAW_HTML, "<span title=x>"), (RefusedMarkup.RAW_HTML, "</span>")],
        ),
    ],
)
def test_it_refuses_raw_html_blocks_and_inline_tags(markdown, expected):
    assert refusals(markdown) == expected


@pytest.mark.parametrize(
    ("markdown", "src"),
    [
        ("![graph](http://evil.example/x.png)", "http://evil.example/x.png"),
        ("See ![graph](/api/graph.png) here.", "/api/graph.png"),
        ("![](#top)", "#top"),
    ],
)
def test_it_refuses_images_wherever_they_point(markdown, src):
    assert refusals(markdown) == [(RefusedMarkup.IMAGE, src)]


@pytest.mark.parametrize(
    ("markdown", "href"),
    [
        ("[runbook](http://evil.example/rb)", "http://evil.example/rb"),
        ("[runbook](https://evil.example/rb)", "https://evil.example/rb"),
        ("[runbook](//evil.example/rb)", "//evil.example/rb"),
        ("[runbook](<//evil.example/rb>)", "//evil.example/rb"),
        ("[mail](mailto:ops@example.com)", "mailto:ops@example.com"),
        ("[ftp](ftp://host/file)", "ftp://host/file"),
        ("[relative](api/x)", "api/x"),
        ("<https://evil.example>", "https://evil.example"),
        ("<ops@example.com>", "mailto:ops@example.com"),
        ("See [c1](http://evil.example).", "http://evil.example"),
    ],
)
def test_it_refuses_links_that_leave_this_site(markdown, href):
    assert refusals(markdown) == [(RefusedMarkup.LINK, href)]


@pytest.mark.parametrize(
    "markdown",
    [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "<javascript:alert(1)>",
        "[x](data:text/html;base64,AAAA)",
    ],
)
def test_a_script_or_data_destination_is_never_a_link_and_its_text_stays_in_a_unit(markdown):
    """CommonMark will not make these links (neither here nor on the page), so the reader sees the bracketed
    text itself; the policy must still see that text in a unit rather than lose it."""
    draft = read_draft(markdown)

    assert "<a" not in render_answer(markdown)
    assert [unit.text for unit in draft.units] == [markdown]
    assert all(refusal.rule == RefusedMarkup.LINK for refusal in draft.refusals)


@pytest.mark.parametrize(
    ("markdown", "href"),
    [
        ("See [the trace](/api/diagnosis/42/trace).", "/api/diagnosis/42/trace"),
        ("See [above](#evidence).", "#evidence"),
        ('[trace](/api/x "the trace")', "/api/x"),
    ],
)
def test_it_refuses_links_to_this_site_too(markdown, href):
    """A destination or a title is text no sentence check covers, and an answer has nothing to link to."""
    assert refusals(markdown) == [(RefusedMarkup.LINK, href)]


def test_it_refuses_footnotes():
    rules = {rule for rule, _ in refusals("Pool exhausted[^1].\n\n[^1]: see the runbook")}

    assert RefusedMarkup.FOOTNOTE in rules
    assert refusals("Pool exhausted[^note] here.") == [(RefusedMarkup.FOOTNOTE, "[^note]")]


def test_it_refuses_link_reference_definitions_even_to_local_paths():
    assert refusals("See [the trace][t].\n\n[t]: /api/trace") == [
        (RefusedMarkup.LINK_REFERENCE, "[T]"),
        (RefusedMarkup.LINK, "/api/trace"),
    ]


def test_a_reference_definition_cannot_turn_a_marker_into_a_hidden_link():
    found = refusals("[c1]: http://evil.example\n\nPool exhausted [c1].")

    assert (RefusedMarkup.LINK_REFERENCE, "[C1]") in found
    assert (RefusedMarkup.LINK, "http://evil.example") in found


@pytest.mark.parametrize(
    ("markdown", "content"),
    [
        ("```\nSELECT 1\n```", "SELECT 1"),
        ("```sql\nSELECT 1\n```", "SELECT 1"),
        ("~~~\npool exhausted\n~~~", "pool exhausted"),
        ("Text.\n\n    indented code here\n", "indented code here"),
        ("- item\n\n      code inside an item", "code inside an item"),
        ("> quote\n>\n>     code inside a quote", "code inside a quote"),
    ],
)
def test_it_refuses_fenced_and_indented_code_blocks(markdown, content):
    assert (RefusedMarkup.CODE_BLOCK, content) in refusals(markdown)
    assert all(content not in unit.text for unit in read_draft(markdown).units)


def test_code_spans_are_text_not_code_blocks():
    assert refusals("Run `SELECT 1` [c1].") == []


def test_a_refusal_detail_is_clipped_and_whitespace_normalised():
    [refusal] = read_draft("```\n" + "x  y\n" * 200 + "```").refusals

    assert len(refusal.detail) == 200 and "  " not in refusal.detail and "\n" not in refusal.detail


def test_plain_markdown_is_not_refused():
    markdown = (
        "## Likely root cause\n**payment-service** ran out of connections [c1].\n\n"
        "> Quoted *line* [c1].\n\n- item [c2]\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\nEnd."
    )

    assert refusals(markdown) == []


def test_a_marker_right_after_a_full_stop_closes_that_sentence():
    assert split_sentences("Pool was full.[c1] Next one. [c2] Then.") == [
        "Pool was full. [c1]",
        "Next one. [c2]",
        "Then.",
    ]


def test_a_line_separator_in_a_paragraph_does_not_shift_a_tables_rows():
    """markdown-it counts lines at \\n only; ``str.splitlines`` also breaks at \\u2028."""
    draft = read_draft("para \u2028 x\n\n| a | b | c |\n|---|---|---|\n| x | y | z |\n")

    assert draft.refusals == []


def test_a_row_is_read_with_its_escaped_pipes_and_no_more_cells_than_written():
    draft = read_draft("| a | b |\n|---|---|\n| x \\| q | y |\n| z |\n")

    assert draft.refusals == []
    assert [unit.text for unit in draft.units] == ["a | b", "x | q | y", "z | "]


@pytest.mark.parametrize(
    ("span", "shown"),
    [
        ('"for \\<redacted> (max 100)"', "for <redacted> (max 100)"),
        ('"run `a\\<b` then \\*"', "run `a\\<b` then *"),
        ("`kafka \\<topic>`", "kafka \\<topic>"),
        ("“10\\:10”", "10:10"),
    ],
)
def test_a_quote_shows_its_escaped_characters_alone_and_a_code_span_its_backslashes(span, shown):
    """A quote of a log line's "<redacted>" is written "\\<redacted>" (no HTML tag); the page shows "<"."""
    assert shown_inside(span) == shown
