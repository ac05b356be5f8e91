from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    """Chat sessions, runs, the intent router, the graph, its nodes, model providers and the chat API."""

    name = "diagnosis"
    default_auto_field = "django.db.models.BigAutoField"
