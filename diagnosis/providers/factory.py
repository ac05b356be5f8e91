"""Build a run's models from settings or from the CLI's explicit choice.

Providers are found through ``PROVIDER_BUILDERS``, a map from name to the dotted path of a builder that is
imported only when chosen: the ``offline`` provider (which needs the tools) plugs in by providing
``diagnosis.providers.offline.build_models`` without this module changing, and choosing ``openai`` never
imports tool code, nor ``offline`` the SDK.
"""

from __future__ import annotations

import dataclasses
import importlib

from django.conf import settings

from diagnosis.providers.base import (
    InvocationResolver,
    ProviderBuilder,
    ProviderConfig,
    ProviderConfigError,
    RoleModels,
    no_invocations,
)
from diagnosis.providers.token_budget import TokenBudget

PROVIDER_BUILDERS: dict[str, str] = {
    "offline": "diagnosis.providers.offline.build_models",
    "openai": "diagnosis.providers.openai_provider.build_models",
    "scripted": "diagnosis.providers.scripted.build_models",
}


def config_from_settings(*, name: str | None = None, script_path: str | None = None) -> ProviderConfig:
    """The configured provider; ``name`` and ``script_path`` override settings (``diagnose --provider/--script``)."""
    return ProviderConfig(
        name=name or settings.LLM_PROVIDER,
        base_url=settings.LLM_BASE_URL,
        api_key=settings.LLM_API_KEY,
        model=settings.LLM_MODEL,
        timeout_seconds=settings.LLM_TIMEOUT_SECONDS,
        max_retries=settings.LLM_MAX_RETRIES,
        script_path=script_path or settings.LLM_SCRIPT_PATH,
        guard_provider=settings.SEMANTIC_GUARD_PROVIDER,
        output_tokens=settings.LLM_OUTPUT_TOKENS,
        max_tokens_param=settings.LLM_MAX_TOKENS_PARAM,
        max_prompt_tokens=settings.LLM_MAX_PROMPT_TOKENS,
    )


def run_token_budget() -> TokenBudget | None:
    """A new run's token budget (``LLM_MAX_TOKENS_PER_RUN``); None when the setting is 0 (no budget)."""
    limit = settings.LLM_MAX_TOKENS_PER_RUN
    return TokenBudget(limit) if limit else None


def build_models(config: ProviderConfig, *, resolve_invocation: InvocationResolver = no_invocations) -> RoleModels:
    """One run's models. Call once per run, and once up front to validate (``ProviderConfigError``).

    With ``guard_provider`` set to another provider, that provider plays the semantic guard: for example
    the deterministic ``offline`` guard behind a hosted composer, which saves the second model call.
    """
    models = _builder(config.name)(config, resolve_invocation=resolve_invocation)
    if not config.guard_provider or config.guard_provider == config.name:
        return models
    guard_config = dataclasses.replace(config, name=config.guard_provider, guard_provider="")
    guard = _builder(guard_config.name)(guard_config, resolve_invocation=resolve_invocation).semantic_guard
    return dataclasses.replace(models, semantic_guard=guard)


def _builder(name: str) -> ProviderBuilder:
    path = PROVIDER_BUILDERS.get(name)
    if path is None:
        raise ProviderConfigError(f"unknown model provider {name!r}; choose one of {', '.join(PROVIDER_BUILDERS)}")
    module_path, _, attribute = path.rpartition(".")
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as exc:
        # Only the provider's own module being absent is a configuration problem; a missing dependency
        # inside it is a bug and must surface as itself.
        if exc.name != module_path:
            raise
        raise ProviderConfigError(f"model provider {name!r} is not installed ({module_path} not found)") from exc
    return getattr(module, attribute)
