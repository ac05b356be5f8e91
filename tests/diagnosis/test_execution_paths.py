"""Every intent has a path behind the ``IntentPath`` protocol, loaded on first use only."""

from __future__ import annotations

import inspect
import subprocess
import sys

from diagnosis.execution import PATH_LOADERS
from diagnosis.models import Intent
from tests.conftest import ROOT


def test_every_intent_has_a_path_taking_run_progress_and_options():
    assert set(PATH_LOADERS) == set(Intent)
    for intent, load in PATH_LOADERS.items():
        path = load()
        assert list(inspect.signature(path).parameters) == ["run", "progress", "options"], intent


def test_a_greeting_loads_neither_the_graph_nor_the_model_providers():
    """In a fresh process, since this one may have imported the graph already."""
    script = (
        "import sys, django; django.setup()\n"
        "import diagnosis.submission, diagnosis.tasks\n"
        "from diagnosis.execution import PATH_LOADERS\n"
        "from diagnosis.models import Intent\n"
        "PATH_LOADERS[Intent.SYSTEM_CHAT]()\n"
        "heavy = ('diagnosis.paths.diagnosis_graph', 'diagnosis.graph.builder', 'diagnosis.providers.factory')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
