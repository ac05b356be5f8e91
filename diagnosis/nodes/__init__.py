"""The eight node actions of the diagnosis graph (the graph's actions port, ``diagnosis.graph.actions``)."""
