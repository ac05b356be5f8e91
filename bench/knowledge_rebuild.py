"""A new process's first search after uploads: its index built from the chunks' stored terms, against
tokenising every chunk itself (what a process did before the terms were stored at ingest, and still does for
chunks whose stored terms another tokeniser computed).

Uploads of 1 MB of Chinese each (``KNOWLEDGE_MAX_UPLOAD_BYTES``, sentences of random common characters: the
hard case for jieba, which finds few dictionary words in them) go through ``ingest_document`` on a
throw-away SQLite database; then at each size a fresh interpreter (a new worker) runs one
``search_knowledge`` of a Chinese query, timed from the call (jieba's dictionary, which the query needs
too, loaded within it), once from the stored terms and once with every chunk's terms marked stale.

    .venv/bin/python bench/knowledge_rebuild.py [--megabytes 1,3] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script: make the project root importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.embedded import bench_env, setup_django, sizes, table

MEGABYTE = 1_000_000
QUERY = "连接池 耗尽 怎么 处理"
# Common characters, in no dictionary order: jieba's hard case (its HMM guesses the words).
HAN = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法"
    "所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政"
)


def document(number: int, rng: random.Random) -> str:
    """About a megabyte of markdown: sentences of 8 to 40 characters, a heading every fifty or so."""
    parts = [f"# 手册 {number}\n\n"]
    size = 0
    while size < MEGABYTE:
        sentence = "".join(rng.choice(HAN) for _ in range(rng.randint(8, 40))) + "。"
        parts.append(sentence)
        size += len(sentence.encode())
        if rng.random() < 0.02:
            parts.append(f"\n\n## 小节 {size}\n\n")
    return "".join(parts)


def first_search_seconds(var_dir: str) -> float:
    """One search in a fresh interpreter on the database in ``var_dir``: its seconds."""
    command = [sys.executable, __file__, "--first-search-in", var_dir]
    result = subprocess.run(command, capture_output=True, text=True, check=True, env=bench_env(var_dir))
    return float(result.stdout.split()[-1])


def first_search(var_dir: str) -> None:
    setup_django(var_dir)
    from tools.knowledge.search import search_knowledge  # imported as a worker's start imports it

    started = time.perf_counter()
    search_knowledge(QUERY, top_k=5)
    print(f"{time.perf_counter() - started:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=sizes, default=[1, 3], help="knowledge base sizes in MB (1,3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated text")
    parser.add_argument("--first-search-in", metavar="VAR_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_search_in:  # the fresh interpreter of first_search_seconds
        first_search(args.first_search_in)
        return 0
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir:
        setup_django(var_dir)
        from django.core.management import call_command

        from tools.knowledge.ingest import ingest_document
        from tools.knowledge.tokenize import TERMS_VERSION
        from tools.models import DocumentSource, KnowledgeChunk

        call_command("migrate", verbosity=0)
        rng = random.Random(args.seed)
        rows: list[tuple[object, ...]] = []
        uploads: list[float] = []  # seconds per upload
        for megabytes in args.megabytes:
            while len(uploads) < megabytes:
                content = document(len(uploads), rng)
                started = time.perf_counter()
                ingest_document(
                    title_hint="", filename=f"{len(uploads)}.md", content=content, source=DocumentSource.UPLOAD
                )
                uploads.append(time.perf_counter() - started)
            stored = first_search_seconds(var_dir)
            KnowledgeChunk.objects.update(terms_version="stale")
            tokenising = first_search_seconds(var_dir)
            KnowledgeChunk.objects.update(terms_version=TERMS_VERSION)
            rows.append(
                (
                    megabytes,
                    KnowledgeChunk.objects.count(),
                    f"{stored:.2f}",
                    f"{tokenising:.2f}",
                    f"{tokenising / stored:.1f}x",
                )
            )
        print(
            f"uploads of 1 MB of Chinese: {min(uploads):.2f} to {max(uploads):.2f} s each (chunking and tokenising included)"
        )
        print(
            table(
                ["MB of knowledge", "chunks", "first search s, stored terms", "tokenising s", "tokenising / stored"],
                rows,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
