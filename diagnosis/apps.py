from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DiagnosisConfig(AppConfig):
    """Chat sessions, runs, the intent router, the graph, its nodes, model providers and the chat API."""

    name = "diagnosis"
    verbose_name = _("Diagnosis")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from diagnosis.sse.listener import install

        install()
