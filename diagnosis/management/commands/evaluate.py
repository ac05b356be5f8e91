"""``manage.py evaluate PACK_OR_DIR…``: the eval harness — ask every question of every pack, score the answers.

Each pack is loaded by the service ``load_scenario`` uses, then each question of its ``scenario.json`` runs
through the same path as ``manage.py diagnose`` (intent router, run task, graph, in this process). A cause is
named when the run neither FAILED nor degraded (the safe fallback concludes nothing) and every
``expect_keywords`` entry occurs in the answer's lead (``lead``: where the composer's contract puts the cause),
case-insensitively; a how-to answer is scored whole. A keyword found only in the evidence listed further down
is a miss, so an answer that blames the wrong thing cannot score on the right thing's quoted log lines. All arguments —
packs, their questions, the provider — are checked before the first pack is loaded, so a bad argument
(exit 2) leaves the loaded scenario as it was. Exit 0: every cause named and no run FAILED; 1 otherwise.
The last pack evaluated stays loaded.
"""

from __future__ import annotations

import json
import time
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

import MySQLdb
from django.conf import settings
from django.core.management.base import CommandError
from markdown_it import MarkdownIt
from markdown_it.token import Token

from config.commands import StderrMayFail, database_failures, require_migrated
from diagnosis.management.commands.diagnose import (
    add_provider_arguments,
    checked_provider,
    released_claim_ids,
    run_question,
)
from diagnosis.models import Intent, RunStatus
from diagnosis.submission import SubmissionError, checked_message
from tools.scenarios.loader import load_scenario
from tools.scenarios.pack import PackError, ScenarioPack, read_pack, resolve_pack

MANIFEST = "scenario.json"
# Display columns of the question text in the table (a CJK character takes two).
QUESTION_COLUMNS = 48
COLUMNS = ("pack", "#", "question", "cause named", "degraded", "claims released", "ms")


@dataclass(frozen=True)
class QuestionResult:
    pack: str
    question: str
    cause_named: bool
    missing_keywords: list[str]
    keywords_further_down: list[str]
    degraded: bool
    status: str
    released_claim_ids: list[str]
    ms: int
    run_id: str


def pack_folders(argument: str) -> list[Path]:
    """A pack named or at a path, or every pack folder (one holding ``scenario.json``) of a folder, sorted."""
    path = resolve_pack(argument)
    if (path / MANIFEST).is_file():
        return [path]
    try:
        folders = sorted(child for child in path.iterdir() if (child / MANIFEST).is_file())
    except OSError as error:
        raise PackError(path, None, f"cannot be read: {error.strerror or error}") from None
    if not folders:
        raise PackError(path, None, f"neither a pack nor a folder of packs (no {MANIFEST} in it or its subfolders)")
    return folders


_markdown = MarkdownIt("commonmark")
_LISTS = ("bullet_list_open", "ordered_list_open")
# Blocks that say nothing a reader reads as the answer: a rule, an HTML comment, code.
_NO_PROSE = ("heading_open", "hr", "html_block", "fence", "code_block")


def lead(answer: str) -> str:
    """The part of an answer that must name the cause: with two headings or more, everything up to the end of
    the first section that has a body (a title alone, ``# Incident report`` before ``## Root cause``, has
    none); else its first block after a heading (a list's first item).

    The composer's contract is "cause first", then the chain, the evidence and the next steps; scoring the
    whole answer let an answer that blamed a distractor score on the root cause's log lines quoted in its
    evidence list. Headings and blocks are read as CommonMark reads them (``Title`` over ``====`` is one).
    """
    lines = answer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # The opening token of every top-level block (a closing token has no line span).
    blocks = [token for token in _markdown.parse("\n".join(lines)) if token.level == 0 and token.map]
    headings = [index for index, token in enumerate(blocks) if token.type == "heading_open"]
    if len(headings) >= 2:
        for heading, after in zip(headings, [*headings[1:], len(blocks)], strict=True):
            if after > heading + 1:  # the section has a body
                return _lines(lines, 0, _span(blocks[after - 1])[1])
    body = [token for token in blocks if token.type not in _NO_PROSE]
    if not body:
        return ""
    first = body[0]
    start, end = _span(first)
    if first.type == "paragraph_open" and len(body) > 1 and body[1].type in _LISTS and _span(body[1])[0] == end:
        # "**Root cause:**" with its list right under it: the label and what it labels.
        return f"{_lines(lines, start, end)}\n{_first_item(lines, body[1])}"
    if first.type in _LISTS:
        return _first_item(lines, first)
    return _lines(lines, start, end)


def _first_item(lines: list[str], list_open: Token) -> str:
    start, end = _span(list_open)
    items = [token for token in _markdown.parse(_lines(lines, start, end)) if token.type == "list_item_open"]
    if not items:
        return _lines(lines, start, end)
    item_start, item_end = _span(items[0])
    return _lines(lines, start + item_start, start + item_end)


def _span(token: Token) -> tuple[int, int]:
    assert token.map is not None
    return token.map[0], token.map[1]


def _lines(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start:end]).strip()


def missing_keywords(answer: str, keywords: list[str]) -> list[str]:
    lowered = answer.lower()
    return [keyword for keyword in keywords if keyword.lower() not in lowered]


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(character) in "WF" else 1 for character in text)


def _truncated(text: str, columns: int) -> str:
    """``text`` on one line, cut to ``columns`` display columns with an ellipsis."""
    text = " ".join(text.split())
    if _width(text) <= columns:
        return text
    kept = ""
    for character in text:
        if _width(kept + character) > columns - 1:
            break
        kept += character
    return kept + "…"


def _padded(text: str, columns: int) -> str:
    return text + " " * (columns - _width(text))


def _cause_cell(result: QuestionResult) -> str:
    if result.status != RunStatus.SUCCESS:
        return f"NO ({result.status})"
    if result.cause_named:
        return "yes"
    if result.degraded:
        return "NO (degraded: the safe fallback names no cause)"
    if not result.missing_keywords:
        return "NO (no expect_keywords to score by)"
    absent = [keyword for keyword in result.missing_keywords if keyword not in result.keywords_further_down]
    reasons = [f"missing: {', '.join(absent)}"] if absent else []
    if result.keywords_further_down:
        reasons.append(f"not in the lead, only further down: {', '.join(result.keywords_further_down)}")
    return f"NO ({'; '.join(reasons)})"


def table(results: list[QuestionResult], numbers: list[int]) -> list[str]:
    rows = [
        [
            result.pack,
            str(number),
            _truncated(result.question, QUESTION_COLUMNS),
            _cause_cell(result),
            "yes" if result.degraded else "no",
            str(len(result.released_claim_ids)),
            str(result.ms),
        ]
        for number, result in zip(numbers, results, strict=True)
    ]
    widths = [max(_width(row[i]) for row in [list(COLUMNS), *rows]) for i in range(len(COLUMNS))]
    return [
        "  ".join(_padded(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [list(COLUMNS), ["-" * width for width in widths], *rows]
    ]


class Command(StderrMayFail):
    help = (
        "Load each scenario pack, ask each question of its scenario.json through the diagnosis path, and "
        "report whether the final answer names the cause (all expect_keywords in its lead, the first section). Exit code 1 on any "
        "miss or FAILED run, 2 on bad arguments. The last pack evaluated stays loaded."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "packs",
            nargs="+",
            metavar="PACK_OR_DIR",
            help="A shipped pack's name, a pack folder, or a folder whose subfolders are packs.",
        )
        add_provider_arguments(parser)
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print the results as JSON.")

    def handle(
        self, *args, packs: list[str], provider: str | None, script: str | None, as_json: bool, **options
    ) -> None:
        provider = checked_provider(provider, script)
        checked = self._read_packs(packs)
        total = sum(len(pack.manifest["questions"]) for pack in checked)
        if not total:
            raise CommandError("the packs hold no questions", returncode=2)
        require_migrated()
        results: list[QuestionResult] = []
        numbers: list[int] = []
        for pack_number, pack in enumerate(checked, start=1):
            self._load(pack, f"[pack {pack_number}/{len(checked)}] {pack.name}")
            questions = pack.manifest["questions"]
            for number, question in enumerate(questions, start=1):
                self.stderr.write(
                    f"[pack {pack_number}/{len(checked)} question {number}/{len(questions)}] {pack.name}: "
                    f"{_truncated(question['text'], QUESTION_COLUMNS)}"
                )
                results.append(self._ask(pack.name, question, provider=provider, script=script))
                numbers.append(number)
        summary = {
            "questions": len(results),
            "cause_named": sum(result.cause_named for result in results),
            "degraded": sum(result.degraded for result in results),
            "failed": sum(result.status != RunStatus.SUCCESS for result in results),
        }
        if as_json:
            document = {"results": [asdict(result) for result in results], "summary": summary}
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
        else:
            self.stdout.write("\n".join(table(results, numbers)))
            self.stdout.write(
                f"\n{summary['cause_named']}/{summary['questions']} causes named, {summary['degraded']} degraded, "
                f"{summary['failed']} failed"
            )
        if summary["cause_named"] < summary["questions"] or summary["failed"]:
            raise SystemExit(1)

    def _read_packs(self, arguments: list[str]) -> list[ScenarioPack]:
        """Every pack read and validated, and every question accepted as a chat message, before any is loaded."""
        packs: list[ScenarioPack] = []
        try:
            for argument in arguments:
                packs.extend(read_pack(folder) for folder in pack_folders(argument))
        except PackError as error:
            raise CommandError(str(error), returncode=2) from None
        except KeyboardInterrupt:
            raise CommandError("interrupted while reading the packs: nothing was loaded", returncode=130) from None
        for pack in packs:
            for number, question in enumerate(pack.manifest["questions"], start=1):
                try:
                    checked_message(question["text"])
                except SubmissionError as error:
                    raise CommandError(
                        f"{pack.root / MANIFEST}: question {number}: {error.message}", returncode=2
                    ) from None
        return packs

    def _load(self, pack: ScenarioPack, label: str) -> None:
        self.stderr.write(f"{label}: loading {pack.root}")
        try:
            with database_failures(f"while loading {pack.root}: the loaded scenario is as it was"):
                load_scenario(pack.root, mysql_admin_url=settings.BUSINESS_ADMIN_DATABASE_URL)
        except PackError as error:  # changed on disk since it was read
            raise CommandError(str(error), returncode=2) from None
        except MySQLdb.Error as error:
            raise CommandError(f"cannot load the business tables into MySQL: {error}") from None
        except KeyboardInterrupt:  # the load is one transaction: the scenario loaded before stays
            raise CommandError(
                f"interrupted while loading {pack.root}: the loaded scenario is as it was", returncode=130
            ) from None

    def _ask(self, pack: str, question: dict, *, provider: str | None, script: str | None) -> QuestionResult:
        started = time.monotonic()
        run = run_question(question["text"], provider=provider, script=script)
        ms = round((time.monotonic() - started) * 1000)
        answer = run.final_answer or ""
        # A how-to answer quotes the knowledge base: the whole of it is the answer.
        scored = answer if run.intent == Intent.KNOWLEDGE_QUERY else lead(answer)
        missing = missing_keywords(scored, question["expect_keywords"])
        return QuestionResult(
            pack=pack,
            question=question["text"],
            # A FAILED run has no answer of its own to score, nor a degraded one a cause (the safe fallback lists
            # verified findings and concludes nothing); nor has a question without keywords (a stub written by
            # export_feedback) anything to score by, until someone fills them in.
            cause_named=run.status == RunStatus.SUCCESS
            and not run.degraded
            and bool(question["expect_keywords"])
            and not missing,
            missing_keywords=missing,
            keywords_further_down=[keyword for keyword in missing if keyword.lower() in answer.lower()],
            degraded=run.degraded,
            status=run.status,
            released_claim_ids=released_claim_ids(run),
            ms=ms,
            run_id=str(run.pk),
        )
