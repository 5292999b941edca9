"""Recall: the frozen snapshot of an account's lessons, its inverted index, and the naive scan."""
