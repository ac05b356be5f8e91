"""``manage.py store_knowledge_terms``: store the search terms of chunks stored without current ones."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from config.commands import require_migrated
from tools.knowledge.ingest import store_current_terms


class Command(BaseCommand):
    help = (
        "Tokenise and store the search terms of every knowledge chunk stored without the current tokeniser's "
        "(ingested before terms were stored, or before an upgrade that changed the tokeniser), so that no "
        "process tokenises them at its first search. Safe to interrupt and run again."
    )

    def handle(self, *args, **options) -> None:
        require_migrated()
        try:
            stored = store_current_terms(progress=lambda done, total: self.stdout.write(f"{done}/{total} chunks"))
        except KeyboardInterrupt:
            raise CommandError(
                "interrupted: the chunks stored so far keep their terms; run again for the rest", returncode=130
            ) from None
        self.stdout.write(f"stored the terms of {stored} chunks" if stored else "every chunk's terms are current")
