"""Chat page and chat API views: thin, they validate and call services."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.views.generic import TemplateView


class ChatPageView(LoginRequiredMixin, TemplateView):
    template_name = "diagnosis/chat.html"
