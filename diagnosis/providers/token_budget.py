"""A run's token budget (``LLM_MAX_TOKENS_PER_RUN``): prompt plus completion tokens, over all its model calls.

One ``TokenBudget`` is made when the run starts and shared by its models, as the run's ``Deadline`` is. A
call is admitted only if its estimated prompt plus its whole output cap fits in what is left, so the run
can never spend past its limit whatever the model writes; the reply's reported usage is then spent. A
call that does not fit fails as ``token_budget`` before anything is sent, which the graph routes to the
fallback like any non-retryable model failure. Runs are executed by one thread, so no lock is needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnosis.providers.base import Usage, token_budget_spent


@dataclass
class TokenBudget:
    limit: int
    spent: int = 0

    def remaining(self) -> int:
        return max(0, self.limit - self.spent)

    def prompt_room(self, max_output: int) -> int:
        """The largest prompt a call with this output cap may still send (0 when not even the cap fits)."""
        return max(0, self.remaining() - max_output)

    def admit(self, prompt_tokens: int, max_output: int) -> None:
        """Raise the ``token_budget`` failure unless the call fits whole: its prompt and its full output."""
        if prompt_tokens + max_output > self.remaining():
            raise token_budget_spent(prompt_tokens + max_output, self.remaining())

    def spend(self, usage: Usage, *, estimated_prompt: int) -> None:
        """Count a reply: its reported tokens, or the estimated prompt when the server reported none."""
        self.spent += usage.total_tokens if usage.total_tokens else estimated_prompt
