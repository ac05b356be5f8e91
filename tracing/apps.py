from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TracingConfig(AppConfig):
    """Agent steps, the timeline, the restricted reasoning audit, the trace builder, Trace API and admin."""

    name = "tracing"
    verbose_name = _("Tracing")
    default_auto_field = "django.db.models.BigAutoField"
