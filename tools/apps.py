from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """The tool registry and harness, invocations and their store, the knowledge base and scenario packs."""

    name = "tools"
    default_auto_field = "django.db.models.BigAutoField"
