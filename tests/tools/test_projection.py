"""Projection helpers: clipped strings and listings within a character budget."""

from __future__ import annotations

from tools.projection import TEXT_MAX_CHARS, cited_item, clip, listing, size_of, within_budget


def test_it_clips_long_strings_and_marks_the_cut():
    assert clip("abcdef", 4) == "abc…"
    assert clip("abcd", 4) == "abcd"
    assert clip(12345, 2) == 12345


def test_it_clips_at_a_space_near_the_limit_so_that_what_a_model_cites_cuts_no_word():
    message = "Connection is not available, request timed out after 30000ms"

    assert clip(message, 40) == "Connection is not available, request…"
    assert clip("x" * 50, 40) == "x" * 39 + "…"  # no space near the limit: cut where it falls
    assert clip("Connection is not available", 20) == "Connection is not…"


def test_an_item_shows_its_path_first_and_every_string_clipped():
    item = {"message": "x" * (TEXT_MAX_CHARS + 10), "level": "ERROR", "n": 1}

    assert cited_item("$.records[0].message", item) == {
        "raw_path": "$.records[0].message",
        "message": "x" * (TEXT_MAX_CHARS - 1) + "…",
        "level": "ERROR",
        "n": 1,
    }


def test_a_field_named_raw_path_does_not_replace_the_path_an_item_is_cited_by():
    """Anyone who writes logs names their labels: one called raw_path must not point the model elsewhere."""
    view = cited_item("$.records[0].message", {"message": "attacker line", "raw_path": "$.records[1].message"})

    assert view == {"raw_path": "$.records[0].message", "message": "attacker line"}


def test_it_keeps_leading_items_within_the_budget():
    items = [{"value": "x" * 10} for _ in range(20)]

    kept, omitted = within_budget(items, 100, dict)

    assert kept == items[: len(kept)]
    assert sum(size_of(item) + 1 for item in kept) <= 100
    assert omitted == 20 - len(kept) > 0


def test_it_never_lets_a_later_small_item_jump_the_queue():
    kept, omitted = within_budget([{"v": "small"}, {"v": "x" * 500}, {"v": "tiny"}], 100, dict)

    assert (kept, omitted) == ([{"v": "small"}], 2)


def test_it_notes_omitted_items_only_when_there_are_some():
    assert listing("rows", [{"a": 1}], 100, dict) == {"rows": [{"a": 1}]}

    view = listing("rows", [{"a": "x" * 80}] * 3, 100, dict)

    assert view["omitted"] == 2
    assert "2 more rows" in view["note"]


def test_it_views_only_the_items_it_shows_and_the_first_it_leaves_out():
    viewed = []

    def view(number: int) -> dict:
        viewed.append(number)
        return {"n": number, "text": "x" * 30}

    kept, omitted = within_budget(range(100), 200, view)

    assert [item["n"] for item in kept] == list(range(len(kept)))
    assert omitted == 100 - len(kept) > 0
    assert viewed == list(range(len(kept) + 1))
