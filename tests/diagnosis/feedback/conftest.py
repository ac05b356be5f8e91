"""The audit tests' signed-in API client and finished run, shared with the feedback tests."""

from tests.tracing.conftest import api_client, owned_run

__all__ = ["api_client", "owned_run"]
