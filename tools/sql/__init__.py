"""``query_mysql``'s read-only path: the AST guard (``guard.py``) and the read-only connections."""
