"""Chunking: heading sections with their paths, the size cap, the overlap, and what is not a heading."""

from __future__ import annotations

import itertools

from tools.knowledge.chunking import (
    MAX_CHUNK_CHARS,
    MAX_HEADING_CHARS,
    OVERLAP_CHARS,
    chunk_markdown,
    chunk_plain_text,
    split_text,
)

RUNBOOK = """# Payment DB pool runbook

Applies to payment-service.

## Symptoms

HikariPool-1 - Connection is not available.

## Mitigation

### Roll back

Roll back the last deploy.

### Raise the pool

Set maximumPoolSize to 40.

## Escalation

Page the DBA on call.
"""


def test_it_takes_the_first_heading_as_the_title():
    assert chunk_markdown(RUNBOOK, fallback_title="file").title == "Payment DB pool runbook"


def test_it_makes_one_chunk_per_section_with_its_heading_path():
    chunks = chunk_markdown(RUNBOOK, fallback_title="file").chunks
    assert [(chunk.heading, chunk.text) for chunk in chunks] == [
        ("Payment DB pool runbook", "Applies to payment-service."),
        ("Payment DB pool runbook > Symptoms", "HikariPool-1 - Connection is not available."),
        ("Payment DB pool runbook > Mitigation > Roll back", "Roll back the last deploy."),
        ("Payment DB pool runbook > Mitigation > Raise the pool", "Set maximumPoolSize to 40."),
        ("Payment DB pool runbook > Escalation", "Page the DBA on call."),
    ]


def test_it_ignores_hashes_inside_code_fences():
    document = "# Title\n\n```bash\n# restart the pool\nkubectl rollout restart\n```\n"
    chunks = chunk_markdown(document, fallback_title="file").chunks
    assert len(chunks) == 1
    assert "# restart the pool" in chunks[0].text


def test_it_reads_setext_headings():
    document = "Cache runbook\n=============\n\nEvictions\n---------\n\nWatch evicted_keys.\n"
    chunks = chunk_markdown(document, fallback_title="f").chunks
    assert [(chunk.heading, chunk.text) for chunk in chunks] == [("Cache runbook > Evictions", "Watch evicted_keys.")]


def test_it_keeps_text_before_the_title_under_the_title():
    chunks = chunk_markdown("Owner: SRE\n\n# Title\n\nBody.\n", fallback_title="file").chunks
    assert [(chunk.heading, chunk.text) for chunk in chunks] == [("Title", "Owner: SRE"), ("Title", "Body.")]


def test_it_uses_the_fallback_title_without_headings():
    document = chunk_markdown("Just a note about kafka disks.", fallback_title="kafka-notes")
    assert document.title == "kafka-notes"
    assert [chunk.heading for chunk in document.chunks] == ["kafka-notes"]


def test_it_treats_plain_text_hashes_as_text():
    document = chunk_plain_text("# not a heading in a .txt\nline two", fallback_title="notes")
    assert document.title == "notes"
    assert document.chunks[0].text == "# not a heading in a .txt\nline two"


def test_it_makes_no_chunk_for_headings_without_text():
    assert chunk_markdown("# Title\n\n## Empty\n\n### Also empty\n", fallback_title="f").chunks == []


def test_it_clips_long_heading_paths():
    chunks = chunk_markdown(f"# {'t' * 400}\n\nbody\n", fallback_title="f").chunks
    assert len(chunks[0].heading) == MAX_HEADING_CHARS
    assert chunks[0].heading.endswith("…")


def test_it_cuts_a_long_section_at_paragraphs_under_the_cap():
    paragraphs = [f"Paragraph {n} " + "word " * 60 for n in range(12)]
    pieces = split_text("\n\n".join(paragraphs))
    assert len(pieces) > 1
    assert all(len(piece) <= MAX_CHUNK_CHARS for piece in pieces)
    assert all(piece.startswith("Paragraph") for piece in pieces)  # cut at blank lines, never mid-paragraph
    assert all(paragraph.strip() in "\n".join(pieces) for paragraph in paragraphs)


def test_it_overlaps_consecutive_pieces_of_one_section():
    sentences = [f"Step {n} restarts consumer group {n}." for n in range(120)]
    pieces = split_text(" ".join(sentences))
    assert len(pieces) > 1
    for before, after in itertools.pairwise(pieces):
        first_sentence = after.split(". ")[0] + "."
        assert first_sentence in before  # the next piece starts inside the previous one, at a sentence
        assert len(first_sentence) <= OVERLAP_CHARS


def test_it_hard_cuts_unpunctuated_chinese_at_the_cap():
    text = "磁盘写满导致消息堆积" * 300
    pieces = split_text(text)
    step = MAX_CHUNK_CHARS - OVERLAP_CHARS
    assert [len(piece) for piece in pieces] == [MAX_CHUNK_CHARS, MAX_CHUNK_CHARS, len(text) - 2 * step]
    assert pieces[1].startswith(pieces[0][-OVERLAP_CHARS:])


def test_it_normalises_windows_line_endings():
    chunks = chunk_markdown("# Title\r\n\r\n## Part\r\n\r\nText.\r\n", fallback_title="f").chunks
    assert [(chunk.heading, chunk.text) for chunk in chunks] == [("Title > Part", "Text.")]


def test_a_long_section_is_cut_before_a_code_block_rather_than_inside_it():
    """A piece that starts inside a fence holds commands without their fence and language."""
    prose = "Intro line about the pool.\n\n" + "Some prose sentence here. " * 30 + "\n\n"
    code = "```bash\n" + "\n\n".join(f"kubectl rollout undo deploy/payment-{index}" for index in range(30)) + "\n```\n"

    chunks = chunk_markdown("# T\n\n## S\n\n" + prose + code, fallback_title="t").chunks

    assert len(chunks) > 1 and all(len(chunk.text) <= MAX_CHUNK_CHARS for chunk in chunks)
    assert chunks[0].text.count("```") == 0 and chunks[1].text.startswith("```bash")


def test_a_block_longer_than_a_piece_is_still_cut_inside():
    code = "```\n" + "\n".join(f"line {index} of a long listing" for index in range(100)) + "\n```"

    pieces = split_text(code)

    assert len(pieces) > 1 and all(len(piece) <= MAX_CHUNK_CHARS for piece in pieces)


def test_the_next_piece_starts_after_a_code_block_the_last_one_held_whole():
    """The overlap walks back from a piece's end: not into a block that piece held, fence and all."""
    intro = " ".join(["Check the pool before restarting anything."] * 16)
    fence = "```bash\n" + "".join(f"kubectl rollout restart deploy/order-{index}\n" for index in range(8)) + "```"
    after = " ".join(["Then watch the error rate for ten minutes."] * 14)

    pieces = split_text(intro + "\n\n" + fence + "\n\n" + after)

    assert pieces[0].endswith("```")
    assert all("kubectl" not in piece for piece in pieces[1:])
