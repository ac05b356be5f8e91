"""The offline SemanticGuard judges a draft only by the words of the claims it cites, and fails closed.

It sees the draft and the allowed claims and nothing else, like a hosted guard would. An honest draft
(quotes, report language, headings, a runbook action copied word for word) is released; a sentence that
says what its claims do not - invented words under a real marker, a flipped negation, a causal link no
claim states, a finding without a marker, an invented quote, in English or Chinese - is blocked with a
reason. Its reply always fits the contract and is the same for the same task.
"""

from __future__ import annotations

import json

import pytest

from diagnosis.contracts import SemanticGuardOutput, parse_output
from diagnosis.nodes.messages import semantic_guard_messages
from diagnosis.nodes.semantic_guard import guard_claims
from diagnosis.providers.base import Role, Usage
from diagnosis.providers.offline import composer
from diagnosis.providers.offline.provider import OFFLINE_MODEL_NAME, OfflineChatModel
from diagnosis.providers.offline.semantic_guard import MAX_UNSUPPORTED, review
from diagnosis.release.causes import CAUSAL, states_a_cause, without_root_cause

TIMEOUTS = {
    "claim_id": "c1",
    "fact": "payment-service logged HikariPool-1 timeouts",
    "excerpts": ["HikariPool-1 - Connection is not available, request timed out after 30000ms"],
}
PENDING = {
    "claim_id": "c2",
    "fact": "db_pool_pending of payment-service rose to 44",
    "excerpts": ["db_pool_pending 44.0 at 2026-10-14T10:04:00Z"],
}
RUNBOOK = {
    "claim_id": "c3",
    "fact": "The runbook describes pool exhaustion",
    "excerpts": [
        "Runbook: payment-db pool > Actions",
        "Raise maximumPoolSize of payment-service and restart the pods.",
    ],
}
POSTMORTEM = {
    "claim_id": "c4",
    "fact": "The postmortem says the deploy caused pool exhaustion",
    "excerpts": ["The 14:00 deploy caused pool exhaustion because the pool size was lowered."],
}
CHINESE = {"claim_id": "k1", "fact": "支付服务连接池耗尽", "excerpts": ["连接池耗尽，请求超时"]}
CLAIMS = [TIMEOUTS, PENDING, RUNBOOK, POSTMORTEM, CHINESE]


def guard(draft: str, claims=CLAIMS) -> dict:
    """The guard's reply, checked against the contract the node parses it with."""
    reply = review({"task": "semantic_guard", "draft": draft, "allowed_claims": claims})
    assert parse_output(json.dumps(reply, ensure_ascii=False), SemanticGuardOutput) == reply
    return reply


def blocked(draft: str, claims=CLAIMS) -> list[dict]:
    reply = guard(draft, claims)
    assert reply["verdict"] == "BLOCK", reply
    return reply["unsupported"]


# --- honest drafts are released ----------------------------------------------------------------------------

HONEST = """## Likely root cause
**payment-service** logged "HikariPool-1 - Connection is not available, request timed out after 30000ms" [c1].

The earliest verified signal: db_pool_pending of payment-service rose to 44 [c2].

## Evidence
- [c1] payment-service logged HikariPool-1 timeouts
- [c2] db_pool_pending of payment-service rose to 44

## Recommended actions
- Raise maximumPoolSize of payment-service and restart the pods.
"""


@pytest.mark.parametrize(
    "draft",
    [
        HONEST,
        'payment-service logged "HikariPool-1 - Connection is not available, request timed out after 30000ms" [c1].',
        'HikariPool-1 said "Connection is **not** available" [c1].',
        "payment-service logged HikariPool-1 timeouts [c1].",
        "Connection is not available [c1].",
        "Request timed out after 30000ms [c1].",
        "The pool was exhausted [c4].",
        "- The pool size was lowered [c4]",
        "## Likely root cause",
        "## Evidence",
        # A sentence naming the root cause refers to what its paragraph cites.
        "payment-service logged HikariPool-1 timeouts [c1]. This is the likely root cause.",
        "No root cause could be established from the verified evidence.",
        "It is likely that this is the root cause [c1].",
        "The evidence below supports this conclusion, but the confidence is low.",
        "## Recommended actions\n\n- Raise maximumPoolSize of payment-service and restart the pods.",
        "Check the logs of payment-service.",
        "Check the pods.",
        "| claim | fact |\n|---|---|\n| c1 | payment-service logged HikariPool-1 timeouts [c1] |",
        "> The 14:00 deploy caused pool exhaustion because the pool size was lowered. [c4]",
        "支付服务连接池耗尽 [k1]。",
        "根本原因可能是连接池耗尽，请求超时 [k1]。",
        "",
    ],
)
def test_it_releases_an_honest_draft(draft):
    assert guard(draft) == {"verdict": "RELEASE", "unsupported": []}


@pytest.mark.parametrize(
    "draft",
    [
        "The root cause was a configuration change during the deploy.",
        "Root cause confirmed: configuration change.",
        "根本原因是部署配置变更。",
    ],
)
def test_it_blocks_a_root_cause_named_in_a_paragraph_that_cites_nothing(draft):
    (finding,) = blocked(draft)
    assert finding["reason"] == "names a root cause without citing a claim"


@pytest.mark.parametrize(
    "draft",
    ["db_pool_pending of payment-service fell to 44 [c2].", "payment-service 的 db_pool_pending 下降至 44 [c2]。"],
)
def test_it_blocks_a_cited_sentence_that_turns_round_the_direction_of_its_evidence(draft):
    (finding,) = blocked(draft)
    assert finding["reason"] == "turns round the direction the cited evidence states"


def test_it_leaves_numbers_times_and_identifiers_to_the_release_policy():
    """Exact token grounding is the policy's job; the guard compares the words a sentence chose."""
    assert guard("db_pool_pending of payment-service rose to 45 at 10:47 on db-host-7 [c2].")["verdict"] == "RELEASE"


# --- invented words under a valid citation -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("draft", "words"),
    [
        ("The database host caught fire [c1].", ["caught", "fire", "host"]),
        ("The pool was exhausted [c1].", ["exhaust", "pool"]),
        ("Connections are plentiful [c1].", ["plentiful"]),
        ("# The database melted [c1]", ["melt"]),
        ("| claim | fact |\n|---|---|\n| c1 | payment-service database melted [c1] |", ["melt"]),
        ("- [c2] payment-service logged HikariPool-1 timeouts", ["timeout"]),
    ],
)
def test_it_blocks_words_the_cited_claims_do_not_say(draft, words):
    [finding] = blocked(draft)

    assert finding["reason"].startswith("says what the cited claims do not: ")
    assert all(word in finding["reason"] for word in words), finding["reason"]


def test_a_real_marker_does_not_vouch_for_words_of_another_claim():
    assert guard("The pool was exhausted [c4].")["verdict"] == "RELEASE"
    assert blocked("The pool was exhausted [c2].")[0]["reason"].startswith("says what the cited claims do not")


def test_it_lists_each_offending_sentence_word_for_word_and_only_those():
    draft = "payment-service logged HikariPool-1 timeouts [c1]. The database host caught fire [c1]. Check the logs."

    assert [finding["sentence"] for finding in blocked(draft)] == ["The database host caught fire [c1]."]


# --- negations ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "draft",
    [
        "db_pool_pending of payment-service did not rise [c2].",
        "db_pool_pending of payment-service never rose [c2].",
        "db_pool_pending of payment-service rose without a pause [c2].",
        "The pool was not exhausted [c4].",
        "支付服务连接池没有耗尽 [k1]。",
        "支付服务连接池未耗尽 [k1]。",
    ],
)
def test_it_blocks_a_negation_the_cited_evidence_does_not_state(draft):
    [finding] = blocked(draft)

    assert finding["sentence"] == draft and finding["reason"].startswith(
        "adds a negation the cited evidence does not state: "
    )


@pytest.mark.parametrize(
    "draft", ["payment-service connections are available [c1].", "HikariPool-1 connection is available [c1]."]
)
def test_it_blocks_a_sentence_that_drops_a_negation_of_its_evidence(draft):
    [finding] = blocked(draft)

    assert finding["sentence"] == draft and finding["reason"].startswith("drops a negation the cited evidence states: ")


# --- cause and effect --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "draft",
    [
        "payment-service logged timeouts because of the pool [c1].",
        "payment-service logged timeouts, which led to pool exhaustion [c1].",
        "Request timed out after 30000ms, due to the pool [c1].",
        "db_pool_pending of payment-service rose, therefore requests timed out [c1, c2].",
        "db_pool_pending of payment-service rose because of the deploy [c2].",
        "连接池耗尽导致请求超时 [k1]。",
        "由于连接池耗尽，请求超时 [k1]。",
        # Causal words that are also report language elsewhere ("a change made shortly before", "root cause").
        "HikariPool-1 made payment-service requests time out [c1].",
        "HikariPool-1 was the cause of payment-service timeouts [c1].",
        "连接池耗尽使得请求超时 [k1]。",
    ],
)
def test_it_blocks_a_causal_link_no_cited_claim_states(draft):
    [finding] = blocked(draft)

    assert finding == {"sentence": draft, "reason": "claims a cause-and-effect link no cited fact states"}


@pytest.mark.parametrize(
    "draft",
    [
        "The deploy caused pool exhaustion [c4].",
        "The deploy caused pool exhaustion because the pool size was lowered [c4].",
        "db_pool_pending of payment-service rose because of the deploy [c2, c4].",
    ],
)
def test_it_allows_a_causal_link_its_cited_evidence_states(draft):
    assert guard(draft)["verdict"] == "RELEASE"


def test_the_words_root_cause_are_no_causal_link():
    assert guard("The likely root cause: payment-service logged HikariPool-1 timeouts [c1].")["verdict"] == "RELEASE"
    assert guard("可能的根本原因是连接池耗尽 [k1]。")["verdict"] == "RELEASE"
    assert guard("The likely root cause is a change made shortly before the timeouts [c1].")["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    ("text", "causal"),
    [
        ("A change was made to payment-service", False),
        ("The change to payment-service was made.", False),
        ("payment-service changes made at 10:04", False),
        ("a change made shortly before the failure", False),
        ("HikariPool-1 made payment-service requests time out", True),
        ("payment-service was made unavailable by HikariPool-1 exhaustion", True),
        ("The deploy makes the pool too small", True),
    ],
)
def test_made_is_causal_only_as_a_causative(text, causal):
    assert bool(CAUSAL.search(text)) is causal


@pytest.mark.parametrize(
    "heading", ["Root cause of the alert", "Root-cause of the alert", "Root causes", "根本原因", "根因"]
)
def test_the_phrase_root_cause_is_no_cause_link_however_it_is_spelled(heading):
    assert not CAUSAL.search(without_root_cause(heading))
    assert CAUSAL.search(without_root_cause(f"{heading}: a full disk caused the timeouts"))


def test_a_runbook_line_copied_without_a_marker_is_released():
    claims = [
        {
            "claim_id": "c1",
            "fact": "the runbook lists the steps",
            "excerpts": ["- Drain the payment queue\n- Restart the consumers"],
        }
    ]

    assert guard("- Restart the consumers", claims)["verdict"] == "RELEASE"


def test_a_number_in_words_is_no_report_language():
    """The release policy grounds digits; a count in words is the guard's to catch."""
    [finding] = blocked("payment-service requests timed out three times [c1].")

    assert finding["reason"] == "says what the cited claims do not: thre"


def test_an_uncited_copy_must_start_where_a_sentence_of_the_evidence_does():
    """A cut from mid-sentence may leave out what governs it: "No errors ..." copied as "Errors ..."."""
    excerpt = "Checked. No connection errors on order-db replicas since 10:05."
    claims = [{"claim_id": "c1", "fact": "order-db was checked", "excerpts": [excerpt]}]

    [finding] = blocked("order-db was checked [c1]. Connection errors on order-db replicas since 10:05.", claims)

    assert finding["sentence"] == "Connection errors on order-db replicas since 10:05."
    assert finding["reason"].startswith("states a finding without citing a claim: ")
    assert guard("order-db was checked [c1]. No connection errors on order-db replicas since 10:05.", claims)[
        "verdict"
    ] == ("RELEASE")


def test_an_uncited_causal_link_is_blocked_unless_copied_word_for_word():
    [finding] = blocked("The deploy caused pool exhaustion.")

    assert finding["reason"] == "states a cause-and-effect link without citing a claim"
    assert guard("The 14:00 deploy caused pool exhaustion because the pool size was lowered.")["verdict"] == "RELEASE"


# --- uncited findings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "draft",
    [
        "The pool timed out.",
        "payment-service rose and timed out.",
        "- Requests timed out after 30000ms and the pool size was lowered",
    ],
)
def test_it_blocks_an_uncited_sentence_with_two_or_more_evidence_words(draft):
    [finding] = blocked(draft)

    assert finding["reason"].startswith("states a finding without citing a claim: ")


@pytest.mark.parametrize("draft", ["Check the pods.", "Investigate the pool.", "db_pool_pending rose."])
def test_an_uncited_sentence_may_name_one_thing_the_evidence_mentions(draft):
    assert guard(draft)["verdict"] == "RELEASE"


def test_an_uncited_sentence_may_not_use_words_no_claim_holds():
    [finding] = blocked("Reboot the cluster.")

    assert finding["reason"].startswith("states something no allowed claim supports: ")
    assert "cluster" in finding["reason"] and "reboot" in finding["reason"]


@pytest.mark.parametrize(
    "item",
    [
        "No verified error logs show the failure; check the ERROR and WARN logs of payment-service",
        "No verified metric of payment-service shows a shift at the onset",
        "No runbook or postmortem passage was verified for the errors of payment-service",
        "No deploy or configuration change near the onset was verified in the business data",
    ],
)
def test_the_verifiers_gaps_and_missing_information_are_report_language(item):
    """The composer shows these uncited under "Uncertainty"; they state what is missing, not a finding."""
    assert guard(f"## Uncertainty\nThis conclusion is not fully confirmed:\n- {item}")["verdict"] == "RELEASE"


def test_a_recommended_action_copied_from_an_excerpt_needs_no_marker():
    assert guard("- Raise maximumPoolSize of payment-service and restart the pods.")["verdict"] == "RELEASE"
    assert guard("Raise maximumPoolSize of payment-service and restart the pods.")["verdict"] == "RELEASE"
    assert guard("- Raise maximumPoolSize of payment-service and reboot the nodes.")["verdict"] == "BLOCK"


# --- quotes ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "draft",
    [
        'payment-service logged "database on fire" [c1].',
        'HikariPool-1 said "Connection is available" [c1].',
        'HikariPool-1 said "Connection is not available" [c2].',
        "The log says `pool exploded` [c1].",
    ],
)
def test_it_blocks_a_quote_the_cited_claims_do_not_contain(draft):
    [finding] = blocked(draft)

    assert finding["reason"].startswith("quotes text the cited claims do not contain: ")


def test_a_quote_of_the_cited_evidence_may_differ_in_case_spacing_and_emphasis():
    assert guard('HikariPool-1 said "connection IS   *not* available" [c1].')["verdict"] == "RELEASE"


# --- Chinese -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("draft", "word"),
    [
        ("根本原因是数据库主机着火了 [c1]", "着火"),
        ("根本原因是数据库主机着火了 [k1]。", "着火"),
        ("支付服务连接池耗尽，磁盘已满 [k1]。", "磁盘"),
    ],
)
def test_it_blocks_chinese_inventions_under_a_valid_citation(draft, word):
    [finding] = blocked(draft)

    assert finding["reason"].startswith("says what the cited claims do not: ") and word in finding["reason"]


def test_it_blocks_an_uncited_chinese_finding():
    [finding] = blocked("请求超时，连接池耗尽。")

    assert finding["reason"].startswith("states a finding without citing a claim")


# --- contract and determinism ------------------------------------------------------------------------------


def test_it_reports_at_most_the_contracts_number_of_sentences():
    draft = " ".join(f"The database host number {i} caught fire [c1]." for i in range(MAX_UNSUPPORTED + 10))

    reply = guard(draft)

    assert reply["verdict"] == "BLOCK" and len(reply["unsupported"]) == MAX_UNSUPPORTED == 40


def test_it_clips_a_long_sentence_to_the_contract():
    draft = "- The database host caught fire " + "and burned " * 400 + "[c1]"

    [finding] = blocked(draft)

    assert len(finding["sentence"]) == 2000


@pytest.mark.parametrize(
    "task",
    [
        {"task": "semantic_guard"},
        {"task": "semantic_guard", "draft": None, "allowed_claims": None},
        {"task": "semantic_guard", "draft": "The database host caught fire [c1].", "allowed_claims": []},
        {"task": "semantic_guard", "draft": "Pool [c1].", "allowed_claims": ["c1", {"fact": "x"}, {"claim_id": ""}]},
    ],
)
def test_its_reply_fits_the_contract_whatever_the_task_holds(task):
    reply = review(task)

    assert parse_output(json.dumps(reply), SemanticGuardOutput) == reply
    assert (reply["verdict"] == "RELEASE") == (reply["unsupported"] == [])


def test_a_marker_of_no_allowed_claim_vouches_for_nothing():
    assert guard("The database host caught fire [c9].")["verdict"] == "BLOCK"


def test_the_same_task_gets_the_same_reply():
    draft = HONEST + "\nThe database host caught fire [c1]. 根本原因是数据库主机着火了 [c1]\n"

    replies = [json.dumps(guard(draft), sort_keys=True) for _ in range(3)]

    assert len(set(replies)) == 1
    assert json.loads(replies[0])["verdict"] == "BLOCK"


def test_the_order_of_the_allowed_claims_does_not_change_the_reply():
    draft = HONEST + "\nThe database host caught fire [c1]."

    assert guard(draft, CLAIMS) == guard(draft, list(reversed(CLAIMS)))


# --- through the provider ----------------------------------------------------------------------------------


def _complete(draft: str, claims=CLAIMS):
    return OfflineChatModel(Role.SEMANTIC_GUARD).complete(semantic_guard_messages(draft=draft, allowed_claims=claims))


def test_the_offline_provider_answers_the_guards_messages_with_the_contract():
    reply = _complete(HONEST)

    assert parse_output(reply.content, SemanticGuardOutput) == {"verdict": "RELEASE", "unsupported": []}
    assert reply.tool_calls == [] and reply.reasoning_content is None and reply.model == OFFLINE_MODEL_NAME
    assert reply.usage == Usage()  # rules spend no tokens


def test_the_offline_provider_blocks_what_the_guard_blocks():
    draft = "根本原因是数据库主机着火了 [c1]"

    reply = _complete(draft)

    assert parse_output(reply.content, SemanticGuardOutput) == guard(draft)
    assert "数据库主机着火了" in reply.content  # the reply is UTF-8 text, not escaped


def test_the_offline_provider_is_deterministic():
    draft = HONEST + "\nThe database host caught fire [c1]."

    assert _complete(draft).content == _complete(draft).content


def _composer_claim(claim_id: str, fact: str, tool: str, *pairs: tuple[str, str]) -> dict:
    evidence = [{"tool_name": tool, "raw_path": path, "matched_text": text} for path, text in pairs]
    return {"claim_id": claim_id, "fact": fact, "verification": "supported", "evidence": evidence}


COMPOSER_CLAIMS = [
    _composer_claim(
        "c1",
        "ledger-api logged a timeout",
        "query_logs",
        ("$.records[0].message", "POST /invoices failed: could not obtain connection: timeout after 2000ms"),
        ("$.records[0].ts", "2025-06-01T08:30:20Z"),
    ),
    _composer_claim(
        "c2",
        "ledger-db refused clients",
        "query_logs",
        ("$.records[0].message", "FATAL: sorry, too many clients already (max_connections=100)"),
        ("$.records[0].service", "ledger-db"),
        ("$.records[0].ts", "2025-06-01T08:30:05Z"),
    ),
    _composer_claim(
        "c3",
        "The runbook describes it",
        "lookup_knowledge",
        ("$.chunks[1].title", "Runbook: ledger-db too many connections > Symptoms"),
        (
            "$.chunks[1].text",
            "ledger-db logs `FATAL: sorry, too many clients already` when every connection slot is taken.",
        ),
    ),
]


@pytest.mark.parametrize(
    ("verdict", "gaps"), [("PASS", []), ("LOW_CONFID", ["No verified metric of ledger-db shows a shift at the onset"])]
)
def test_the_offline_composers_own_draft_passes_the_offline_guard(verdict, gaps):
    task = {
        "task": "composer",
        "question": "ledger-api invoice calls are failing since 08:30, why?",
        "effective_verdict": verdict,
        "allowed_claims": COMPOSER_CLAIMS,
        "missing_info": [],
        "evidence_gaps": gaps,
        "recommended_actions": [],
        "release_findings": [],
    }
    draft = composer.compose(task)["answer_markdown"]

    reply = _complete(draft, guard_claims(COMPOSER_CLAIMS))

    assert json.loads(reply.content) == {"verdict": "RELEASE", "unsupported": []}


# --- regressions found by review ---------------------------------------------------------------------------

NEGATED = [
    {
        "claim_id": "c1",
        "fact": "payment-service logged HikariPool-1 timeouts",
        "excerpts": ["HikariPool-1 - Connection is not available, request timed out after 30000ms"],
    },
    {"claim_id": "c2", "fact": "the pool is exhausted", "excerpts": ["pool exhausted"]},
]


@pytest.mark.parametrize(
    ("draft", "reason"),
    [
        (
            "The connection pool is not exhausted [c1][c2].",
            "adds a negation the cited evidence does not state: exhaust",
        ),
        ("The request did not time out [c1].", "adds a negation the cited evidence does not state: time"),
        (
            "HikariPool-1 connections are available, no error [c1].",
            "adds a negation the cited evidence does not state: error",
        ),
        ("Connections are available again [c1].", "drops a negation the cited evidence states: availabl"),
        ('The runbook says "reboot the cluster".', "quotes text the allowed claims do not contain: reboot the cluster"),
    ],
)
def test_another_negation_in_the_evidence_excuses_nothing(draft, reason):
    assert review({"draft": draft, "allowed_claims": NEGATED})["unsupported"] == [{"sentence": draft, "reason": reason}]


@pytest.mark.parametrize("draft", ["Connection isn't available [c1].", "The connection wasn't available [c1]."])
def test_a_contraction_reads_as_its_negation(draft):
    assert review({"draft": draft, "allowed_claims": NEGATED})["verdict"] == "RELEASE"


NOT_THE_CAUSE = {
    "claim_id": "k2",
    "fact": "The runbook says fraud-check is not the cause",
    "excerpts": ["if the errors say the pool is exhausted, fraud-check is not the cause."],
}


@pytest.mark.parametrize(
    "draft",
    [
        "fraud-check is the cause [k2].",  # the report word the evidence negates, flipped
        "fraud-check 是根本原因 [k2]。",  # in other words, and another language
        "The root cause is fraud-check [k2].",
    ],
)
def test_it_blocks_naming_as_the_cause_what_the_cited_evidence_says_is_not(draft):
    assert blocked(draft, [*CLAIMS, NOT_THE_CAUSE])


UNRELATED = {
    "claim_id": "k3",
    "fact": "The runbook says the failure is unrelated to OSS",
    "excerpts": [
        "写入失败与 OSS 无关：inode 耗尽时磁盘仍有剩余空间。",
        "The write failures are unrelated to oss-gateway.",
    ],
}


@pytest.mark.parametrize(
    "draft", ["OSS 是根本原因 [k3]。", "根本原因在 OSS [k3]。", "The root cause is oss-gateway [k3]."]
)
def test_it_blocks_naming_as_the_cause_what_the_cited_evidence_calls_unrelated(draft):
    assert blocked(draft, [*CLAIMS, UNRELATED])


NO_ERRORS = {
    "claim_id": "c9",
    "fact": "cdn-origin 在故障期间未出现错误日志",
    "excerpts": ["cdn-origin: 03:00-04:00 未出现错误日志"],
}


@pytest.mark.parametrize(
    "draft", ["cdn-origin 在故障期间出现错误日志 [c9]。", "最早出现错误日志的是 cdn-origin [c9]。"]
)
def test_it_blocks_dropping_a_negation_of_report_words(draft):
    """出现 and 错误 are report words; the evidence says they did not happen, and the draft says they did."""
    assert blocked(draft, [*CLAIMS, NO_ERRORS])


def test_it_releases_the_same_absence_said_again():
    assert guard("cdn-origin 在故障期间未出现错误日志 [c9]。", [*CLAIMS, NO_ERRORS])["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    "excerpt",
    [
        "These timeouts are unrelated to a pool problem.",  # an article is no subject
        "该告警与此无关。",  # nor a pronoun of one character
        "To rule out the cache, compare hit rates.",  # an instruction, not a finding
    ],
)
def test_what_a_text_rules_out_is_a_word_of_its_own(excerpt):
    ruling = {"claim_id": "k4", "fact": "The runbook on the timeouts", "excerpts": [excerpt]}
    for draft in ("The likely root cause is a cache eviction storm [c1][k4].", "根本原因因此是连接池耗尽 [c1][k4]。"):
        reply = guard(draft, [*CLAIMS, ruling])
        assert not [item for item in reply["unsupported"] if "drops a negation" in item["reason"]], reply


def test_the_evidence_lists_labels_are_no_dropped_negation():
    """A cited line saying "not supported": the answer's "(supported)" label is not the draft saying it is."""
    unsupported = {
        "claim_id": "c8",
        "fact": "image-worker logged that the operation is not supported",
        "excerpts": ["write /var/lib/thumbs/a.jpg failed: operation not supported"],
    }
    draft = '- [c8] image-worker logged: "write /var/lib/thumbs/a.jpg failed: operation not supported" (supported)'
    assert guard(draft, [*CLAIMS, unsupported])["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    "draft", ["payment-gateway supported TLS 1.0 at the time [c8].", "payment-gateway 当时支持 TLS 1.0 [c8]。"]
)
def test_a_dropped_not_supported_in_the_prose_is_still_a_dropped_negation(draft):
    refused = {
        "claim_id": "c8",
        "fact": "payment-gateway refused TLS 1.0",
        "excerpts": ["handshake failed: protocol TLS 1.0 not supported", "握手失败：不支持 TLS 1.0 协议"],
    }
    assert blocked(draft, [*CLAIMS, refused])


def test_it_releases_saying_what_the_evidence_says_of_a_cause():
    assert guard("fraud-check is not the cause [k2].", [*CLAIMS, NOT_THE_CAUSE])["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    "draft",
    [
        "## 根本原因：部署\n\n支付服务连接池耗尽 [k1]。",  # a heading that says what the root cause is
        "HikariPool-1 timed out [c1]. The root cause is a configuration change.",
        "支付服务连接池耗尽 [k1]。根本原因是配置变更。",
    ],
)
def test_it_blocks_a_root_cause_named_in_a_heading_or_uncited_beside_cited_sentences(draft):
    assert blocked(draft)


@pytest.mark.parametrize(
    "draft",
    [
        "## Likely root cause (low confidence)\n\nHikariPool-1 timed out [c1]. This is the likely root cause.",
        "## 可能的根本原因（置信度较低）\n\n支付服务连接池耗尽 [k1]。",
    ],
)
def test_a_heading_or_a_pointer_that_only_names_the_section_is_released(draft):
    assert guard(draft)["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    ("text", "causal"),
    [
        ("部署是连接池耗尽的原因", True),
        ("原因在于部署", True),
        ("连接池耗尽为部署所致", True),
        ("The cause was a deploy.", True),
        ("fraud-check is the cause.", True),
        ("The verifier did not confirm the cause with independent sources.", False),
        ("验证没有从独立来源确认这一原因。", False),
        ("建议检查日志以确认故障的原因。", False),  # an investigation step
        ("The cause is unclear.", False),
    ],
)
def test_these_words_state_a_cause(text, causal):
    assert states_a_cause(text) is causal


@pytest.mark.parametrize(
    "draft",
    [
        "HikariPool-1 timed out [c1]. There was no deploy or configuration change.",
        "支付服务连接池耗尽 [k1]。期间没有部署或配置变更。",
        "支付服务连接池耗尽 [k1]。部署之后服务没有出现错误。",
    ],
)
def test_it_blocks_an_uncited_sentence_saying_something_did_not_happen(draft):
    assert blocked(draft)


@pytest.mark.parametrize(
    "draft",
    [
        "HikariPool-1 timed out [c1]. No verified change before the onset explains it.",
        "支付服务连接池耗尽 [k1]。没有已验证的变更发生在故障开始之前并能说明这一故障。",
        "db_pool_pending rose [c2]. No error log or runbook explains it.",
        "支付服务连接池耗尽 [k1]。没有错误日志或运行手册说明这一变化。",
    ],
)
def test_what_the_evidence_does_not_show_is_report_language(draft):
    assert guard(draft)["verdict"] == "RELEASE"


@pytest.mark.parametrize(
    ("draft", "claims"),
    [
        # A cause named while citing a text that rules out another one.
        ("The likely root cause is the HikariPool-1 exhaustion of payment-service [c1][k2].", [*CLAIMS, NOT_THE_CAUSE]),
        # "The likely cause is" names it as "root cause" does.
        ("The likely cause is the deploy that lowered the pool size [c4].", CLAIMS),
        # What is uncertain, not what did not happen.
        ("HikariPool-1 timed out [c1]. The verifier could not confirm a configuration change.", CLAIMS),
        ("支付服务连接池耗尽 [k1]。无法确认故障开始之前是否有部署。", CLAIMS),
        # Headings and pointers of report language.
        ("## Root cause and evidence\n\nHikariPool-1 timed out [c1].", CLAIMS),
        ("## 根本原因与证据\n\n支付服务连接池耗尽 [k1]。", CLAIMS),
        ("HikariPool-1 timed out [c1]. This root cause is supported by the verified evidence above.", CLAIMS),
    ],
)
def test_honest_report_sentences_near_the_new_rules_are_released(draft, claims):
    assert guard(draft, claims)["verdict"] == "RELEASE"


def test_a_pointer_beside_cited_sentences_may_not_name_what_is_the_cause():
    assert blocked("HikariPool-1 timed out [c1]. fraud-check is the cause.", [*CLAIMS, NOT_THE_CAUSE])
