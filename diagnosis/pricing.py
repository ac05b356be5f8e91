"""What a run's tokens cost, from the optional price table (``LLM_PRICE_INPUT_PER_MTOK``, ``…_OUTPUT_…``).

Prices are per million tokens, in whatever currency the operator pays in, and exact (``Decimal``): a cost
is a sum of many small amounts and must add up to what the provider bills. Reasoning tokens are part of
the completion tokens in every API that reports them, so they are priced as output and not counted twice.
Without a price table a cost is None: unknown, which auditors must be able to tell from zero.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings

MILLION = Decimal(1_000_000)
COST_PLACES = Decimal("0.000001")
"""The stored precision (``diagnosis_run.cost`` has six decimal places): a millionth of the currency unit."""


def run_cost(prompt_tokens: int, completion_tokens: int) -> Decimal | None:
    """The cost of these tokens at the configured prices, or None when no price is configured."""
    input_price, output_price = settings.LLM_PRICE_INPUT_PER_MTOK, settings.LLM_PRICE_OUTPUT_PER_MTOK
    if input_price is None or output_price is None:
        return None
    cost = (prompt_tokens * input_price + completion_tokens * output_price) / MILLION
    return cost.quantize(COST_PLACES)
