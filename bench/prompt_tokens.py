"""Prompt tokens per role: every shipped pack's questions diagnosed through the ``openai`` provider.

The model is the tests' loopback OpenAI-compatible server, answering each request with the ``offline``
provider's rule-based reply for the role the request's task names, so the real prompts of a real run -
system prompt, task, tool schemas, tool results, retries - cross real HTTP through the real ``openai``
SDK. The server measures each request as it arrives with the provider's own estimate
(``diagnosis/providers/token_estimate.py``: conservative, about three UTF-8 bytes a token) and reports
that estimate back as the reply's usage, so the runs' stored totals are the same numbers. It prints, per
pack and role, the calls, the mean and largest prompt, and the role's output cap; then each pack's tokens
per run and, with prices given, what a run would cost.

    .venv/bin/python bench/prompt_tokens.py [--pack NAME]... [--price-in 0.27 --price-out 1.10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.embedded import questions, setup_django  # noqa: E402
from tests.support.fake_openai import FakeOpenAIServer, FakeResponse, RecordedRequest, chat_completion  # noqa: E402

PACKS = ("payment-db-pool", "cache-eviction-storm", "broker-disk-full")
ROLE_ORDER = ("planner", "executor", "verifier", "composer", "semantic_guard")
REQUESTS_PER_RUN_CAP = 64


@dataclass
class PackSample:
    prompts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    run_tokens: list[int] = field(default_factory=list)
    run_costs: list[Decimal] = field(default_factory=list)
    endings: list[str] = field(default_factory=list)
    """Each run's ``termination_reason``: a budget that ends runs early shows here."""


class OfflineOverHttp:
    """A responder playing the offline rules behind HTTP, recording each prompt's estimated tokens into
    the sample of the pack being measured."""

    def __init__(self) -> None:
        self.sample = PackSample()

    def __call__(self, request: RecordedRequest) -> FakeResponse:
        from diagnosis.providers.base import Role
        from diagnosis.providers.offline.provider import OfflineChatModel
        from diagnosis.providers.token_estimate import prompt_tokens, text_tokens

        messages, tools = request.json["messages"], request.json.get("tools")
        role = json.loads(messages[1]["content"])["task"]
        reply = OfflineChatModel(Role(role)).complete(messages, tools=tools)
        prompt = prompt_tokens(messages, tools)
        self.sample.prompts[role].append(prompt)
        calls = [{"name": call.name, "arguments": call.arguments} for call in reply.tool_calls]
        written = (reply.content or "") + "".join(call.name + call.arguments for call in reply.tool_calls)
        body = chat_completion(
            content=reply.content, tool_calls=calls, prompt_tokens=prompt, completion_tokens=text_tokens(written)
        )
        return FakeResponse(body=body)


def measure(packs: list[str], server: FakeOpenAIServer) -> dict[str, PackSample]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from diagnosis.execution import run_execute
    from diagnosis.paths.options import ExecutionOptions
    from diagnosis.submission import run_create

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench")
    samples: dict[str, PackSample] = {}
    model = OfflineOverHttp()
    for pack in packs:
        call_command("load_scenario", pack, stdout=StringIO())
        sample = samples[pack] = model.sample = PackSample()
        for question in questions(pack):
            # More answers than a run can ask for; what one run leaves over answers the next.
            server.enqueue(*[model] * REQUESTS_PER_RUN_CAP)
            created = run_create(user=user, message=question)
            run = run_execute(created.pk, worker="bench", options=ExecutionOptions(provider="openai"))
            assert run is not None and run.status == "SUCCESS", f"{pack}: {question!r} did not finish"
            sample.run_tokens.append(run.total_tokens)
            sample.endings.append((run.orchestration_trace or {}).get("termination_reason", run.failure_reason))
            if run.cost is not None:
                sample.run_costs.append(run.cost)
    return samples


def format_report(samples: dict[str, PackSample]) -> str:
    from django.conf import settings

    header = f"{'pack':<22}{'role':<16}{'calls':>6}{'mean prompt':>13}{'max prompt':>12}{'output cap':>12}"
    lines = [header, "-" * len(header)]
    for pack, sample in samples.items():
        for role in ROLE_ORDER:
            prompts = sample.prompts.get(role)
            if prompts:
                cap = settings.LLM_OUTPUT_TOKENS[role]
                mean = statistics.mean(prompts)
                lines.append(f"{pack:<22}{role:<16}{len(prompts):>6}{mean:>13.0f}{max(prompts):>12}{cap:>12}")
    lines += ["", f"{'pack':<22}{'runs':>6}{'tokens/run mean':>17}{'max':>9}{'cost/run mean':>16}  endings"]
    for pack, sample in samples.items():
        cost = f"{sum(sample.run_costs) / len(sample.run_costs):.6f}" if sample.run_costs else "-"
        tokens = sample.run_tokens
        endings = ", ".join(f"{name} {sample.endings.count(name)}" for name in sorted(set(sample.endings)))
        lines.append(f"{pack:<22}{len(tokens):>6}{statistics.mean(tokens):>17.0f}{max(tokens):>9}{cost:>16}  {endings}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", action="append", choices=PACKS, help="shipped pack (repeatable; default all)")
    parser.add_argument("--price-in", type=Decimal, help="price per million prompt tokens")
    parser.add_argument("--price-out", type=Decimal, help="price per million completion tokens")
    args = parser.parse_args(argv)
    if (args.price_in is None) != (args.price_out is None):
        parser.error("--price-in and --price-out go together")
    with tempfile.TemporaryDirectory(prefix="superbiz-bench-") as var_dir, FakeOpenAIServer() as server:
        model = {"LLM_BASE_URL": server.base_url, "LLM_MODEL": "offline-rules-over-http"}
        if args.price_in is not None:
            model.update(LLM_PRICE_INPUT_PER_MTOK=str(args.price_in), LLM_PRICE_OUTPUT_PER_MTOK=str(args.price_out))
        setup_django(var_dir, **model)
        print(format_report(measure(args.pack or list(PACKS), server)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
