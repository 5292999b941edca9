"""Tables of persons, their API tokens and preference cards, and the record of every injection."""

from __future__ import annotations
