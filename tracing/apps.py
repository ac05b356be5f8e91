from django.apps import AppConfig


class TracingConfig(AppConfig):
    """Agent steps, the timeline, the restricted reasoning audit, the trace builder, Trace API and admin."""

    name = "tracing"
    default_auto_field = "django.db.models.BigAutoField"
