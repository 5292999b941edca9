"""Tables of reviews, their calls, and the session memory they learn and recall."""

from __future__ import annotations
