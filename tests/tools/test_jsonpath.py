"""The citation path subset: exact values only, clear reasons for everything else."""

from __future__ import annotations

import pytest

from tools.jsonpath import MAX_PATH_CHARS, PathError, format_path, resolve

PAYLOAD = {
    "records": [{"ts": "t0", "message": "first"}, {"ts": "t1", "message": "second", "http.status": 503}],
    "rows": [[1, "a"], [2, None]],
    "total": 2,
    "空": "值",
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$", PAYLOAD),
        ("$.total", 2),
        ("$.records[1].message", "second"),
        ("$.records[0]", {"ts": "t0", "message": "first"}),
        ('$.records[1]["http.status"]', 503),
        ("$.rows[1][1]", None),
        ('$["空"]', "值"),
    ],
)
def test_it_resolves_paths_of_the_subset(path, expected):
    assert resolve(PAYLOAD, path) == expected


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("records[0]", "syntax"),
        ("", "syntax"),
        ("$.", "syntax"),
        ("$records", "syntax"),
        ("$.records[", "syntax"),
        ("$.records[01]", "syntax"),
        ("$.records[1.5]", "syntax"),
        ('$["unterminated]', "syntax"),
        ('$["bad \\q escape"]', "syntax"),
        ("$.records[*]", "wildcard"),
        ("$.*", "wildcard"),
        ("$..message", "recursive_descent"),
        ("$.records[?(@.ts)]", "filter"),
        ("$.records[0:1]", "slice"),
        ("$.records[0,1]", "union"),
        ("$.records[-1]", "negative_index"),
        ("$.records[2]", "index_out_of_range"),
        ("$.missing", "missing_key"),
        ("$.records[0].nope", "missing_key"),
        ("$.total[0]", "not_a_list"),
        ("$.records.message", "not_an_object"),
        ("$" + ".a" * MAX_PATH_CHARS, "syntax"),
    ],
)
def test_it_refuses_what_names_no_single_value(path, reason):
    with pytest.raises(PathError) as raised:
        resolve(PAYLOAD, path)

    assert raised.value.reason == reason
    assert str(raised.value)


def test_it_refuses_a_path_that_is_not_a_string():
    with pytest.raises(PathError) as raised:
        resolve(PAYLOAD, None)  # type: ignore[arg-type]

    assert raised.value.reason == "syntax"


def test_it_formats_identifiers_with_dots_and_other_keys_in_brackets():
    assert format_path("$", "records", 3, "message") == "$.records[3].message"
    assert format_path("$.records[1]", "http.status") == '$.records[1]["http.status"]'
    assert format_path("$", "空", 0) == '$["空"][0]'


@pytest.mark.parametrize(
    "segments", [("records", 1, "http.status"), ("rows", 1, 0), ("空",), ("records", 0, "message")]
)
def test_it_resolves_every_path_it_formats(segments):
    value = PAYLOAD
    for segment in segments:
        value = value[segment]

    assert resolve(PAYLOAD, format_path("$", *segments)) == value
