"""A run's token budget (``LLM_MAX_TOKENS_PER_RUN``): prompt plus completion tokens, over all its model calls.

One ``TokenBudget`` is made when the run starts and shared by its models, as the run's ``Deadline`` is. Each
request (a retry is another request) is admitted only if its estimated prompt plus its whole output cap fits
in what is left, and each request sent is charged: a reply what it reports, and what it does not report
at its bound (the estimated prompt, the whole output cap); a request the server may have computed without
answering it (given up at its deadline, a 5xx, a connection lost after it was sent, a body that cannot be
read) the whole of both. A reported output is not believed below the fewest tokens the reply's text can be
(``token_estimate.fewest_tokens``: a review's server reported 5 completion tokens for a gigabyte). A request that does not fit fails as ``token_budget`` before it is sent, which the
graph routes to the fallback like any non-retryable model failure. Runs are executed by one thread, so no
lock is needed.

The prompt's estimate (``token_estimate.py``) is only an estimate: a served model's tokenizer may split a
text finer (a llama tokenizer gives every digit a token), and the server then reports more prompt tokens
than were admitted. So the budget learns: once a reply reports a prompt above its estimate, every later
estimate is scaled by the worst such ratio seen. The run can still spend past its limit, but only by how
far one call's real prompt exceeds its scaled estimate: the first call by its whole misestimate, a later
one only when its text tokenises worse than any before. The output is learnt the same way: a server may
count in ``completion_tokens`` what its cap does not stop (a reasoning model's hidden thinking, on some
APIs), and once a reply reports more output than its cap, every later request reserves its cap scaled by
the worst such ratio seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from diagnosis.providers.base import Usage, token_budget_spent


@dataclass
class TokenBudget:
    limit: int
    spent: int = 0
    prompt_scale: Fraction = Fraction(1)
    """The worst ratio yet of a reported prompt to its estimate, never below 1 (exact, so that what
    ``prompt_room`` allows ``admit`` admits)."""
    output_scale: Fraction = Fraction(1)
    """The worst ratio yet of a reported completion to its request's output cap, never below 1."""

    def remaining(self) -> int:
        return max(0, self.limit - self.spent)

    def prompt_room(self, max_output: int) -> int:
        """The largest prompt, as ``token_estimate`` counts it, that a call with this output cap may still send
        (0 when not even the cap fits)."""
        return max(0, math.floor((self.remaining() - self._output(max_output)) / self.prompt_scale))

    def admit(self, prompt_tokens: int, max_output: int) -> None:
        """Raise the ``token_budget`` failure unless the call fits whole: its (scaled) prompt and its full output."""
        needed = self._scaled(prompt_tokens) + self._output(max_output)
        if needed > self.remaining():
            raise token_budget_spent(needed, self.remaining())

    def spend(self, usage: Usage, *, estimated_prompt: int, max_output: int, least_output: int = 0) -> None:
        """Count a reply: what it reports, and what it does not at its bound (the scaled estimate, the cap),
        its output never below ``least_output`` (the fewest tokens its text can be: a server may under-report);
        learn from a reported prompt larger than its estimate, and a reported output larger than its cap."""
        if usage.prompt_tokens > 0 and estimated_prompt > 0:
            self.prompt_scale = max(self.prompt_scale, Fraction(usage.prompt_tokens, estimated_prompt))
        if usage.completion_tokens > 0 and max_output > 0:
            self.output_scale = max(self.output_scale, Fraction(usage.completion_tokens, max_output))
        output = usage.completion_tokens or self._output(max_output)
        self.spent += (usage.prompt_tokens or self._scaled(estimated_prompt)) + max(output, least_output)

    def spend_unanswered(self, *, estimated_prompt: int, max_output: int) -> None:
        """Count a request sent whose usage is unknown (given up at its deadline, a 5xx, a cut or unreadable body)."""
        self.spent += self._scaled(estimated_prompt) + self._output(max_output)

    def _scaled(self, estimated_prompt: int) -> int:
        """An estimate corrected by what the served tokenizer has shown so far."""
        return math.ceil(estimated_prompt * self.prompt_scale)

    def _output(self, max_output: int) -> int:
        """A cap corrected by what the server has shown it counts past it so far."""
        return math.ceil(max_output * self.output_scale)
