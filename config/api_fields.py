"""Serializer fields for JSON request bodies that take a string and nothing else.

DRF's ``CharField`` turns ``5`` into ``"5"`` and its ``UUIDField`` turns ``5`` into
``00000000-…-000000000005``: a client that sends the wrong type gets an answer to a question it did not
ask. These fields refuse any non-string value as ``invalid`` (a 400 ``invalid_input``).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class StringOnly(serializers.Field):
    """Put before a DRF field class: a value that is not a string fails as that field's ``invalid``."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(StringOnly, serializers.CharField):
    pass


class StrictUUIDField(StringOnly, serializers.UUIDField):
    pass
