"""The diagnosis StateGraph: state, statuses, topology, routers, the actions port, builder and runner.

Seeds 000 §2–§8 and 002 §2–§8 freeze this graph; ``docs/graph.md`` maps every row of the routing matrix to
the code and the test that covers it. Nothing outside this package decides a route; it also owns the
pure trace builder (``trace_builder``) and the admin's drawing of the topology (``drawing``). Only
``drawing`` imports Django (its templates); the rest imports nothing from Django, so the graph is testable
and benchmarkable without a database.
"""
