"""The Trace API: a run's audit records read back for its owner and auditors (``docs/audit.md``).

It lives in the diagnosis app because it answers by chat session and run, whose visibility
``diagnosis.selectors`` decides; the audit rows themselves belong to ``tracing``. Its URL namespace stays
``tracing`` (``reverse("tracing:trace")``), so routes and OpenAPI operation ids are unchanged.
"""
