"""A step's time is when it was recorded (set by ``tracing.steps``), not when its row was written.

State only: the columns stay ``datetime NOT NULL``; only Django's default changes (``auto_now_add`` set the
time at the INSERT, which SQLite's schema editor would have answered by copying both tables whole)."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tracing", "0008_field_verbose_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name=model,
                    name="created_at",
                    field=models.DateTimeField(
                        default=django.utils.timezone.now, editable=False, verbose_name="created at"
                    ),
                )
                for model in ("agentreasoningaudit", "agentstep")
            ]
        )
    ]
