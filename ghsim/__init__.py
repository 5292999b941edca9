"""A stateful GitHub stand-in served over loopback HTTP, for tests and `hindsight demo`."""

from __future__ import annotations

from ghsim.app_key import AppKeyPair, generate_app_key
from ghsim.driver import GitHubSimulator
from ghsim.model import ApiError, FileChange
from ghsim.patches import addition_patch
from ghsim.recording import Fault, LoggedRequest
from ghsim.webhooks import Delivery, delivery_headers, sign

__all__ = [
    "ApiError",
    "AppKeyPair",
    "Delivery",
    "Fault",
    "FileChange",
    "GitHubSimulator",
    "LoggedRequest",
    "addition_patch",
    "delivery_headers",
    "generate_app_key",
    "sign",
]
