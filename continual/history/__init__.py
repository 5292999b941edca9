"""Learning from a repository's own review history: what counts (``evidence``), the back-fill's
run (``runs``) and what it keeps and publishes (``store``); docs/history.md."""
