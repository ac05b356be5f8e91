"""The diagnosis StateGraph: state, statuses, topology, routers, the actions port, builder and runner.

Seeds 000 §2–§8 and 002 §2–§8 freeze this graph; ``docs/graph.md`` maps every row of the routing matrix to
the code and the test that covers it. Nothing outside this package (and the pure trace builder in
``tracing.trace_builder``) decides a route. The package imports nothing from Django, so the graph is
testable and benchmarkable without a database.
"""
