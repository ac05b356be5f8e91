"""``manage.py store_knowledge_terms``: store the search terms of chunks stored without current ones."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from config.commands import require_migrated
from tools.knowledge.ingest import store_current_terms
from tools.knowledge.tokenize import TERMS_VERSION, UNDATED_PREFIX


class Command(BaseCommand):
    help = (
        "Tokenise and store the search terms of every knowledge chunk stored without the current tokeniser's "
        "(ingested before terms were stored, or before an upgrade that changed the tokeniser), so that no "
        "process tokenises them at its first search. Safe to interrupt and run again."
    )

    def handle(self, *args, **options) -> None:
        if UNDATED_PREFIX in TERMS_VERSION:  # its last part, the source digest, says so
            raise CommandError(
                "tools/knowledge/tokenize.py cannot be read (a deployment without sources): terms stored by this "
                "process would be trusted by no other; run the command where the sources are"
            )
        require_migrated()
        done = 0

        def progress(stored: int, total: int) -> None:
            nonlocal done
            done = stored
            self.stdout.write(f"{stored}/{total} chunks")

        try:
            stored = store_current_terms(progress=progress)
        except KeyboardInterrupt:
            raise CommandError(
                f"interrupted: the {done} chunks stored so far keep their terms; run again for the rest", returncode=130
            ) from None
        except DatabaseError as error:
            raise CommandError(
                f"the database failed ({error}): the {done} chunks stored so far keep their terms; run again"
            ) from None
        self.stdout.write(f"stored the terms of {stored} chunks" if stored else "every chunk's terms are current")
