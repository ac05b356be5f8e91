"""The knowledge revision's one row, made before any write needs it.

Made by the first write instead (an UPDATE that found no row, then an INSERT), concurrent first uploads
deadlocked on MariaDB: each UPDATE took a gap lock on the empty key range, and each INSERT waited for the
other's. With the row in place every write is an UPDATE of it (``tools.knowledge.revision.bump``).
"""

from django.db import migrations

STATE_PK = 1


def create_row(apps, schema_editor):
    state = apps.get_model("tools", "KnowledgeIndexState")
    state.objects.using(schema_editor.connection.alias).get_or_create(pk=STATE_PK)


class Migration(migrations.Migration):
    dependencies = [("tools", "0006_invocation_created_index")]

    operations = [migrations.RunPython(create_row, migrations.RunPython.noop)]
