"""The offline composer writes from allowed claims only and says how sure it is."""

from __future__ import annotations

import pytest

from diagnosis.contracts import ComposerOutput, parse_output
from diagnosis.nodes.messages import composer_messages
from diagnosis.providers.offline import semantic_guard
from diagnosis.release.policy import check_draft
from diagnosis.release.quoting import in_quotation_marks
from diagnosis.rendering import render_answer

QUESTION = "ledger-api invoice calls are failing since 08:30, why?"


def _claim(claim_id: str, fact: str, tool: str, *pairs: tuple[str, str], verification: str = "supported") -> dict:
    evidence = [{"tool_name": tool, "raw_path": path, "matched_text": text} for path, text in pairs]
    return {"claim_id": claim_id, "fact": fact, "verification": verification, "evidence": evidence}


SYMPTOM = _claim(
    "c1",
    "ledger-api logged a timeout",
    "query_logs",
    ("$.records[0].message", "POST /invoices failed: could not obtain connection: timeout after 2000ms"),
    ("$.records[0].service", "ledger-api"),
    ("$.records[0].ts", "2025-06-01T08:30:20Z"),
)
ROOT = _claim(
    "c2",
    "ledger-db refused clients",
    "query_logs",
    ("$.records[0].message", "FATAL: sorry, too many clients already (max_connections=100)"),
    ("$.records[0].service", "ledger-db"),
    ("$.records[0].ts", "2025-06-01T08:30:05Z"),
)
RUNBOOK = _claim(
    "c3",
    "The runbook describes it",
    "lookup_knowledge",
    ("$.chunks[1].title", "Runbook: ledger-db too many connections > Symptoms"),
    (
        "$.chunks[1].text",
        "ledger-db logs `FATAL: sorry, too many clients already` when every connection slot is taken.",
    ),
)


def _compose(models, claims: list[dict], verdict: str = "PASS", **lists: list[str]) -> dict:
    messages = composer_messages(
        question=QUESTION,
        effective_verdict=verdict,
        allowed_claims=claims,
        missing_info=lists.get("missing_info", []),
        evidence_gaps=lists.get("evidence_gaps", []),
        recommended_actions=lists.get("recommended_actions", []),
    )
    return parse_output(models.composer.complete(messages).content, ComposerOutput)


def test_without_a_change_it_names_where_the_failure_began_and_says_no_change_explains_it(models):
    answer = _compose(models, [SYMPTOM, ROOT, RUNBOOK], recommended_actions=["Roll back the pool size change."])
    headline, timeline = answer["answer_markdown"].split("## Evidence")[0].split("## What happened, in time order\n")
    assert headline.startswith(
        "## Likely root cause\nThe likely root cause is in **ledger-db**, where the failure began [c2]. "
        "No verified change before the onset explains it.\n"
    )
    assert "(max_connections=100)" not in headline, "log lines are quoted as evidence, not in the headline"
    assert '"Runbook: ledger-db too many connections > Symptoms"' in headline and "[c3]" in headline
    assert timeline.strip().splitlines() == [
        '- 08:30:05 first errors of **ledger-db**: "FATAL: sorry, too many clients already (max_connections=100)" [c2]',
        '- 08:30:20 first errors of **ledger-api**: "POST /invoices failed: could not obtain connection: timeout after '
        '2000ms" [c1]',
    ]
    assert "## Recommended actions\n- Roll back the pool size change." in answer["answer_markdown"]
    assert "## Uncertainty" not in answer["answer_markdown"]
    assert _released(_compose(models, [SYMPTOM, ROOT, RUNBOOK]), [SYMPTOM, ROOT, RUNBOOK], [])


ANNOUNCED = _claim(
    "c4",
    "ledger-api logged a rollout",
    "query_logs",
    ("$.records[3].message", "Rolling out ledger-api v5.1.0: db pool max 20 -> 80 per pod"),
    ("$.records[3].service", "ledger-api"),
    ("$.records[3].ts", "2025-06-01T08:27:40Z"),
    verification="indirect_support",
)
CHANGE_ROW = _claim(
    "c5",
    "Business record: component=ledger-api; setting=db.pool.max_connections_per_pod; changed_at=2025-06-01 08:27:00",
    "query_mysql",
    ("$.rows[0][1]", "ledger-api"),
    ("$.columns[1]", "component"),
    ("$.rows[0][2]", "db.pool.max_connections_per_pod"),
    ("$.columns[2]", "setting"),
    ("$.rows[0][5]", "2025-06-01 08:27:00"),
    ("$.columns[5]", "changed_at"),
    verification="indirect_support",
)
OLD_CHANGE_ROW = _claim(
    "c6",
    "Business record: component=ledger-db; setting=max_connections; changed_at=2025-05-30 10:00:00",
    "query_mysql",
    ("$.rows[1][1]", "ledger-db"),
    ("$.columns[1]", "component"),
    ("$.rows[1][2]", "max_connections"),
    ("$.columns[2]", "setting"),
    ("$.rows[1][5]", "2025-05-30 10:00:00"),
    ("$.columns[5]", "changed_at"),
    verification="indirect_support",
)
LATER_CHANGE = _claim(
    "c7",
    "ledger-api logged a restart",
    "query_logs",
    ("$.records[9].message", "Restarting ledger-api pods one at a time"),
    ("$.records[9].service", "ledger-api"),
    ("$.records[9].ts", "2025-06-01T08:41:00Z"),
    verification="indirect_support",
)


def test_the_cause_is_the_change_made_just_before_the_first_error_in_both_sources(models):
    claims = [SYMPTOM, ROOT, RUNBOOK, ANNOUNCED, CHANGE_ROW, OLD_CHANGE_ROW, LATER_CHANGE]
    answer = _compose(models, claims)
    text = answer["answer_markdown"]
    headline = text.split("\n\n")[0]
    assert headline == (
        "## Likely root cause\nThe likely root cause is a change shortly before the failure began: the change "
        "record `component=ledger-api`, `setting=db.pool.max_connections_per_pod`, `changed_at=2025-06-01 08:27:00` [c5] and "
        '**ledger-api** logged "Rolling out ledger-api v5.1.0: db pool max 20 -> 80 per pod" at 08:27:40 [c4]. '
        "The failure then began in **ledger-db** [c2]."
    )
    timeline = text.split("## What happened, in time order\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(" ")[1] for line in timeline] == ["08:27:00", "08:27:40", "08:30:05", "08:30:20"]
    assert "c6" not in "".join(timeline), "a change two days earlier is history, not the trigger"
    assert "c7" not in "".join(timeline), "a change after the first error cannot have caused it"
    assert answer["cited_claim_ids"] == ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]
    assert _released(answer, claims, [])


# A front end the question named: its new warning, verified only as indirect support, came before the
# supported failures, and a change record that carries two times: applied, then its old value discarded.
NAMED_FRONT_END = _claim(
    "c8",
    "ledger-web logged a warning",
    "query_logs",
    ("$.records[0].message", "WARN blocked inline script (nonce mismatch)"),
    ("$.records[0].service", "ledger-web"),
    ("$.records[0].ts", "2025-06-01T08:29:00Z"),
    verification="indirect_support",
)
TWO_TIMES_ROW = _claim(
    "c9",
    "Business record: secret=ledger-db/rw; rotated_at=2025-06-01 08:10:00; old_discarded_at=2025-06-01 08:29:30",
    "query_mysql",
    ("$.rows[0][0]", "ledger-db/rw"),
    ("$.columns[0]", "secret"),
    ("$.rows[0][1]", "2025-06-01 08:10:00"),
    ("$.columns[1]", "rotated_at"),
    ("$.rows[0][2]", "2025-06-01 08:29:30"),
    ("$.columns[2]", "old_discarded_at"),
    verification="indirect_support",
)


def test_the_onset_is_the_first_supported_failure_and_a_record_sits_at_its_last_time_before_it(models):
    """A symptom the question drew in, verified as indirect support, set the onset before: the record's
    discarding time fell after it, and the answer blamed an older, unrelated change."""
    claims = [SYMPTOM, ROOT, NAMED_FRONT_END, TWO_TIMES_ROW, OLD_CHANGE_ROW]
    headline = _compose(models, claims)["answer_markdown"].split("\n\n")[0]

    assert "[c9]" in headline and "The failure then began in **ledger-db** [c2]." in headline
    assert "[c6]" not in headline and "ledger-web" not in headline


def test_a_change_made_long_before_the_first_error_is_not_called_its_cause(models):
    """Only a change two days old was verified: it is history, not "a change shortly before the failure"."""
    claims = [SYMPTOM, ROOT, OLD_CHANGE_ROW]
    headline = _compose(models, claims)["answer_markdown"].split("\n\n")[0]
    assert headline == (
        "## Likely root cause\nThe likely root cause is in **ledger-db**, where the failure began [c2]. "
        "No verified change before the onset explains it."
    )


def test_without_a_verified_error_a_change_long_before_the_metric_shift_is_not_its_cause(models):
    shift = _claim(
        "c9",
        "the pool's wait rose",
        "query_metrics",
        ("$.series[0].metric", "db_pool_pending"),
        ("$.series[0].service", "ledger-api"),
        ("$.series[0].points[0].ts", "2025-06-01T08:00:00Z"),
        ("$.series[0].points[0].value", "0.0"),
        ("$.series[0].points[9].ts", "2025-06-01T08:40:00Z"),
        ("$.series[0].points[9].value", "44.0"),
    )
    headline = _compose(models, [shift, OLD_CHANGE_ROW])["answer_markdown"].split("\n\n")[0]
    assert "a change shortly before" not in headline, headline


def test_a_metric_shift_is_placed_where_its_new_level_began_and_a_change_after_that_is_no_cause(models):
    """Placed at its peak (08:40), a shift beginning at 08:10 let a line logged at 08:20, after the failure
    had begun (an agent escalating a ticket), read as "a change shortly before the failure began"."""
    shift = _claim(
        "c9",
        "the pool's wait rose",
        "query_metrics",
        ("$.series[0].metric", "db_pool_pending"),
        ("$.series[0].service", "ledger-api"),
        ("$.series[0].points[0].ts", "2025-06-01T08:00:00Z"),
        ("$.series[0].points[0].value", "0.0"),
        ("$.series[0].points[2].ts", "2025-06-01T08:10:00Z"),
        ("$.series[0].points[2].value", "12.0"),
        ("$.series[0].points[9].ts", "2025-06-01T08:40:00Z"),
        ("$.series[0].points[9].value", "44.0"),
    )
    later = _claim(
        "c7",
        "ledger-api logged a restart",
        "query_logs",
        ("$.records[5].message", "Restarting ledger-api pods after config reload"),
        ("$.records[5].service", "ledger-api"),
        ("$.records[5].ts", "2025-06-01T08:20:00Z"),
        verification="indirect_support",
    )

    jump = _claim(
        "c8",
        "ledger-db's connections rose",
        "query_metrics",
        ("$.series[1].metric", "active_connections"),
        ("$.series[1].service", "ledger-db"),
        ("$.series[1].points[0].ts", "2025-06-01T08:00:00Z"),
        ("$.series[1].points[0].value", "40.0"),
        ("$.series[1].points[3].ts", "2025-06-01T08:15:00Z"),
        ("$.series[1].points[3].value", "100.0"),
    )

    markdown = _compose(models, [shift, later, jump])["answer_markdown"]

    assert "a change shortly before" not in markdown.split("\n\n")[0]
    assert (
        "- 08:10:00 db_pool_pending of **ledger-api** rose from 0.0 to 44.0 [c9]\n"
        "- 08:15:00 active_connections of **ledger-db** rose from 40.0 to 100.0 [c8]"
    ) in markdown, "a shift cited by its baseline and extreme alone stands at its extreme"


def test_a_record_logged_at_info_is_never_the_first_error(models):
    """An INFO line naming a setting ``connect-timeout-ms`` reads like a fault to the analysis: its cited level
    says the service reported no problem, so the failure begins at the first real error."""
    refreshed = _claim(
        "c8",
        "ledger-api logged a refresh",
        "query_logs",
        ("$.records[4].message", "properties refreshed fx.client.connect-timeout-ms=20"),
        ("$.records[4].service", "ledger-api"),
        ("$.records[4].ts", "2025-06-01T08:29:00Z"),
        ("$.records[4].level", "INFO"),
    )
    text = _compose(models, [SYMPTOM, ROOT, refreshed])["answer_markdown"]
    assert "where the failure began [c2]" in text.split("\n\n")[0]
    assert 'first errors of **ledger-api**: "properties refreshed' not in text
    assert "[c8]" in text.split("## Evidence")[1], "still shown as evidence"


def test_a_component_that_only_warned_is_said_to_have_warned(models):
    """A kernel dropping packets logs WARN, not ERROR: its timeline line says so, and the draft is released."""
    warned = _claim(
        "c2",
        "kernel warned that its table was full",
        "query_logs",
        ("$.records[0].message", "nf_conntrack: table full, dropping packet"),
        ("$.records[0].service", "kernel"),
        ("$.records[0].ts", "2025-06-01T08:30:01Z"),
        ("$.records[0].level", "WARN"),
    )
    for compose, line in (
        (_compose, '- 08:30:01 first warnings of **kernel**: "nf_conntrack: table full, dropping packet" [c2]'),
        (_compose_zh, "- 08:30:01 **kernel** 的首批告警：“nf_conntrack: table full, dropping packet” [c2]"),
    ):
        answer = compose(models, [SYMPTOM, warned])
        assert line in answer["answer_markdown"].splitlines()
        assert _released(answer, [SYMPTOM, warned], [])


def test_a_fault_confined_to_one_host_names_the_host(models):
    on_host = _claim(
        "c2",
        "ledger-db logged on host db-2",
        "query_logs",
        ("$.records[0].message", "FATAL: sorry, too many clients already (max_connections=100)"),
        ("$.records[0].service", "ledger-db"),
        ("$.records[0].ts", "2025-06-01T08:30:05Z"),
        ("$.records[0].host", "db-2"),
    )
    answer = _compose(models, [SYMPTOM, on_host])
    assert (
        "The likely root cause is in **ledger-db** on host `db-2`, where the failure began [c2]."
        in (answer["answer_markdown"])
    )
    assert _released(answer, [SYMPTOM, on_host], [])


def test_it_cites_every_allowed_claim_and_nothing_else(models):
    answer = _compose(models, [SYMPTOM, ROOT, RUNBOOK])
    assert answer["cited_claim_ids"] == ["c1", "c2", "c3"]
    for claim_id in ("c1", "c2", "c3"):
        assert f"- [{claim_id}]" in answer["answer_markdown"]


def test_low_confidence_says_what_is_uncertain(models):
    answer = _compose(
        models, [ROOT], "LOW_CONFID", evidence_gaps=["No verified metric of ledger-db shows a shift at the onset"]
    )["answer_markdown"]
    assert answer.startswith("## Likely root cause (low confidence)")
    assert "## Uncertainty" in answer
    assert "- No verified metric of ledger-db shows a shift at the onset" in answer


def test_a_rejected_diagnosis_states_that_no_root_cause_was_established(models):
    answer = _compose(models, [ROOT], "REJECT", evidence_gaps=["No runbook matched"])
    assert "No root cause could be established from the verified evidence." in answer["answer_markdown"]
    assert "- No runbook matched" in answer["answer_markdown"]
    assert answer["cited_claim_ids"] == []


def test_with_nothing_allowed_it_establishes_nothing(models):
    answer = _compose(models, [], "PASS")
    assert answer["cited_claim_ids"] == []
    assert "No root cause could be established" in answer["answer_markdown"]


def test_without_logs_or_runbooks_it_points_at_the_metric_shift(models):
    metric = _claim(
        "c4",
        "ledger-db metric active_connections read 40.0 then 100.0",
        "query_metrics",
        ("$.series[0].metric", "active_connections"),
        verification="indirect_support",
    )
    answer = _compose(models, [metric], "LOW_CONFID")["answer_markdown"]
    assert "a metric shift [c4]" in answer
    assert "- [c4] ledger-db metric active_connections read 40.0 then 100.0 (indirect support)" in answer


ZH_QUESTION = "发票接口最近一直失败，是什么原因？"


def _compose_zh(models, claims: list[dict], verdict: str = "PASS", **lists: list[str]) -> dict:
    messages = composer_messages(
        question=ZH_QUESTION,
        effective_verdict=verdict,
        allowed_claims=claims,
        missing_info=lists.get("missing_info", []),
        evidence_gaps=lists.get("evidence_gaps", []),
        recommended_actions=lists.get("recommended_actions", []),
    )
    return parse_output(models.composer.complete(messages).content, ComposerOutput)


def test_angle_brackets_in_evidence_are_shown_as_text_and_a_passage_is_not_cut_inside_its_code(models):
    """A runbook's `--topic <topic>` cut in the middle of its code span, and a log line's <redacted>, were raw
    HTML to the release policy: both drafts were refused and the run ended in the fallback."""
    command = "`kafka-console-consumer --topic <topic> --partition N --offset <offset> --max-messages 1`"
    passage = (
        "Take the offset from the error and find the record at the first failure, " * 3 + f"or read it: {command}."
    )
    root = _claim(
        "c2",
        'ledger-db logged "FATAL: sorry, too many clients already for <redacted> (max_connections=100)"',
        "query_logs",
        ("$.records[0].message", "FATAL: sorry, too many clients already for <redacted> (max_connections=100)"),
        ("$.records[0].service", "ledger-db"),
        ("$.records[0].ts", "2025-06-01T08:30:05Z"),
    )
    runbook = _claim(
        "c3",
        "The runbook describes it",
        "lookup_knowledge",
        ("$.chunks[1].title", "Runbook: ledger-db too many connections > How to confirm"),
        ("$.chunks[1].text", passage),
    )
    claims = [SYMPTOM, root, runbook]

    answer = _compose(models, claims)

    markdown = answer["answer_markdown"]
    assert "\\<topic>" not in markdown and "<topic>" not in markdown, "the cut code span is left out whole"
    assert 'at the first failure, or read it:" [c3]' in markdown
    assert 'too many clients already for \\<redacted> (max_connections=100)" [c2]' in markdown
    assert (
        'ledger-db logged "FATAL: sorry, too many clients already for \\<redacted> (max_connections=100)"' in markdown
    )
    assert _released(answer, claims, [])


def test_a_runbook_link_is_quoted_as_text_and_a_linked_action_is_written_out(models):
    """A runbook cited with a link ("see the [procedure](https://…)") was a link to the release policy, in
    the quoted passage and in the recommended action copied from it: both drafts were refused and every
    run citing that runbook ended in the fallback."""
    action = 'Roll back the deploy (see the [rollback procedure](https://wiki.example/rollback "Rollback")).'
    runbook = _claim(
        "c3",
        "The runbook describes it",
        "lookup_knowledge",
        ("$.chunks[1].title", "Runbook: ledger-db too many connections > Mitigation"),
        ("$.chunks[1].text", f"{action} Watch the ![pool chart](https://grafana.example/pool.png) fall."),
    )
    claims = [SYMPTOM, ROOT, runbook]

    answer = _compose(models, claims, recommended_actions=[action])

    markdown = answer["answer_markdown"]
    assert "see the \\[rollback procedure](https://wiki.example/rollback" in markdown  # quoted, as text
    # The action as its words and where its link points, title and all.
    assert '- Roll back the deploy (see the rollback procedure (https://wiki.example/rollback "Rollback")).' in markdown
    assert _released(answer, claims, [action])
    assert "<a " not in render_answer(markdown) and "<img" not in render_answer(markdown)


def _log_claim(claim_id: str, message: str) -> dict:
    return _claim(
        claim_id,
        f"ledger-api logged at 2025-06-01T08:30:20Z: {in_quotation_marks(message)}",  # as the verifier writes it
        "query_logs",
        ("$.records[0].message", message),
        ("$.records[0].service", "ledger-api"),
        ("$.records[0].ts", "2025-06-01T08:30:20Z"),
    )


@pytest.mark.parametrize(
    "message",
    [
        "POST https:\\/\\/pay.example.com\\/v1\\/charge failed: timeout after 2000ms",  # a JSON log's escaped slashes
        "no handler for route ^/v1/orders/\\d+\\.json$: 404",
        'JSON parse error: unterminated string at " while reading List<Map<String, Object>>',  # no HTML to the page
    ],
)
def test_evidence_with_backslashes_or_angle_brackets_that_open_nothing_is_quoted_as_it_is_shown(models, message):
    """Quotes are read as the page shows them: a backslash before punctuation must be doubled to show."""
    claims = [_log_claim("c1", message), RUNBOOK]

    assert _released(_compose(models, claims), claims, [])


def test_a_runbook_title_that_holds_a_tag_and_a_passage_that_opens_with_a_long_code_span(models):
    command = "`" + "kafka-consumer-groups --reset-offsets --to-offset 88412908 " * 6 + "`"
    runbook = _claim(
        "c3",
        "The runbook describes it",
        "lookup_knowledge",
        ("$.chunks[1].title", "Reset offsets for <topic>"),
        ("$.chunks[1].text", f"{command} skips the record."),
    )
    claims = [SYMPTOM, runbook]

    answer = _compose(models, claims)

    assert 'in "Reset offsets for \\<topic>": "`kafka-consumer-groups' in answer["answer_markdown"], (
        "never an empty quote"
    )
    assert _released(answer, claims, [])


def _released(answer: dict, claims: list[dict], guidance: list[str]) -> bool:
    """The release policy and the offline SemanticGuard both let ``answer`` through."""
    policy = check_draft(answer["answer_markdown"], answer["cited_claim_ids"], claims, guidance=guidance)
    guard = semantic_guard.review(
        {
            "draft": answer["answer_markdown"],
            "allowed_claims": [
                {
                    "claim_id": claim["claim_id"],
                    "fact": claim["fact"],
                    "excerpts": [item["matched_text"] for item in claim["evidence"]],
                }
                for claim in claims
            ],
        }
    )
    assert guard["unsupported"] == [], guard["unsupported"]
    assert policy.released, [finding.to_dict() for finding in policy.findings]
    return True


METRIC = _claim(
    "c4",
    "ledger-db metric active_connections read 40.0 then 100.0",
    "query_metrics",
    ("$.series[0].metric", "active_connections"),
    verification="indirect_support",
)
RECORD = _claim(
    "c5",
    "Business record: change_id=CHG-1; changed_at=2025-06-01 08:29:00",
    "query_mysql",
    ("$.rows[0].change_id", "CHG-1"),
)


def test_a_chinese_question_gets_chinese_headings_and_connectives_that_pass_the_release_guard(models):
    actions = ["Roll back the pool size change."]
    answer = _compose_zh(models, [SYMPTOM, ROOT, RUNBOOK], recommended_actions=actions)
    text = answer["answer_markdown"]
    assert text.startswith(
        "## 可能的根本原因\n可能的根本原因在 **ledger-db**，故障从这里开始 [c2]。没有已验证的变更发生在故障开始之前并能说明这一故障。"
    )
    assert "“FATAL: sorry, too many clients already (max_connections=100)” [c2]" in text  # quoted verbatim
    assert "## 时间顺序\n- 08:30:05 **ledger-db** 的首批错误：" in text
    assert "知识库在“Runbook: ledger-db too many connections > Symptoms”中描述了这一故障" in text
    assert "## 证据\n- [c1] ledger-api logged a timeout （支持）" in text
    assert "## 建议操作\n- Roll back the pool size change." in text
    assert "Likely root cause" not in text and "## Evidence" not in text
    assert _released(_compose_zh(models, [SYMPTOM, ROOT, RUNBOOK]), [SYMPTOM, ROOT, RUNBOOK], [])


def test_a_chinese_low_confidence_answer_says_what_is_uncertain_in_chinese(models):
    gaps = ["No verified metric of ledger-db shows a shift at the onset"]
    answer = _compose_zh(models, [ROOT], "LOW_CONFID", evidence_gaps=gaps)
    assert answer["answer_markdown"].startswith("## 可能的根本原因（置信度较低）")
    assert "## 不确定性\n这一结论尚未完全确认：\n- No verified metric" in answer["answer_markdown"]
    assert _released(answer, [ROOT], gaps)
    bare = _compose_zh(models, [ROOT], "LOW_CONFID")
    assert "- 验证没有从独立来源确认这一原因。" in bare["answer_markdown"]
    assert _released(bare, [ROOT], [])


def test_chinese_answers_without_logs_or_runbooks_pass_the_release_guard(models):
    metric_only = _compose_zh(models, [METRIC], "LOW_CONFID")
    assert "最明确的已验证信号是一个指标变化 [c4]。" in metric_only["answer_markdown"]
    assert "（间接支持）" in metric_only["answer_markdown"]
    assert _released(metric_only, [METRIC], [])
    records_only = _compose_zh(models, [RECORD])
    assert "已验证的证据指向下面的记录" in records_only["answer_markdown"]
    assert _released(records_only, [RECORD], [])


def test_a_rejected_chinese_diagnosis_says_so_in_chinese(models):
    answer = _compose_zh(models, [ROOT], "REJECT", evidence_gaps=["No runbook matched"])
    assert answer["answer_markdown"] == (
        "## 无法确定根本原因\n\n无法从已验证的证据中确定根本原因。\n\n缺失的信息：\n- No runbook matched"
    )
    assert answer["cited_claim_ids"] == []


@pytest.mark.parametrize(
    "message",
    [
        'level=error msg="[pool-1] could not obtain connection: timeout after 2000ms"',
        'error="[Errno 111] Connection refused" while connecting to ledger-db',
        '{"level":"error","msg":"[pool-1] could not obtain connection"}',
        'level=error msg="index out of range: arr[0][1]" code=500',
        '{"level":"error","msg":"batch [[1,2],[3]] rejected"}',
        'parse error near " shards=[1][2]',
        'level=error msg="see [the pool notes](https://wiki.example/pool) first"',  # a link after its own quote
        "用户“张三”的下单请求失败：ids=[[1,2]]",
    ],
)
@pytest.mark.parametrize("compose", [_compose, _compose_zh], ids=["en", "zh"])
def test_a_log_lines_own_quotes_and_brackets_are_released(models, message, compose):
    """A line's own '"' or '”' closed the answer's quote early, and an escape then stood outside it: refused
    (escape), the run ended in the fallback. The quote is written in marks the line does not hold."""
    claims = [_log_claim("c1", message), ROOT, RUNBOOK]

    answer = compose(models, claims)

    assert _released(answer, claims, [])
    assert "<a " not in render_answer(answer["answer_markdown"])


@pytest.mark.parametrize("compose", [_compose, _compose_zh], ids=["en", "zh"])
@pytest.mark.parametrize(
    ("title", "passage"),
    [
        ("Runbook: pool [draft", "see [the rollback procedure](https://wiki.example/rollback) first."),
        ("连接池手册", "连接池耗尽时，点击“保存”前先参见[回滚流程](https://wiki.example/rollback)。"),
        ("Pool <pool> runbook", 'set "see [the rollback procedure](https://wiki.example/rollback)" first.'),
    ],
)
def test_a_passage_and_its_title_are_quoted_whole_whatever_they_hold(models, compose, title, passage):
    """A title's "[" and a passage's "](" made one link across the answer's quotes; a passage's own “…” ended
    the answer's quote early."""
    runbook = _claim(
        "c3",
        "The runbook describes it",
        "lookup_knowledge",
        ("$.chunks[1].title", title),
        ("$.chunks[1].text", passage),
    )
    claims = [SYMPTOM, ROOT, runbook]

    answer = compose(models, claims)

    assert _released(answer, claims, [])
    assert "<a " not in render_answer(answer["answer_markdown"])


def test_an_uncited_copy_of_a_linked_runbook_line_keeps_the_links_condition(models):
    """A link's title is read with its words: "Restart payment-db during peak" alone is no copy of a line whose
    link says "Only after failing over to the replica"."""
    line = (
        'Restart payment-db [during peak](https://wiki.example/restart "Only after failing over to the replica; '
        'never otherwise") to clear the pool.'
    )
    runbook = _claim("c3", "The runbook describes payment-db recovery", "lookup_knowledge", ("$.chunks[1].text", line))
    answer = {
        "answer_markdown": "The runbook describes payment-db recovery [c3]. Restart payment-db during peak to clear the pool.",
        "cited_claim_ids": ["c3"],
    }

    policy = check_draft(answer["answer_markdown"], answer["cited_claim_ids"], [runbook])
    guard = semantic_guard.review(
        {
            "draft": answer["answer_markdown"],
            "allowed_claims": [{"claim_id": "c3", "fact": runbook["fact"], "excerpts": [line]}],
        }
    )
    assert [finding.rule for finding in policy.findings] == ["uncited_finding"]
    assert [item["sentence"] for item in guard["unsupported"]] == ["Restart payment-db during peak to clear the pool."]
