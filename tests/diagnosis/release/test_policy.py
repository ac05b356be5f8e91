"""The release policy decides whether anyone may read a draft, so every rule must fire on its own case.

A draft is released whole or not at all: every refused markup, phantom marker, citation mismatch,
uncited finding and ungrounded token is a finding, and a cited sentence is grounded only by the claims
it cites itself. The exemptions (connective prose, the verifier's own guidance, a quoted passage its
paragraph cites) exist so that an honest answer is not blocked.
"""

from __future__ import annotations

import pytest

from diagnosis.release.draft import read_draft
from diagnosis.release.policy import (
    FINDING_TEXT_CHARS,
    POLICY_VERSION,
    Finding,
    PolicyResult,
    check_draft,
    claim_texts,
    grounded_guidance,
)


def _claim(claim_id: str, fact: str, *excerpts: str) -> dict:
    evidence = [
        {"tool_name": "query_logs", "raw_path": f"$.records[{i}].message", "matched_text": text}
        for i, text in enumerate(excerpts)
    ]
    return {"claim_id": claim_id, "fact": fact, "verification": "supported", "evidence": evidence}


TIMEOUTS = _claim(
    "c1",
    "payment-service logged HikariPool-1 timeouts",
    "HikariPool-1 - Connection is not available, request timed out after 30000ms",
    "2026-10-14T10:05:03.102000Z",
)
PENDING = _claim("c2", "db_pool_pending of payment-service rose to 44", "db_pool_pending 44.0 at 2026-10-14T10:04:00Z")
RUNBOOK = _claim(
    "c3",
    "The runbook describes pool exhaustion",
    "Pool HikariPool-1 is exhausted. Requests wait 30000ms. Raise maximumPoolSize to 40.",
)
CLAIMS = [TIMEOUTS, PENDING, RUNBOOK]


def check(markdown: str, cited: list[str] | None = None, claims=CLAIMS, **kwargs) -> PolicyResult:
    """``cited`` defaults to the markers the draft uses, so only the rule under test can fire."""
    if cited is None:
        cited = sorted(read_draft(markdown, [claim["claim_id"] for claim in claims]).markers)
    return check_draft(markdown, cited, claims, **kwargs)


def rules(result: PolicyResult) -> list[str]:
    return [finding.rule for finding in result.findings]


# --- honest drafts -----------------------------------------------------------------------------------------

HONEST = """## Likely root cause
**payment-service** ran out of database connections: "HikariPool-1 - Connection is not available, \
request timed out after 30000ms" [c1].

The pending connections of payment-service rose to 44 at 10:04 [c2], before the first timeout at 10:05 [c1].

## Evidence
- [c1] payment-service logged HikariPool-1 timeouts
- [c2] db_pool_pending of payment-service rose to 44

## Recommended actions
- Raise maximumPoolSize to 40 [c3]
"""


def test_it_releases_an_honest_draft():
    result = check(HONEST, ["c1", "c2", "c3"])

    assert result.released and result.findings == []
    assert result.rule == "passed" and result.rule_counts() == {}
    assert POLICY_VERSION == "release-policy-v1"


def test_claim_texts_are_the_fact_and_the_verified_excerpts():
    assert claim_texts(PENDING) == [
        "db_pool_pending of payment-service rose to 44",
        "db_pool_pending 44.0 at 2026-10-14T10:04:00Z",
    ]
    assert claim_texts({"claim_id": "c9"}) == [""]


# --- refused markup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "rule", "sentence"),
    [
        ("Pool exhausted <b>now</b> [c1].", "raw_html", "<b>"),
        ("<div>Pool exhausted</div>\n\nText [c1].", "raw_html", "<div>Pool exhausted</div>"),
        ("Pool exhausted [c1].\n\n![graph](/api/graph.png)", "image", "/api/graph.png"),
        ("Pool exhausted, see [the runbook](https://evil.example/rb) [c1].", "link", "https://evil.example/rb"),
        ("Pool exhausted, see [the runbook](//evil.example/rb) [c1].", "link", "//evil.example/rb"),
        ("Pool exhausted, mail [ops](mailto:ops@example.com) [c1].", "link", "mailto:ops@example.com"),
        ("Pool exhausted[^1] [c1].", "footnote", "[^1]"),
        ("See [the trace][t] [c1].\n\n[t]: /api/trace", "link_reference", "[T]"),
        ("Pool exhausted [c1].\n\n```\nSELECT 1\n```", "code_block", "SELECT 1"),
        ("Pool exhausted [c1].\n\n    SELECT 1", "code_block", "SELECT 1"),
    ],
)
def test_it_refuses_markup_that_cannot_be_tied_to_a_citation(markdown, rule, sentence):
    result = check(markdown, ["c1"])

    assert result.findings[0] == Finding(rule, sentence)
    assert not result.released and result.rule == rule
    assert "citations_mismatch" not in rules(result) and "phantom_marker" not in rules(result)


def test_even_a_link_to_an_anchor_is_refused():
    assert rules(check("Pool exhausted, see [above](#evidence) [c1].", ["c1"])) == ["link"]


# --- markers and citations ---------------------------------------------------------------------------------


def test_a_marker_of_no_allowed_claim_is_a_phantom():
    result = check("Pool exhausted [c9].", ["c9"])

    assert result.findings == [Finding("phantom_marker", "[c9]"), Finding("phantom_marker", "cited_claim_ids: c9")]


def test_a_cited_id_of_no_allowed_claim_is_a_phantom_even_without_its_marker():
    result = check("Pool exhausted [c1].", ["c1", "c9"])

    assert rules(result) == ["phantom_marker", "citations_mismatch"]
    assert result.findings[0] == Finding("phantom_marker", "cited_claim_ids: c9")


@pytest.mark.parametrize(
    ("markdown", "cited"),
    [
        ("Pool exhausted [c1].", ["c1", "c2"]),
        ("Pool exhausted [c1]. Pending rose [c2].", ["c1"]),
        ("Pool exhausted.", ["c1"]),
        ("Pool exhausted [c1].", []),
    ],
)
def test_markers_must_equal_the_cited_claim_ids(markdown, cited):
    result = check(markdown, cited)

    assert rules(result) == ["citations_mismatch"]
    assert "markers" in result.findings[0].sentence and "cited_claim_ids" in result.findings[0].detail


def test_the_order_of_cited_claim_ids_does_not_matter():
    assert check("Pool exhausted [c2]. Requests failed [c1].", ["c1", "c2"]).released
    assert check("Pool exhausted [c2]. Requests failed [c1].", ["c2", "c1"]).released


# --- uncited findings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "detail"),
    [
        ("payment-service ran out of connections.", "payment-service"),
        ("Requests timed out after 30000ms.", "30000ms"),
        ("The first timeout was at 10:05.", "10:05"),
        ('The log says "Connection is not available".', "Connection is not available"),
        ("- payment-service ran out of connections", "payment-service"),
        ("## payment-service ran out of connections", "payment-service"),
        ("| service | state |\n|---|---|\n| payment-service | exhausted |", "payment-service"),
        ("支付服务在 10:05 超时。", "10:05"),
    ],
)
def test_a_unit_with_a_salient_token_and_no_marker_is_an_uncited_finding(markdown, detail):
    result = check(markdown, [])

    assert rules(result) == ["uncited_finding"]
    assert result.findings[0].detail == detail


def test_an_uncited_unit_lists_at_most_five_of_its_tokens():
    result = check("Hosts db-1, db-2, db-3, db-4, db-5 and db-6 failed.", [])

    assert result.findings[0].detail == "db-1, db-2, db-3, db-4, db-5"


@pytest.mark.parametrize(
    "markdown",
    [
        "This is the likely root cause.",
        "The evidence below supports it.",
        "## Likely root cause",
        "## Evidence",
        "- No further information is needed",
        "根据以下证据，这是最可能的根本原因。",
    ],
)
def test_connective_prose_without_salient_tokens_needs_no_marker(markdown):
    assert check(markdown, []).released


def test_known_names_make_a_plain_word_salient():
    assert rules(check("The orders table was locked.", [], known_names=["orders"])) == ["uncited_finding"]
    assert check("The orders table was locked.", []).released


# --- exemptions: guidance and quoted passages --------------------------------------------------------------


def test_a_verbatim_guidance_item_needs_no_marker():
    guidance = ["Raise the pool size of payment-service", "Restart HikariPool-1 of payment-service"]
    markdown = (
        "## Recommended actions\n- Raise the pool size of payment-service\n- Restart *HikariPool-1* of payment-service"
    )

    assert check(markdown, [], guidance=guidance).released


def test_a_guidance_item_may_not_name_what_no_allowed_claim_holds():
    result = check("- Restart db-host-7 of payment-service", [], guidance=["Restart db-host-7 of payment-service"])

    assert result.findings == [Finding("ungrounded_token", "Restart db-host-7 of payment-service", "db-host-7")]


def test_a_guidance_item_is_grounded_by_any_allowed_claim():
    assert check(
        "- Raise maximumPoolSize of payment-service to 40",
        [],
        guidance=["Raise maximumPoolSize of payment-service to 40"],
    ).released


@pytest.mark.parametrize(
    "markdown",
    [
        "- Raise the pool size of payment-service to 80",  # not the verifier's words
        "Raise the pool size of payment-service",  # the verifier's words, but a sentence, not a list item
    ],
)
def test_only_a_verbatim_guidance_list_item_is_exempt(markdown):
    result = check(markdown, [], guidance=["Raise the pool size of payment-service"])

    assert rules(result) == ["uncited_finding"]


def test_an_unmarked_sentence_copying_evidence_its_own_paragraph_cites_needs_no_marker():
    markdown = "> Pool HikariPool-1 is exhausted. Requests wait 30000ms [c3]."

    assert check(markdown, ["c3"]).released


def test_a_quoted_passage_copied_with_different_case_and_emphasis_is_still_a_copy():
    markdown = "> pool *HikariPool-1* is EXHAUSTED. Requests wait 30000ms [c3]."

    assert check(markdown, ["c3"]).released


def test_an_unmarked_copy_cut_from_mid_sentence_is_uncited():
    """A cut may leave out what governs it: evidence saying "No errors on X since 10:05" states no errors."""
    checked = _claim("c9", "order-db was checked", "No errors on order-db since 10:05.")

    result = check(
        "order-db was checked [c9]. Errors on order-db since 10:05.", claims=[checked], known_names=["order-db"]
    )

    assert result.findings == [Finding("uncited_finding", "Errors on order-db since 10:05.", "order-db, 10:05")]


def test_an_unmarked_copy_of_the_line_after_a_heading_is_a_copy():
    """A heading is a title, not a sentence: the line after it begins one."""
    runbook = _claim("c9", "the runbook says what to do", "## Mitigation\nRestart the order-db pool.")

    result = check("The runbook applies [c9]. Restart the order-db pool.", claims=[runbook], known_names=["order-db"])

    assert result.released


@pytest.mark.parametrize(
    ("evidence", "sentence"),
    [
        # A wrapped line does not begin a sentence.
        ("There were no\nerrors on order-db since 10:05.", "Errors on order-db since 10:05."),
        # A list item may sit under what governs it.
        ("Not affected:\n- errors on order-db since 10:05", "Errors on order-db since 10:05."),
        # A copy must end where its sentence does.
        ("Errors on order-db since 10:05 were not seen.", "Errors on order-db since 10:05."),
    ],
)
def test_an_unmarked_copy_that_drops_what_governs_it_is_uncited(evidence, sentence):
    checked = _claim("c9", "order-db was checked", evidence)

    result = check(f"order-db was checked [c9]. {sentence}", claims=[checked], known_names=["order-db"])

    assert rules(result) == ["uncited_finding"]


def test_an_unmarked_sentence_copying_evidence_of_another_paragraph_is_uncited():
    markdown = "> Pool HikariPool-1 is exhausted.\n\nRequests wait 30000ms [c3]."

    result = check(markdown, ["c3"])

    assert result.findings == [Finding("uncited_finding", "Pool HikariPool-1 is exhausted.", "HikariPool-1")]


def test_an_unmarked_sentence_copying_evidence_its_paragraph_does_not_cite_is_uncited():
    markdown = "> Pool HikariPool-1 is exhausted. Pending rose to 44 [c2]."

    assert rules(check(markdown, ["c2"])) == ["uncited_finding"]


def test_an_unmarked_sentence_that_changes_the_copied_evidence_is_uncited():
    markdown = "> Pool HikariPool-2 is exhausted. Requests wait 30000ms [c3]."

    assert rules(check(markdown, ["c3"])) == ["uncited_finding"]


# --- ungrounded tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "detail"),
    [
        ("The database host caught fire at 10:47 [c1].", "10:47"),
        ("Requests timed out after 30 s [c1].", "30"),
        ("Requests timed out after 3000ms [c1].", "3000ms"),
        ("HikariPool-2 timed out [c1].", "HikariPool-2"),
        ("db-host-7 of payment-service timed out [c1].", "db-host-7"),
        ('The log says "Connection refused" [c1].', "Connection refused"),
        ("The pool size was 50 [c1].", "50"),
        ("The pool was exhausted on 2026-10-15 [c1].", "2026-10-15"),
        ("MySQL refused payment-service [c1].", "MySQL"),
    ],
)
def test_a_cited_sentence_may_not_name_what_its_claim_does_not_hold(markdown, detail):
    result = check(markdown, ["c1"])

    assert result.findings == [Finding("ungrounded_token", markdown, detail)]


@pytest.mark.parametrize(
    ("markdown", "detail"),
    [
        # Numbers NFKC leaves alone are numbers to a reader.
        ("db_pool_pending of payment-service rose to ❺⓿⓿ [c2].", "500"),
        # A unit the evidence does not give the number: microseconds are not its milliseconds, mega is no count.
        ("db_pool_pending of payment-service rose to 44 M [c2].", "44"),
        ("payment-service logged HikariPool-1 timeouts after 30000 us [c2].", "HikariPool-1, 30000"),
        # A hyphen that is not ASCII's still joins a service name ("order‐service" is no "order" and "service").
        ("db_pool_pending of order\u2010service rose to 44 [c2].", "order-service"),
    ],
)
def test_a_token_written_in_characters_a_reader_reads_alike_is_still_checked(markdown, detail):
    result = check(markdown, ["c2"])

    assert result.findings == [Finding("ungrounded_token", markdown, detail)]


@pytest.mark.parametrize(
    "markdown",
    [
        "The rооt cаսѕе іѕ а fսӏӏ ԁіѕk.",  # Cyrillic and Armenian letters that look Latin
        "근본 원인은 디스크 부족입니다.",
        "Причина: диск заполнен [c1].",
    ],
)
def test_a_draft_in_a_script_the_checks_do_not_read_is_refused(markdown):
    assert "foreign_script" in rules(check(markdown))


def test_a_word_joined_to_a_number_by_a_hyphen_is_no_unit_of_it():
    claims = [_claim("c1", "3 pods of payment-service in us-east-1 failed health checks")]
    assert check("3 us-east-1 pods of payment-service failed [c1].", claims=claims).findings == []


def test_the_scripts_the_checks_read_are_not_refused():
    draft = "支付服务的连接池耗尽 [c1]. Latency rose to 30µs in café [c1]."
    assert "foreign_script" not in rules(check(draft, ["c1"]))


@pytest.mark.parametrize("mark", ["\u0332", "\u0300", "\u20e3", "\u0f84"])
def test_a_combining_mark_on_a_digit_is_refused(mark):
    """``36\u03320`` shows 360 where the checks read 36 and 0."""
    assert "combining_mark" in rules(check(f"HikariPool-1 had 36{mark}0 requests waiting [c1].", ["c1"]))


def test_an_accent_written_as_a_combining_mark_is_its_letters():
    assert "combining_mark" not in rules(check("Latency rose in cafe\u0301 [c1].", ["c1"]))


def test_a_number_is_not_grounded_by_the_digits_of_a_timestamp():
    # c1 holds 10:05:03; a pool size of 5 or 3 is not in it.
    assert check("The pool size was 5 [c1].", ["c1"]).findings[0].detail == "5"


def test_a_number_is_not_grounded_by_the_digits_of_an_identifier():
    assert check("Only 1 connection was left [c1].", ["c1"]).findings[0].detail == "1"


def test_every_missing_token_is_listed_in_the_detail_up_to_ten():
    markdown = "Hosts " + ", ".join(f"db-{i}" for i in range(12)) + " failed [c1]."

    [finding] = check(markdown, ["c1"]).findings

    assert finding.detail == ", ".join(f"db-{i}" for i in range(10))


@pytest.mark.parametrize(
    "markdown",
    [
        "payment-service timed out after 30000 ms at 10:05 [c1].",
        "payment-service timed out after 30000 milliseconds on 2026-10-14 [c1].",
        "db_pool_pending of payment-service rose to 44.0 [c2].",
        "db_pool_pending rose to 44 at 2026-10-14T10:04:00Z [c2].",
        'payment-service logged "connection is NOT available" [c1].',
        "payment-service 在 10:05 超时 [c1]。",
        "支付服务的 db_pool_pending 在 10:04 升至 44 [c2]。",
        "连接等待超过30000毫秒 [c1]。",
    ],
)
def test_a_cited_sentence_may_restate_what_its_claim_holds(markdown):
    assert check(markdown).released, check(markdown).findings


def test_a_token_is_grounded_only_by_the_claims_that_sentence_cites():
    markdown = "payment-service timed out [c1]. db_pool_pending rose to 44 [c1]. Pending rose [c2]."

    result = check(markdown, ["c1", "c2"])

    assert result.findings == [Finding("ungrounded_token", "db_pool_pending rose to 44 [c1].", "db_pool_pending, 44")]


def test_a_sentence_citing_several_claims_may_draw_on_all_of_them():
    assert check("HikariPool-1 timed out after db_pool_pending rose to 44 [c1, c2].").released
    assert check("HikariPool-1 timed out after db_pool_pending rose to 44 [c1][c2].").released


def test_a_marker_after_the_full_stop_grounds_its_own_sentence_only():
    markdown = "Pending rose to 44. [c2] Requests timed out after 30000ms. [c1]"

    assert check(markdown).released
    assert rules(check("Pending rose to 44. [c1] Requests timed out after 30000ms. [c2]")) == [
        "ungrounded_token",
        "ungrounded_token",
    ]


def test_a_list_item_is_grounded_by_its_own_markers():
    assert check("- [c1] payment-service logged HikariPool-1 timeouts").released
    assert rules(check("- [c2] payment-service logged HikariPool-1 timeouts")) == ["ungrounded_token"]


def test_a_heading_and_a_table_row_are_grounded_by_their_own_markers():
    assert check("## HikariPool-1 timed out [c1]").released
    assert rules(check("## HikariPool-1 timed out [c2]")) == ["ungrounded_token"]
    assert check("| claim | value |\n|---|---|\n| db_pool_pending | 44 [c2] |").released
    assert rules(check("| claim | value |\n|---|---|\n| db_pool_pending | 45 [c2] |")) == ["ungrounded_token"]


def test_a_known_name_must_occur_in_the_cited_claim():
    result = check("The orders table was locked [c1].", known_names=["orders"])

    assert result.findings == [Finding("ungrounded_token", "The orders table was locked [c1].", "orders")]
    assert check("payment-service timed out [c1].", known_names=["payment-service"]).released


@pytest.mark.parametrize(
    ("markdown", "detail"),
    [
        ("根本原因是 db-host-7 在 10:47 宕机 [c1]。", "db-host-7, 10:47"),
        ("支付服务连接池等待数升至 45 [c2]。", "45"),
        ("请求在３０秒后超时 [c1]。", "30"),
    ],
)
def test_chinese_sentences_are_held_to_the_same_tokens(markdown, detail):
    result = check(markdown)

    assert result.findings == [Finding("ungrounded_token", markdown, detail)]


def test_chinese_sentences_split_at_the_ideographic_full_stop():
    markdown = "payment-service 在 10:05 超时 [c1]。db_pool_pending 升至 44 [c1]。"

    assert rules(check(markdown)) == ["ungrounded_token"]
    assert check(markdown).findings[0].sentence == "db_pool_pending 升至 44 [c1]。"


# --- results -----------------------------------------------------------------------------------------------


def test_every_finding_is_returned_and_the_first_decides_the_rule():
    markdown = "Pool <b>full</b> [c9]. The host caught fire at 10:47 [c1]. payment-service failed."

    result = check_draft(markdown, ["c1"], CLAIMS)

    assert rules(result) == [
        "raw_html",
        "raw_html",
        "phantom_marker",
        "citations_mismatch",
        "ungrounded_token",
        "uncited_finding",
    ]
    assert result.rule == "raw_html"
    assert result.rule_counts() == {
        "raw_html": 2,
        "phantom_marker": 1,
        "citations_mismatch": 1,
        "ungrounded_token": 1,
        "uncited_finding": 1,
    }
    assert not result.released


def test_an_empty_result_is_a_release():
    result = PolicyResult()

    assert result.released and result.rule == "passed" and result.rule_counts() == {}


def test_a_finding_as_a_dict_is_clipped():
    finding = Finding("ungrounded_token", "s" * 1000, "d" * 1000)

    assert FINDING_TEXT_CHARS == 300
    assert finding.to_dict() == {"rule": "ungrounded_token", "sentence": "s" * 300, "detail": "d" * 300}
    assert Finding("footnote", "[^1]").to_dict() == {"rule": "footnote", "sentence": "[^1]", "detail": ""}


def test_the_policy_never_edits_the_draft_it_checks():
    markdown = "Pool <b>full</b> [c1]."
    claims = [dict(claim) for claim in CLAIMS]

    check_draft(markdown, ["c1"], claims)

    assert claims == CLAIMS


# --- grounded guidance -------------------------------------------------------------------------------------


def test_grounded_guidance_keeps_items_whose_tokens_some_allowed_claim_holds():
    items = [
        "Raise maximumPoolSize of payment-service to 40",
        "Check db_pool_pending after 10:05",
        "Restart db-host-7",
        "Raise the pool size to 80",
        "Review the deploy",
    ]

    assert grounded_guidance(items, CLAIMS) == [
        "Raise maximumPoolSize of payment-service to 40",
        "Check db_pool_pending after 10:05",
        "Review the deploy",
    ]


def test_grounded_guidance_holds_known_names_to_the_claims_too():
    assert grounded_guidance(["Check the orders table"], CLAIMS, known_names=["orders"]) == []
    assert grounded_guidance(["Check the orders table"], CLAIMS) == ["Check the orders table"]


def test_a_marker_glued_to_the_full_stop_grounds_only_its_own_sentence():
    result = check("Requests timed out after 30000ms.[c2] The pending count rose to 44. [c1]")

    assert rules(result) == ["ungrounded_token", "ungrounded_token"]


# --- what the page shows, not what the source spells (a review's bypasses, 2026-12-02) ------------------


@pytest.mark.parametrize(
    ("markdown", "rule"),
    [
        # A code span against a digit: the page shows "300001".
        ("HikariPool-1 timed out after 30000`1` [c1].", "code_in_word"),
        ("HikariPool-1 timed out after `3`0000ms [c1].", "code_in_word"),
        ("HikariPool-1 timed out after ``30000``1 ms [c1].", "code_in_word"),  # a double-backtick span
        ("HikariPool-1 timed out after ５`0` ms [c1].", "code_in_word"),  # a full-width digit
        ('HikariPool-1 logged "timed out after `3000`0ms" [c1].', "code_in_word"),  # inside quotes too
        # ... or against a sign or a mark, or across emphasis: the page shows -36, 10.36, 10:36, 1036.
        ("HikariPool-1 had waiting=`-`36 [c1].", "code_in_word"),
        ("HikariPool-1 timed out after 10.`36` s [c1].", "code_in_word"),
        ("HikariPool-1 timed out at 10:`36` [c1].", "code_in_word"),
        ("HikariPool-1 timed out after `10`.5 s [c1].", "code_in_word"),
        ("HikariPool-1 had **10**`36` waiting [c1].", "code_in_word"),
        ("HikariPool-1 timed out after 10.**36** s [c1].", "emphasis_in_word"),
        ("HikariPool-1 had *10***36** waiting [c1].", "emphasis_in_word"),
        ("HikariPool-1 had `36`% waiting [c1].", "code_in_word"),
        ("HikariPool-1 had active=`1`/`10` [c1].", "code_in_word"),
        # A list from 500: the item shows a number it must account for as if written in it.
        ("db_pool_pending of payment-service rose [c2]:\n\n500. pending", "uncited_finding"),
        ("db_pool_pending of payment-service rose [c2]:\n\n43. pending [c2]\n44. waiting [c2]", "ungrounded_token"),
        ("db_pool_pending of payment-service rose [c2]:\n\n500.", "uncited_finding"),
        ("db_pool_pending of payment-service rose [c2]:\n\n500. 7. pending [c2]", "uncited_finding"),
        # Invisible characters other than format ones: "10\u034f36" shows as 1036.
        ("payment-service waited 10\u034f36 ms [c1].", "ungrounded_token"),
        # Other scripts' digits are numbers: ٤٤٠ is 440, ५०० is 500.
        ("db_pool_pending of payment-service rose to ٤٤٠ [c2].", "ungrounded_token"),
        ("The pool maximum is ५०० connections.", "uncited_finding"),
        # A multiplier is part of the number: 44 K is not the 44 of the evidence.
        ("db_pool_pending of payment-service rose to 44 K [c2].", "ungrounded_token"),
        ("db_pool_pending of payment-service rose to 44 thousand [c2].", "ungrounded_token"),
        ("db_pool_pending 升至 44万 [c2]。", "ungrounded_token"),
        # Digit groups apart by a thin or no-break space are one number: 10 104 is not 10 and 104.
        ("The pool had 10\u2009104 waiting connections [c4].", "ungrounded_token"),
        ("The pool had 10\u202f104 waiting connections [c4].", "ungrounded_token"),
        ("The pool had 10\u00a0104 waiting connections [c4].", "ungrounded_token"),
        # A superscript is not a digit of the number before it: 10⁴ is not the 104 of "waiting=104".
        ("The pool had 10⁴ waiting connections [c4].", "ungrounded_token"),
        # A row's cells past its header's: the page drops them unread, the markdown as written shows them.
        (
            "| payment-service [c1] |\n|---|\n| timed out after 30000ms [c1] | db-host-9 crashed after 5000 errors |",
            "table_cells",
        ),
        ("> | a [c1] | b |\n> |---|---|\n> | x [c1] | y | 5000 errors |", "table_cells"),
        # In a list item: its marker is no cell of the header.
        ("- | a [c1] | b |\n  |---|---|\n  | x [c1] | y | 5000 errors |", "table_cells"),
    ],
)
def test_what_the_page_shows_is_what_is_checked(markdown, rule):
    waiting = _claim("c4", "the pool had waiting connections", "active=10/10, waiting=104")

    result = check(markdown, claims=[*CLAIMS, waiting], known_names={"payment-service", "db_pool_pending"})

    assert rule in rules(result) and not result.released


def test_markup_of_the_evidence_does_not_join_its_numbers():
    """A runbook's ``2*20`` (two pools of 20) grounds neither 220 nor anything joined."""
    runbook = _claim("k1", "the runbook gives the pool size", "Set maximumPoolSize to 2*20 on payment-service.")

    joined = check("The runbook sets maximumPoolSize to 220 on payment-service [k1].", claims=[runbook])
    apart = check("The runbook sets maximumPoolSize to 2*20 on payment-service [k1].", claims=[runbook])

    assert rules(joined) == ["ungrounded_token"]
    assert apart.released


def test_honest_chinese_around_a_code_span_and_numbered_lists_are_released():
    markdown = (
        "把`maximumPoolSize`调到 40 [c3]。\n\n1. HikariPool-1 timed out [c1]\n\nThen:\n\n"
        "2. Several `HikariPool-1`s timed out [c1]"  # a list going on from the one before, a plural of code
    )
    runbook = _claim("k1", "the runbook's steps", "3. Roll back the deploy.\n4. Raise maximumPoolSize to 40.")
    quoted = "The runbook [k1]:\n\n3. Roll back the deploy. [k1]\n4. Raise maximumPoolSize to 40. [k1]"

    assert check(markdown).released
    assert check(quoted, claims=[runbook]).released


def test_a_multiplied_number_of_the_evidence_is_not_its_bare_value():
    rate = _claim("c5", "payment-service served requests", "payment-service rps=44k at 10:04")

    assert rules(check("payment-service served 44 requests a second [c5].", claims=[rate])) == ["ungrounded_token"]
    assert check("payment-service served 44k requests a second [c5].", claims=[rate]).released


def test_grounded_guidance_leaves_out_an_item_that_states_a_cause_the_evidence_does_not():
    items = [
        "The root cause is a full disk on the database host after the deploy; replace the disk",
        "Restart the pods because the pool leaks connections",
        "根本原因是部署配置变更，请回滚",
        "Raise maximumPoolSize to 40",
        "Pool HikariPool-1 is exhausted. Requests wait 30000ms. Raise maximumPoolSize to 40.",  # the runbook's words
    ]

    assert grounded_guidance(items, CLAIMS) == items[3:]


FORBIDDING = _claim(
    "c9",
    "The runbook says not to raise connectionTimeout",
    "Do not raise `connectionTimeout`: it turns fast failures into long hangs and makes the callers retry more.",
)


NEVER_PURGE = _claim(
    "c8",
    "The runbook forbids purging the queue",
    "Never purge the orders queue, even when consumers are not responding.",
)


@pytest.mark.parametrize(
    "markdown",
    ['The runbook says to "raise `connectionTimeout`" [c9].', "运行手册建议「raise `connectionTimeout`」[c9]。"],
)
def test_a_quote_that_leaves_out_the_negation_of_its_clause_is_refused(markdown):
    result = check(markdown, ["c9"], claims=[*CLAIMS, FORBIDDING])

    assert rules(result) == ["quote_drops_negation"]


@pytest.mark.parametrize(
    "markdown",
    [
        'The runbook says not to "raise `connectionTimeout`" [c9].',
        'The runbook warns: "Do not raise `connectionTimeout`" [c9].',
        "运行手册说不要「raise `connectionTimeout`」[c9]。",
        "`connectionTimeout` should not be raised [c9].",  # the negation in the quote's clause, after it
        "`connectionTimeout` 不要调大 [c9]。",
    ],
)
def test_a_quote_said_with_its_negation_is_released(markdown):
    assert check(markdown, ["c9"], claims=[*CLAIMS, FORBIDDING]).released


@pytest.mark.parametrize(
    "quote",
    [
        "purge the orders queue\\, even when consumers are not responding",
        "purge the orders queue, even when consumers are not responding\\.",
    ],
)
def test_an_escape_inside_a_quote_does_not_hide_where_it_stands(quote):
    """Read as the page shows it, the quote was looked for in the sentence without its backslash: not found,
    it was taken to stand at the start, and its own "not" to follow it, so the reversal was released."""
    markdown = f'The runbook says to "{quote}" [c8].'

    assert rules(check(markdown, ["c8"], claims=[*CLAIMS, NEVER_PURGE])) == ["quote_drops_negation"]


def test_a_quote_with_an_escape_said_with_its_negation_is_released():
    markdown = 'The runbook says never to "purge the orders queue\\, even when consumers are not responding" [c8].'

    assert check(markdown, ["c8"], claims=[*CLAIMS, NEVER_PURGE]).released


@pytest.mark.parametrize(
    "quote",
    [
        "raise pool to &#50;0 now",  # shows "20", a number no check read
        "&#x202E;kcab llor",  # a bidirectional override turns the rest of the line round
        "R&amp;D approved it",
    ],
)
def test_a_character_reference_is_refused_inside_a_quote_too(quote):
    """Outside a quote it was refused; inside one, released and shown as the character it stands for."""
    evidence = _claim("c1", "ledger-api logged it", quote)

    assert rules(check(f'ledger-api logged "{quote}" [c1].', claims=[evidence])) == ["escape"]


def test_a_character_reference_escaped_or_in_a_code_span_shows_as_written():
    evidence = _claim("c1", "ledger-api logged it", "raise pool to &#50;0 now")

    assert check('ledger-api logged "raise pool to \\&#50;0 now" [c1].', claims=[evidence]).released
    assert check("ledger-api logged `raise pool to &#50;0 now` [c1].", claims=[evidence]).released


def _said(text: str) -> dict:
    return _claim("c1", text, text)


@pytest.mark.parametrize(
    ("evidence", "draft"),
    [
        ("订单服务在14点30分开始超时", "订单服务的连接池上限为30 [c1]。"),  # a Chinese clock time's minute
        ("2026年11月12日订单服务开始超时", "订单服务重试了12次 [c1]。"),  # a Chinese date's day
        ("订单服务于14时30分05秒开始超时", "订单服务的超时时间为5秒 [c1]。"),
        ("扣减后库存变为3", "扣减后库存变为-3，出现超卖 [c1]。"),  # a sign the evidence does not have
        ("pod réplica5 redémarré", "Le pod a redémarré 5 fois [c1]."),  # a digit inside an accented word
        ("QPS达到1万5", "QPS 达到 5 [c1]。"),  # the rest of a spoken 15 000
        ("QPS超过1000时触发限流", "重试了10次 [c1]。"),
        ("下午2点30开始超时", "连接池上限为30 [c1]。"),
        ("两点30分开始超时", "重试了30次 [c1]。"),
        ("訂單服務在14點30分開始逾時", "重试了30次 [c1]。"),
        ("流量为3万5", "流量为3 [c1]。"),
        ("请求量为3千万", "请求量为3千 [c1]。"),
        ("有5百个请求", "有5个请求 [c1]。"),
        ("故障发生在11月12开始", "重试了12次 [c1]。"),
        ("2026年11月的发布", "重试了11次 [c1]。"),
        ("节点-3宕机", "余额为-3 [c1]。"),  # a node's name
        ("部署在华东-1", "余额为-1 [c1]。"),
        ("重试三-5次", "重试了-5次 [c1]。"),
        ("重试3-5次", "重试了3次 [c1]。"),  # a range
        ("增长率为负3%", "增长率为3% [c1]。"),  # a negative said in words
        ("气温零下3", "气温为3 [c1]。"),
        ("温度为3", "温度：-3 [c1]。"),  # a sentence's dash after a colon is a sign
        ("库存变为3", "库存变为负3 [c1]。"),
        ("流量为一万5千", "流量为5千 [c1]。"),  # a spoken number headed by a Chinese numeral
        ("请求量为3千萬", "请求量为3千 [c1]。"),  # a traditional multiplier after the unit
        ("重试了1万零5次", "重试了5次 [c1]。"),
        ("重试次数为3，100个请求超时", "有3100个请求超时 [c1]。"),  # a Chinese comma is no thousands separator
        ("重试3〜5次", "重试了3次 [c1]。"),
        ("定于周3。", "重试了3次 [c1]。"),
        ("耗时2秒500毫秒", "耗时500毫秒 [c1]。"),  # part of a compound duration
        ("耗时1小时30分钟", "耗时30分钟 [c1]。"),  # the 时 of 小时 introduces no amount
        ("Failed requests: ３，１００", "100 requests failed [c1]."),  # a full-width 3,100
        ("失败请求共3次，超时请求共100次", "失败请求共３，１００次 [c1]。"),
        ("从库延迟升高，时钟偏差 -2 s", "从库-2 延迟升高 [c1]。"),  # a name's dash: 2 and -2 must both be grounded
        # No sign can be told from a dash after a Chinese word in evidence: an honest copy is refused too.
        ("扣减后库存变为-3", "扣减后库存变为-3 [c1]。"),
    ],
)
def test_a_number_chinese_evidence_does_not_state_is_refused(evidence, draft):
    """Numbers written straight after a Chinese word are read, and nothing else: a review found a clock time's
    minutes, a date's day, a flipped sign and the 5 of "1万5" grounding a draft's number."""
    assert rules(check(draft, ["c1"], claims=[_said(evidence)])) == ["ungrounded_token"]


@pytest.mark.parametrize(
    ("evidence", "draft"),
    [
        ("菜单缓存过期时间调整为5分钟", "菜单缓存过期时间调整为 5 分钟 [c1]。"),
        ("连接池使用率超过80%", "连接池使用率超过 80% [c1]。"),
        ("重试了5次后放弃", "重试了 5 次后放弃 [c1]。"),
        ("查询耗时5秒", "查询耗时 5 秒 [c1]。"),
        ("订单服务重试5次后放弃", "订单服务重试5次后放弃 [c1]。"),  # the same words before it
        ("变更时间 2026年11月12日 02:58", "变更发生在 2026-11-12 02:58 [c1]。"),
    ],
)
def test_a_number_written_straight_after_a_chinese_word_is_the_evidences(evidence, draft):
    assert check(draft, ["c1"], claims=[_said(evidence)]).released


@pytest.mark.parametrize(
    "draft",
    [
        'With the pod "not\\_ready", the runbook says to "purge the orders queue" [c8].',
        'The runbook says to "purge the orders queue" on "no\\_data" alerts [c8].',
    ],
)
def test_an_escaped_underscore_makes_no_negation(draft):
    """Read as written, "not\\_ready" held a "not" before the quote, which then seemed to keep its negation:
    the page shows "not_ready", and the reversal of "Never purge" was released."""
    evidence = _said("Pod state not_ready; on no_data alerts too. Never purge the orders queue.")
    assert "quote_drops_negation" in rules(check(draft.replace("[c8]", "[c1]"), ["c1"], claims=[evidence]))
