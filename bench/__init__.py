"""Benchmarks of the bars in docs/performance.md; `python bench/run_all.py` runs them all."""
