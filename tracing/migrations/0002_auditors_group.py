"""The ``auditors`` group: view permissions on every audit model, plus the restricted reasoning audit.

Permissions are normally created after ``migrate`` finishes (post_migrate), so on a fresh database they
do not exist yet when this runs: they are created here first, for the apps whose models the group needs.
Members also need ``is_staff`` to open the admin (docs/audit.md).
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP_NAME = "auditors"
PERMISSIONS = (
    ("diagnosis", "view_chatsession"),
    ("diagnosis", "view_diagnosisrun"),
    ("tracing", "view_agentstep"),
    ("tracing", "view_diagnosistraceevent"),
    ("tracing", "view_agentreasoningaudit"),
    ("tracing", "view_reasoning"),
    ("tools", "view_toolinvocation"),
    ("tools", "view_knowledgedocument"),
)


def create_auditors(apps, schema_editor):
    for label in sorted({app_label for app_label, _ in PERMISSIONS}):
        app_config = apps.get_app_config(label)
        # create_permissions skips apps without a models module; migration state apps have none.
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0, using=schema_editor.connection.alias)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.using(schema_editor.connection.alias).get_or_create(name=GROUP_NAME)
    for app_label, codename in PERMISSIONS:
        group.permissions.add(
            Permission.objects.using(schema_editor.connection.alias).get(
                content_type__app_label=app_label, codename=codename
            )
        )


def delete_auditors(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("diagnosis", "0001_initial"),
        ("tools", "0001_initial"),
        ("tracing", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_auditors, delete_auditors)]
