"""Output shapes of feedback: the feedback API's (snake_case, like the chat API) and the Trace API's (camelCase)."""

from __future__ import annotations

from rest_framework import serializers

from diagnosis.models import FeedbackRating


class FeedbackSerializer(serializers.Serializer):
    run_id = serializers.UUIDField()
    rating = serializers.ChoiceField(choices=FeedbackRating.choices)
    comment = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class TraceFeedbackSerializer(serializers.Serializer):
    """One user's feedback on the traced run, in the Trace API's ``feedback`` list."""

    user = serializers.CharField(source="user.username")
    rating = serializers.ChoiceField(choices=FeedbackRating.choices)
    comment = serializers.CharField()
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(source="updated_at")
