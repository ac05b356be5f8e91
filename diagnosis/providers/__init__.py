"""Model providers: the ``complete`` interface (``base``), its ``openai`` and ``scripted`` implementations,
and the ``factory`` that builds a run's models. See ``docs/providers.md``."""
