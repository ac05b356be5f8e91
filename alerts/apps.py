from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AlertsConfig(AppConfig):
    """Alertmanager intake (an alert group starts a run) and chat-ops notifications of those runs' answers.

    It sits above diagnosis: it submits runs through ``diagnosis.submission`` and reacts to
    ``diagnosis.signals.run_ended``; diagnosis never imports it (``.importlinter``).
    """

    name = "alerts"
    verbose_name = _("Alerts")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from alerts.receivers import connect

        connect()
