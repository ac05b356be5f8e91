from django.apps import AppConfig


class AlertsConfig(AppConfig):
    """Alertmanager intake (an alert group starts a run) and chat-ops notifications of those runs' answers.

    It sits above diagnosis: it submits runs through ``diagnosis.submission`` and reacts to
    ``diagnosis.signals.run_ended``; diagnosis never imports it (``.importlinter``).
    """

    name = "alerts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from alerts.receivers import connect

        connect()
