"""Evidence written into an answer as text: what would open markup is escaped, inside quotation marks."""

from __future__ import annotations

import pytest

from diagnosis.release.draft import link_text
from diagnosis.release.quoting import as_text, in_quotation_marks


@pytest.mark.parametrize(
    ("evidence", "written"),
    [
        ("see the [procedure](https://wiki/p)", "see the \\[procedure](https://wiki/p)"),
        ("![chart](https://g/p.png) [^1] [ref][x]", "!\\[chart](https://g/p.png) [^1] [ref][x]"),
        # A "[" no "](" follows opens nothing, and stays; one before a link's "](" may be that link's.
        ("arr[0][1] and batch [[1,2],[3]] [open", "arr[0][1] and batch [[1,2],[3]] [open"),
        ("[pool-1] then [a [b] c](u)", "\\[pool-1] then \\[a \\[b] c](u)"),
        # A character reference shows a character no check read: a bidi override, a digit.
        (
            "raise to &#50;0 &#x202E;.noitcudorp &amp; R&D, a & b",
            "raise to \\&#50;0 \\&#x202E;.noitcudorp \\&amp; R&D, a & b",
        ),
        ("for <redacted> and <https://x.example>", "for \\<redacted> and \\<https://x.example>"),
        ("a < b and List<Map<K, V>>", "a < b and List<Map<K, V>>"),  # opens nothing
        ("`--topic <topic> [x]` stays code", "`--topic <topic> [x]` stays code"),
        ("https:\\/\\/pay.example", "https:\\\\/\\\\/pay.example"),
        ("\\\u200b[notes](https://evil.example)", "\\\\\\[notes](https://evil.example)"),  # read as it is seen
    ],
)
def test_it_escapes_what_would_open_markup_outside_code(evidence, written):
    assert as_text(evidence) == written


def test_quoted_only_escapes_inside_the_quotes_of_a_fact():
    fact = 'Knowledge base "Runbook [x]" says: "see [p](https://wiki/p)" [c1]'

    assert as_text(fact, quoted_only=True) == 'Knowledge base "Runbook \\[x]" says: "see \\[p](https://wiki/p)" [c1]'


@pytest.mark.parametrize(
    ("text", "language", "quoted"),
    [
        ("plain", "en", '"plain"'),
        ("plain", "zh", "“plain”"),
        ('level=error msg="timeout"', "en", '“level=error msg="timeout"”'),
        ("点击“确认”后", "zh", "「点击“确认”后」"),
        ("“a” and 「b」", "zh", "『“a” and 「b」』"),
        ("“a”「b」『c』＂d＂", "zh", '"“a”「b」『c』＂d＂"'),
        # The policy's '"' quote never spans a marker's shape: "[ab12]" would end it.
        ("see [ab12] now", "en", "“see [ab12] now”"),
    ],
)
def test_it_quotes_in_marks_the_policy_reads_as_one_quote_around_the_text(text, language, quoted):
    assert in_quotation_marks(text, language) == quoted


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("see the [rollback procedure](https://wiki/r) first", "see the rollback procedure (https://wiki/r) first"),
        ("[a](<https://x/y z> \"T\") and ![alt](p.png 't')", "a (https://x/y z \"T\") and alt (p.png 't')"),
        ('[during peak](https://w/r "only after failover")', 'during peak (https://w/r "only after failover")'),
        ("[empty]() here", "empty here"),
        ("a [bracket] alone, [ref][x], [^1]", "a [bracket] alone, [ref][x], [^1]"),
    ],
)
def test_a_link_is_written_out_as_its_words_and_where_it_points(text, read):
    assert link_text(text) == read
