"""What the benches share: a private Django set-up, the pack they load, and the percentiles they print.

Every bench builds its own database in a temporary ``VAR_DIR`` (SQLite unless told otherwise), so it never
touches the demo's data, and prints p50/p95 (the p95 of a handful of samples is the largest but one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Mapping, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACK = "payment-db-pool"

#: The environment of a bench process and of the servers and workers it starts.
BENCH_ENV = {
    "DEBUG": "false",
    "SECURE_HTTPS": "false",
    "LLM_PROVIDER": "offline",
    "LOG_LEVEL": "error",
    "SECRET_KEY": "bench-only-secret-key-0123456789-0123456789-0123456789-abcdef",
    # A bench's one user asks many questions at once (idle streams, concurrent posts): no per-user limit.
    "RUN_MAX_ACTIVE_PER_USER": "1000",
}


#: What a bench keeps of its caller's environment: where programs and home are, the locale. Nothing that
#: configures the project: a shell holding production's exports must not point a bench's scenario loads at
#: production's Loki or business database, nor its runs at a hosted model.
KEPT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def bench_env(var_dir: str, **overrides: str) -> dict[str, str]:
    """``os.environ`` for a bench: embedded (no DATABASE_URL, REDIS_URL) unless ``overrides`` say otherwise."""
    env = {key: os.environ[key] for key in KEPT if key in os.environ}
    env.update(BENCH_ENV, VAR_DIR=var_dir, DJANGO_SETTINGS_MODULE="config.settings", **overrides)
    return env


def setup_django(var_dir: str, **overrides: str) -> None:
    """Configure this process with ``bench_env`` (and only it) and set Django up."""
    sys.path.insert(0, str(ROOT))
    env = bench_env(var_dir, **overrides)
    os.environ.clear()
    os.environ.update(env)
    import django

    django.setup()


def add_pack_argument(parser: argparse.ArgumentParser) -> None:
    """``--pack``, one of the shipped packs: a wrong name is a usage error before any database is made."""
    from tools.scenarios.pack import shipped_pack_names  # no Django set-up needed to list them

    parser.add_argument(
        "--pack",
        default=DEFAULT_PACK,
        choices=shipped_pack_names(),
        help=f"shipped pack to load (default {DEFAULT_PACK})",
    )


def questions(pack: str) -> list[str]:
    manifest = json.loads((ROOT / "tools" / "scenarios" / "packs" / pack / "scenario.json").read_text())
    return [question["text"] for question in manifest["questions"]]


def prepare(pack: str, username: str = "bench") -> Any:
    """Migrate the private database, load the pack, and return the user who asks the questions."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_scenario", pack, stdout=StringIO())
    return get_user_model().objects.create_user(username)


def sizes(text: str) -> list[int]:
    """Comma-separated sizes (``10000,100000``), sorted, each at least 1; an ``argparse`` type."""
    try:
        values = sorted({int(size) for size in text.split(",") if size.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError("must be comma-separated whole numbers") from None
    if any(size < 1 for size in values):
        raise argparse.ArgumentTypeError("each size must be at least 1")
    return values


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], widths: Mapping[int, int] | None = None) -> str:
    """A plain-text table: the first column left-aligned, the others right-aligned."""
    cells = [[str(value) for value in row] for row in [header, *rows]]
    sizes = [max(len(row[i]) for row in cells) + 2 for i in range(len(header))]
    for index, width in (widths or {}).items():
        sizes[index] = max(sizes[index], width)
    lines = ["".join(c.ljust(sizes[0]) if i == 0 else c.rjust(sizes[i]) for i, c in enumerate(row)) for row in cells]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])
