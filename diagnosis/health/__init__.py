"""``GET /healthz``: whether this deployment can take a run now — its database, its Redis (when configured)
and something executing runs, each with its latency — and whether its stale-run reaper passes. For load
balancers and operators: unauthenticated, so it says which check failed and how, never a URL, host name or
exception text."""
