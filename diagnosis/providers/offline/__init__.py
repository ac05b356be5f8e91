"""The ``offline`` model provider: generic, rule-based planner, executor, verifier and composer.

It diagnoses from the evidence alone - the question, knowledge hits, log and metric anomalies, business
records - and knows no scenario. See ``docs/offline-provider.md``.
"""

from diagnosis.providers.offline.provider import build_models

__all__ = ["build_models"]
