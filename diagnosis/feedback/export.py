"""Runs marked wrong as question stubs of an evaluation pack (``manage.py export_feedback --wrong``).

A stub is a question in the pack format (``{"text", "expect_keywords"}``, README "writing a pack") whose
``expect_keywords`` are empty: what a right answer must name is for a person to decide, from the comment
and the evidence; ``evaluate`` scores a question without keywords as not named, so a stub cannot pass
unnoticed. The extra ``feedback`` key (packs keep extra keys) says where the question came from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from config.files import staging_file
from diagnosis.feedback.selectors import wrong_runs_feedback
from tools.scenarios.pack import read_pack

MANIFEST = "scenario.json"
#: How much of the wrong answer a stub quotes, for the person writing its keywords.
ANSWER_EXCERPT_CHARS = 300


def wrong_question_stubs() -> list[dict[str, Any]]:
    """One stub per distinct question marked wrong, oldest feedback first; a repeated question lists every run."""
    stubs: dict[str, dict[str, Any]] = {}
    for feedback in wrong_runs_feedback():
        run = feedback.run
        stub = stubs.setdefault(run.query, {"text": run.query, "expect_keywords": [], "feedback": []})
        stub["feedback"].append(
            {
                "run_id": str(run.pk),
                "user": feedback.user.get_username(),
                "comment": feedback.comment,
                "answer_excerpt": (run.conclusion or run.final_answer)[:ANSWER_EXCERPT_CHARS],
                "rated_at": feedback.updated_at.isoformat(),
            }
        )
    return list(stubs.values())


def add_stubs_to_pack(pack: Path, stubs: list[dict[str, Any]]) -> tuple[int, int]:
    """Append the stubs whose text the pack does not ask yet; (added, already there).

    The pack is read and validated first (``PackError`` if it is not a valid pack), and its ``scenario.json``
    is replaced in one rename: an interrupted export leaves the old file whole, never half a file.
    """
    read_pack(pack)
    path = pack / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8-sig"))
    asked = {question["text"] for question in manifest["questions"]}
    new = [stub for stub in stubs if stub["text"] not in asked]
    if new:
        manifest["questions"].extend(new)
        _replace(path, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return len(new), len(stubs) - len(new)


def _replace(path: Path, text: str) -> None:
    temporary = staging_file(path, prefix=f".{path.name}.", suffix=".tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
