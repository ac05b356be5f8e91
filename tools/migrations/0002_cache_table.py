"""Create the database cache table used as the embedded invocation store.

A migration (not a separate ``createcachetable`` step) so that every database that is migrated - the
demo's, the tests', production's - has it. It creates nothing when the cache is Redis.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("tools", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
