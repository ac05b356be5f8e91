"""Feedback on runs: a user's 👍/👎 and comment on an answer (``RunFeedback``), the API that records it, its
Trace API and admin views, and the export of runs marked wrong as evaluation-pack question stubs."""
