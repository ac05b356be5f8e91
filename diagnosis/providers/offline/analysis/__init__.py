"""Evidence analysis of the offline executor, one module per kind of tool result."""
