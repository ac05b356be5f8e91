"""Cutting a payload to the byte budget: a prefix of its list, flagged and counted."""

from __future__ import annotations

from tools.store import canonical_json
from tools.truncation import Truncation, fit_payload

PAYLOAD = {"columns": ["n"], "rows": [[index] for index in range(100)], "row_count": 100, "truncated": False}
ROWS = Truncation("rows", flag_key="truncated", count_key="row_count")


def test_it_keeps_the_longest_prefix_that_fits():
    fitted = fit_payload(PAYLOAD, ROWS, 200)

    assert fitted is not None
    assert len(fitted.canonical) <= 200
    assert fitted.payload["rows"] == PAYLOAD["rows"][: fitted.items]
    one_more = ROWS.keep(PAYLOAD, fitted.items + 1)
    assert len(canonical_json(one_more)) > 200


def test_it_flags_and_counts_what_it_kept():
    fitted = fit_payload(PAYLOAD, ROWS, 200)

    assert fitted.payload["truncated"] is True
    assert fitted.payload["row_count"] == fitted.items
    assert fitted.canonical == canonical_json(fitted.payload)


def test_it_leaves_the_original_payload_alone():
    fit_payload(PAYLOAD, ROWS, 200)

    assert len(PAYLOAD["rows"]) == 100
    assert PAYLOAD["truncated"] is False


def test_it_cuts_a_list_without_flag_or_count():
    fitted = fit_payload({"chunks": ["x" * 50] * 10}, Truncation("chunks"), 200)

    assert fitted.payload == {"chunks": ["x" * 50] * fitted.items}


def test_it_gives_up_when_even_an_empty_list_is_too_big():
    assert fit_payload({"header": "h" * 500, "rows": [[1]]}, Truncation("rows"), 200) is None


def test_it_gives_up_when_not_even_one_item_fits():
    assert fit_payload({"rows": [["r" * 500], [1]], "truncated": False}, ROWS, 200) is None


def test_it_keeps_the_tail_when_the_tail_was_asked_for():
    """A log query for the newest records: a cut must not leave the oldest of them."""
    newest = Truncation("records", flag_key="truncated", keeps_tail=lambda payload: payload["direction"] == "backward")
    payload = {"records": [f"record {index:03}" + "." * 40 for index in range(20)], "direction": "backward"}

    fitted = fit_payload(payload, newest, 300)

    assert fitted is not None and 1 <= fitted.items < 20
    assert fitted.payload["records"] == payload["records"][-fitted.items :]
    assert fitted.payload["truncated"] is True
    assert fit_payload({**payload, "direction": "forward"}, newest, 300).payload["records"][0] == payload["records"][0]
