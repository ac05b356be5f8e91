"""``bench/prompt_tokens.py`` end to end on one pack: the figures README quotes keep coming from a bench that
runs. It hands its loopback model's address to the runs through the environment, which the benches' set-up
once cleared before reading it, so every run failed for want of ``LLM_BASE_URL``."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_it_prints_each_roles_prompts_and_each_packs_runs():
    result = subprocess.run(
        [sys.executable, "bench/prompt_tokens.py", "--pack", "broker-disk-full", "--price-in", "1", "--price-out", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin"},  # the bench configures its own private database and settings
    )

    assert result.returncode == 0, result.stderr
    for role in ("planner", "executor", "verifier", "composer", "semantic_guard"):
        assert re.search(rf"^broker-disk-full\s+{role}\s+[1-9]\d*\s+[1-9]\d*\s+[1-9]\d*\s+\d+$", result.stdout, re.M), (
            role
        )
    assert re.search(
        r"^broker-disk-full\s+3\s+[1-9]\d*\s+[1-9]\d*\s+0\.\d{6}\s+composer_completed 3$", result.stdout, re.M
    )
