"""One module per intent path; each turns a claimed run into a ``RunResult`` or raises ``RunFailure``."""
