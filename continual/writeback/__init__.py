"""The write-back: what maintainers did with each suggestion, decided from plain values and recorded.

`threads.py` builds a pull request's threads and decides each; `pull.py` decides one pull request;
`signals.py` and `applied.py` read reactions, merges and applied suggestions; `apply.py` records the
decisions as receipts; `status.py` renders the status block on the app's own comment.
"""
