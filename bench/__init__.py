"""Benchmarks of the SPEC §11 bars; `python bench/run_all.py` runs them all."""
