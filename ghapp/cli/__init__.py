"""The `hindsight` command line."""

from __future__ import annotations

from ghapp.cli.commands import main

__all__ = ["main"]
