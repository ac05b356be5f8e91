from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ToolsConfig(AppConfig):
    """The tool registry and harness, invocations and their store, the knowledge base and scenario packs."""

    name = "tools"
    verbose_name = _("Tools")
    default_auto_field = "django.db.models.BigAutoField"
