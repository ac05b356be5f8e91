"""Screenshots of the chat page, the knowledge page and the admin run page, in English and in Chinese, for
docs/screenshots/.

Starts its own embedded server (a throw-away SQLite database, the offline provider, in-process runs) on a
free loopback port with the demo pack loaded, then drives Debian's Chromium through the browser tests'
own steps (``tests/support/browser.py``, ``tests/support/live.py``): sign in as a staff user, ask the
demo question in each language (the browser sending ``Accept-Language``), wait for the answer, its
figures and its feedback form, and save the chat page, the knowledge page and that run's admin page. Needs
the dev requirements (Playwright) and ``scripts/system-deps.sh browser``.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: (file suffix, Accept-Language, question): the demo question, and its Chinese counterpart from the README.
LANGUAGES = [
    ("en", "en-US,en;q=0.9", "payment-service p99 latency tripled since 10:05, why?"),
    ("zh-hans", "zh-CN,zh;q=0.9", "支付服务最近很慢，帮我看看是什么原因"),
]
ANSWER_TIMEOUT_MS = 120_000


def _setup_django(var_dir: str) -> None:
    """A private database under ``var_dir``: the screenshots never touch the demo's data."""
    sys.path.insert(0, str(ROOT))
    os.environ.update({"VAR_DIR": var_dir, "DEBUG": "true", "LLM_PROVIDER": "offline", "LOG_LEVEL": "error"})
    for name in ("DATABASE_URL", "REDIS_URL", "RUN_EXECUTION"):
        os.environ.pop(name, None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()


def take(out: Path) -> list[Path]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from tests.support.browser import PASSWORD, USERNAME, chromium, send, signed_in_page
    from tests.support.live import process_env, uvicorn_server

    call_command("migrate", verbosity=0)
    call_command("load_scenario", "payment-db-pool", verbosity=0)
    get_user_model().objects.create_superuser(USERNAME, password=PASSWORD)
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with uvicorn_server(process_env()) as server, chromium() as browser:
        for suffix, accept_language, question in LANGUAGES:
            page = signed_in_page(browser, server.base, accept_language=accept_language, height=1000)
            send(page, question)
            page.wait_for_selector(".run:not(.live) figure.metric-claim svg.sparkline", timeout=ANSWER_TIMEOUT_MS)
            page.wait_for_selector(".run form.feedback", timeout=ANSWER_TIMEOUT_MS)
            page.evaluate("window.scrollTo(0, 0)")
            saved.append(out / f"chat-{suffix}.png")
            page.screenshot(path=saved[-1])
            run_id = page.get_attribute(".run", "data-run")

            page.goto(f"{server.base}/knowledge/")
            saved.append(out / f"knowledge-{suffix}.png")
            page.screenshot(path=saved[-1])

            page.goto(f"{server.base}/admin/diagnosis/diagnosisrun/{run_id}/change/")
            # From the transitions down: the run's route in a table, then its answer's figures.
            page.evaluate("document.querySelector('.field-transitions').scrollIntoView()")
            saved.append(out / f"admin-run-{suffix}.png")
            page.screenshot(path=saved[-1])
            page.context.close()
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="folder for the PNG files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="superbiz-screenshots-") as var_dir:
        _setup_django(var_dir)
        for path in take(args.out.resolve()):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
