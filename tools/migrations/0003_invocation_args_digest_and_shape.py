"""``tool_invocation`` keeps a digest and the shape of a call's arguments instead of up to 500 of their characters.

Rows recorded before keep what can be derived from their ``args_summary``: when it held the whole
arguments as a JSON object (it was not cut), their digest and shape are exactly what a call records now;
otherwise both stay unknown (``""`` and null). Then the text column goes, SQL and search texts with it.
"""

from __future__ import annotations

import json

from django.db import migrations, models

BATCH = 500


def derive_digest_and_shape(apps, schema_editor) -> None:
    # The current recording rule, imported rather than copied: old summaries map onto today's digests.
    from tools.arguments import record_arguments

    ToolInvocation = apps.get_model("tools", "ToolInvocation")
    batch = []
    for invocation in ToolInvocation.objects.exclude(args_summary="").only("id", "args_summary").iterator(BATCH):
        try:
            arguments = json.loads(invocation.args_summary)
        except ValueError:
            continue
        if not isinstance(arguments, dict):
            continue
        recorded = record_arguments(arguments)
        invocation.args_sha256, invocation.args_shape = recorded.sha256, recorded.shape
        batch.append(invocation)
        if len(batch) == BATCH:
            ToolInvocation.objects.bulk_update(batch, ["args_sha256", "args_shape"])
            batch = []
    ToolInvocation.objects.bulk_update(batch, ["args_sha256", "args_shape"])


class Migration(migrations.Migration):
    dependencies = [
        ("tools", "0002_cache_table"),
    ]

    operations = [
        migrations.AddField(
            model_name="toolinvocation",
            name="args_sha256",
            field=models.CharField(
                blank=True,
                default="",
                help_text="sha256 of the canonical arguments; empty for calls recorded before digests.",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="toolinvocation",
            name="args_shape",
            field=models.JSONField(
                blank=True,
                default=None,
                help_text='Keys with value types and lengths, e.g. {"sql": "str(84)"}; null when not known.',
                null=True,
            ),
        ),
        # Backwards, the summary column comes back empty: the text is not recoverable from a digest.
        migrations.RunPython(derive_digest_and_shape, migrations.RunPython.noop),
        migrations.RemoveField(model_name="toolinvocation", name="args_summary"),
    ]
