"""A run's token budget (``LLM_MAX_TOKENS_PER_RUN``): prompt plus completion tokens, over all its model calls.

One ``TokenBudget`` is made when the run starts and shared by its models, as the run's ``Deadline`` is. Each
request (a retry is another request) is admitted only if its estimated prompt plus its whole output cap fits
in what is left, and each request sent is charged: a reply what it reports, and what it does not report
at its bound (the estimated prompt, the whole output cap); a request given up at its deadline, or answered
with a body that cannot be read, the whole of both, since the server may have computed it all. So the run
can never spend past its limit whatever the model writes or the server reports. A request that does not
fit fails as ``token_budget`` before it is sent, which the graph routes to the fallback like any
non-retryable model failure. Runs are executed by one thread, so no lock is needed.
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

    def spend(self, usage: Usage, *, estimated_prompt: int, max_output: int) -> None:
        """Count a reply: what it reports, and what it does not at its bound (the estimated prompt, the cap)."""
        self.spent += (usage.prompt_tokens or estimated_prompt) + (usage.completion_tokens or max_output)

    def spend_unanswered(self, *, estimated_prompt: int, max_output: int) -> None:
        """Count a request sent whose usage is unknown (given up at its deadline, an unreadable body)."""
        self.spent += estimated_prompt + max_output
