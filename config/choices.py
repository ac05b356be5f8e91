"""Django ``choices`` built from a vocabulary enum, so a model field never restates the values.

The vocabularies live in plain ``StrEnum``s (``diagnosis/graph/status.py``, ``tools/names.py``) that the
graph and the nodes use without Django; the models only add the human labels. A label missing for a value,
or given for a value the vocabulary lacks, fails at import rather than drifting silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum

from django.db import models
from django.utils.functional import Promise

StrOrPromise = str | Promise


def text_choices(
    name: str, vocabulary: Iterable[StrEnum], labels: Mapping[str, StrOrPromise], *, module: str
) -> type[models.TextChoices]:
    """A ``TextChoices`` with the vocabulary's values in its order (duplicates kept once) and these labels."""
    members = list(dict.fromkeys(vocabulary))
    unknown = sorted(set(labels) - set(members))
    unlabelled = [member.value for member in members if member not in labels]
    if unknown or unlabelled:
        raise ValueError(f"{name}: labels for unknown values {unknown}, no label for {unlabelled}")
    # django-stubs types TextChoices(...) as making a member, not Enum's functional API that makes a class.
    return models.TextChoices(  # type: ignore[call-overload]
        name, [(member.name, (member.value, labels[member])) for member in members], module=module
    )
