"""The proof sandbox: which isolation the machine offers, and running one command inside it."""

from __future__ import annotations

from review.sandbox.command import INSIDE_DIR, Limits
from review.sandbox.detect import UNSANDBOXED, Isolation, Sandbox, detect_sandbox, for_policy
from review.sandbox.run import Ran, run_sandboxed

__all__ = [
    "INSIDE_DIR",
    "UNSANDBOXED",
    "Isolation",
    "Limits",
    "Ran",
    "Sandbox",
    "detect_sandbox",
    "for_policy",
    "run_sandboxed",
]
