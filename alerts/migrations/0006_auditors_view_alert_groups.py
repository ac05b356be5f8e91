"""The ``auditors`` group may view alert groups too (their admin page: when a group's run started, whether it
resolved since), as it views their notifications and deliveries (0002)."""

import importlib

from django.db import migrations

granting = importlib.import_module("alerts.migrations.0002_auditors_view_alerts").granting


class Migration(migrations.Migration):
    dependencies = [("alerts", "0005_latest_alert_start")]

    operations = [migrations.RunPython(*granting(("view_alertgroup",)))]
