"""Building a run's models from settings or from the CLI's explicit provider and script."""

from __future__ import annotations

import json
import sys
import types

import pytest

from diagnosis.providers import factory
from diagnosis.providers.base import ModelReply, ProviderConfig, ProviderConfigError, Role, RoleModels
from diagnosis.providers.factory import build_models, config_from_settings
from diagnosis.providers.offline.provider import OfflineChatModel
from diagnosis.providers.openai_provider import OpenAIChatModel
from diagnosis.providers.scripted import ScriptedChatModel


class CannedModel:
    def complete(self, messages, tools=None, response_format=None) -> ModelReply:
        return ModelReply(content="canned")


@pytest.fixture
def llm_settings(settings):
    settings.LLM_PROVIDER = "openai"
    settings.LLM_BASE_URL = "http://127.0.0.1:8000/v1"
    settings.LLM_API_KEY = "sk-settings"
    settings.LLM_MODEL = "qwen-test"
    settings.LLM_TIMEOUT_SECONDS = 12.5
    settings.LLM_MAX_RETRIES = 4
    settings.LLM_SCRIPT_PATH = "/srv/script.json"
    settings.LLM_OUTPUT_TOKENS = {
        "planner": 300,
        "executor": 900,
        "verifier": 400,
        "composer": 500,
        "semantic_guard": 60,
    }
    settings.LLM_MAX_TOKENS_PARAM = "max_completion_tokens"
    settings.LLM_MAX_PROMPT_TOKENS = 9000
    return settings


@pytest.mark.usefixtures("llm_settings")
def test_config_comes_from_settings():
    assert config_from_settings() == ProviderConfig(
        name="openai",
        base_url="http://127.0.0.1:8000/v1",
        api_key="sk-settings",
        model="qwen-test",
        timeout_seconds=12.5,
        max_retries=4,
        script_path="/srv/script.json",
        output_tokens={"planner": 300, "executor": 900, "verifier": 400, "composer": 500, "semantic_guard": 60},
        max_tokens_param="max_completion_tokens",
        max_prompt_tokens=9000,
    )


@pytest.mark.usefixtures("llm_settings")
def test_cli_arguments_override_the_provider_and_script():
    config = config_from_settings(name="scripted", script_path="/tmp/other.json")

    assert (config.name, config.script_path, config.model) == ("scripted", "/tmp/other.json", "qwen-test")


@pytest.mark.usefixtures("llm_settings")
def test_another_provider_may_play_the_semantic_guard(settings):
    settings.SEMANTIC_GUARD_PROVIDER = "offline"

    models = build_models(config_from_settings())

    assert isinstance(models.composer, OpenAIChatModel)
    assert isinstance(models.semantic_guard, OfflineChatModel) and models.semantic_guard.role is Role.SEMANTIC_GUARD


@pytest.mark.usefixtures("llm_settings")
def test_the_guard_provider_is_validated_like_the_main_one(settings):
    settings.SEMANTIC_GUARD_PROVIDER = "scripted"
    settings.LLM_SCRIPT_PATH = "/nonexistent/script.json"

    with pytest.raises(ProviderConfigError, match="script"):
        build_models(config_from_settings())


@pytest.mark.usefixtures("llm_settings")
def test_it_builds_the_openai_provider_from_settings():
    models = build_models(config_from_settings())

    assert isinstance(models.planner, OpenAIChatModel)


def test_it_builds_the_scripted_provider_with_the_given_resolver(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"composer": ["see {{inv:1}}"]}), encoding="utf-8")

    config = ProviderConfig(name="scripted", script_path=str(path))

    models = build_models(config, resolve_invocation=lambda n: f"id-{n}")

    assert isinstance(models.composer, ScriptedChatModel)
    assert models.composer.complete([]).content == "see id-1"


def test_scripted_without_a_script_is_a_config_error():
    with pytest.raises(ProviderConfigError, match="needs a script file"):
        build_models(ProviderConfig(name="scripted"))


def test_a_bad_script_is_a_config_error_at_build_time(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"planner": [{"error": "meltdown"}]}', encoding="utf-8")

    with pytest.raises(ProviderConfigError, match=r"planner\[0\]\.error"):
        build_models(ProviderConfig(name="scripted", script_path=str(path)))


def test_an_unknown_provider_is_a_config_error():
    with pytest.raises(ProviderConfigError, match="unknown model provider 'gpt'; choose one of offline, openai"):
        build_models(ProviderConfig(name="gpt"))


def test_a_registered_provider_is_imported_only_when_chosen(monkeypatch):
    """How ``offline`` plugs in: a module with ``build_models`` at the registered path, no factory edit."""
    built = RoleModels(**{role.value: CannedModel() for role in Role})
    received = []

    def build(config, *, resolve_invocation):
        received.append((config.name, resolve_invocation(3)))
        return built

    module = types.ModuleType("offline_for_test")
    module.build_models = build
    monkeypatch.setitem(sys.modules, "offline_for_test", module)
    monkeypatch.setitem(factory.PROVIDER_BUILDERS, "offline", "offline_for_test.build_models")

    models = build_models(ProviderConfig(name="offline"), resolve_invocation=lambda n: f"inv-{n}")

    assert models is built
    assert models.verifier.complete([]).content == "canned"
    assert received == [("offline", "inv-3")]


def test_a_registered_provider_whose_module_is_absent_is_a_config_error(monkeypatch):
    monkeypatch.setitem(factory.PROVIDER_BUILDERS, "offline", "diagnosis.providers.not_built_yet.build_models")

    with pytest.raises(ProviderConfigError, match="model provider 'offline' is not installed"):
        build_models(ProviderConfig(name="offline"))


def test_a_broken_import_inside_a_provider_is_not_disguised(monkeypatch, tmp_path):
    (tmp_path / "provider_with_missing_dependency.py").write_text("import dependency_nobody_installed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(factory.PROVIDER_BUILDERS, "offline", "provider_with_missing_dependency.build_models")

    with pytest.raises(ModuleNotFoundError, match="dependency_nobody_installed"):
        build_models(ProviderConfig(name="offline"))
