"""The ``auditors`` group (tracing/migrations/0002) may view alert notifications and delivery attempts.

As there, the permissions are created first: on a fresh database post_migrate has not made them yet.
"""

from collections.abc import Callable, Sequence

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP_NAME = "auditors"
CODENAMES = ("view_alertnotification", "view_notificationdelivery")

Operation = Callable[..., None]


def granting(codenames: Sequence[str]) -> tuple[Operation, Operation]:
    """The forward and backward functions of a migration granting the auditors these alerts permissions."""

    def grant(apps, schema_editor):
        alias = schema_editor.connection.alias
        app_config = apps.get_app_config("alerts")
        # create_permissions skips apps without a models module; migration state apps have none.
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0, using=alias)
        app_config.models_module = None
        Group = apps.get_model("auth", "Group")
        Permission = apps.get_model("auth", "Permission")
        group, _ = Group.objects.using(alias).get_or_create(name=GROUP_NAME)
        for codename in codenames:
            permission = Permission.objects.using(alias).get(content_type__app_label="alerts", codename=codename)
            group.permissions.add(permission)

    def revoke(apps, schema_editor):
        alias = schema_editor.connection.alias
        group = apps.get_model("auth", "Group").objects.using(alias).filter(name=GROUP_NAME).first()
        if group is not None:
            group.permissions.remove(
                *apps.get_model("auth", "Permission").objects.using(alias).filter(
                    content_type__app_label="alerts", codename__in=codenames
                )
            )

    return grant, revoke


class Migration(migrations.Migration):
    dependencies = [("alerts", "0001_initial"), ("tracing", "0002_auditors_group")]

    operations = [migrations.RunPython(*granting(CODENAMES))]
