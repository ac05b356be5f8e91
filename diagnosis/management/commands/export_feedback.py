"""``manage.py export_feedback --wrong [--into PACK]``: the runs users marked wrong, as evaluation questions.

Without ``--into`` the stubs are printed as ``{"questions": [...]}`` to paste into a pack's ``scenario.json``;
with it they are added to that pack (its own questions kept, questions it already asks skipped). Exit 2 on
bad arguments or an invalid pack, with nothing written. See ``diagnosis.feedback.export``.
"""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from config.commands import StderrMayFail, require_migrated
from diagnosis.feedback.export import add_stubs_to_pack, wrong_question_stubs
from tools.scenarios.pack import PackError, resolve_pack


class Command(StderrMayFail):
    help = (
        "Export the runs marked wrong (👎) as question stubs of an evaluation pack: printed as JSON, or added to "
        "the pack given by --into. Fill in each stub's expect_keywords, then run manage.py evaluate on the pack."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--wrong", action="store_true", help="Export the runs rated DOWN (wrong).")
        parser.add_argument(
            "--into",
            metavar="PACK",
            help="A scenario pack (a shipped pack's name or a folder) whose scenario.json receives the stubs.",
        )

    def handle(self, *args, wrong: bool, into: str | None, **options) -> None:
        if not wrong:
            raise CommandError("say which runs to export: --wrong (the runs rated DOWN)", returncode=2)
        try:  # named as load_scenario and evaluate name packs; "" is the current folder, not "no --into"
            pack = resolve_pack(into) if into is not None else None
        except PackError as error:
            raise CommandError(str(error), returncode=2) from None
        if pack is not None and not (pack / "scenario.json").is_file():
            raise CommandError(f"{pack}: not a scenario pack (no scenario.json in it)", returncode=2)
        require_migrated()
        stubs = wrong_question_stubs()
        if pack is None:
            self.stdout.write(json.dumps({"questions": stubs}, ensure_ascii=False, indent=2))
            self.stderr.write(f"{len(stubs)} question stub(s) from runs marked wrong")
            return
        try:
            added, present = add_stubs_to_pack(pack, stubs)
        except PackError as error:
            raise CommandError(str(error), returncode=2) from None
        except OSError as error:  # the pack's folder cannot be written: the manifest is left as it was
            raise CommandError(f"{pack}: cannot be written: {error.strerror or error}", returncode=2) from None
        self.stderr.write(
            f"{pack / 'scenario.json'}: added {added} question stub(s); {present} already asked. "
            "Fill in their expect_keywords before evaluating."
        )
